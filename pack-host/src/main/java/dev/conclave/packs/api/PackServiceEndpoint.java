package dev.conclave.packs.api;

import com.google.protobuf.Empty;
import dev.conclave.packs.connections.PackRegistrations;
import dev.conclave.packs.connections.ResultRouter;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.server.EdgeSecurity;
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

  private final EdgeSecurity edge;
  private final PackRegistrations registrations;
  private final ResultRouter results;

  public PackServiceEndpoint(EdgeSecurity edge, PackRegistrations registrations, ResultRouter results) {
    this.edge = edge;
    this.registrations = registrations;
    this.results = results;
  }

  public Service service() {
    return GrpcEndpoint.service(PackServiceGrpcService.SERVICE_NAME, PackServiceGrpcService.SERVICE_DESCRIPTOR, edge)
      .serverStreaming(PackServiceGrpcService.Register, Audience.PACKS, Resource.SELF, this::register)
      .unary(PackServiceGrpcService.ToolResult, Audience.PACKS, Resource.SELF, (caller, response) ->
        results.deliver(caller, response).map(v -> Empty.getDefaultInstance()))
      .build();
  }

  private void register(Caller caller, PackManifest manifest, GrpcServerRequest<PackManifest, ExecuteToolRequest> request) {
    registrations.open(caller, manifest, request)
      .onFailure(err -> GrpcFailures.fail(request.response(), REGISTER, err));
  }


}
