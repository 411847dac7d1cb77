package dev.conclave.packs.api;

import com.google.protobuf.Empty;
import dev.conclave.packs.PackErrors;
import dev.conclave.packs.connections.PackRegistrations;
import dev.conclave.packs.connections.ResultRouter;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.auth.TokenService;
import dev.conclave.platform.server.GrpcEndpoint;
import dev.conclave.platform.server.GrpcFailures;
import dev.conclave.proto.coven.ExecuteToolRequest;
import dev.conclave.proto.coven.PackManifest;
import dev.conclave.proto.coven.PackServiceGrpcService;
import io.vertx.core.Future;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.Service;

/**
 * {@code coven.PackService}: packs register a manifest and then receive calls of their tools on the
 * stream; they return each result with {@code ToolResult}. Only principals of type {@code pack} may
 * use it.
 */
public final class PackServiceEndpoint {

  static final String REGISTER = "coven.PackService/Register";

  private final TokenService tokens;
  private final PackRegistrations registrations;
  private final ResultRouter results;

  public PackServiceEndpoint(TokenService tokens, PackRegistrations registrations, ResultRouter results) {
    this.tokens = tokens;
    this.registrations = registrations;
    this.results = results;
  }

  public Service service() {
    return GrpcEndpoint.service(PackServiceGrpcService.SERVICE_NAME, PackServiceGrpcService.SERVICE_DESCRIPTOR, tokens)
      .streaming(PackServiceGrpcService.Register, this::register)
      .unary(PackServiceGrpcService.ToolResult, (caller, response) -> {
        requirePack(caller);
        return results.deliver(caller, response).map(v -> Empty.getDefaultInstance());
      })
      .build();
  }

  private void register(Caller caller, GrpcServerRequest<PackManifest, ExecuteToolRequest> request) {
    try {
      requirePack(caller);
    } catch (RuntimeException e) {
      GrpcFailures.fail(request.response(), REGISTER, e);
      return;
    }
    request.last()
      .compose(manifest -> registrations.open(caller, manifest, request))
      .onFailure(err -> GrpcFailures.fail(request.response(), REGISTER, err));
  }

  private static void requirePack(Caller caller) {
    if (caller.type() != PrincipalType.PACK) {
      throw PackErrors.packPrincipalRequired(caller.type().wire());
    }
  }

}
