package dev.conclave.platform.server;

import com.google.protobuf.Empty;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.config.RoleName;
import dev.conclave.platform.db.SchemaMigration;
import dev.conclave.platform.runtime.NodeContext;
import dev.conclave.platform.runtime.RoleModule;
import dev.conclave.platform.runtime.RunningRole;
import dev.conclave.proto.coven.ClientServiceGrpcService;
import dev.conclave.proto.coven.MeResponse;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.grpc.server.GrpcServer;

import java.util.List;

/**
 * A test role that exposes one authenticated gRPC method and one authenticated HTTP route, both
 * answering with the caller's identity, so the kernel's auth can be tested without a real service.
 */
public final class EchoRole implements RoleModule {

  @Override
  public RoleName role() {
    return RoleName.GATEWAY;
  }

  @Override
  public List<SchemaMigration> migrations() {
    return List.of();
  }

  @Override
  public Future<RunningRole> start(NodeContext context) {
    EdgeContribution contribution = new EdgeContribution() {
      @Override
      public void bindGrpc(GrpcServer server) {
        server.addService(GrpcEndpoint.service(ClientServiceGrpcService.SERVICE_NAME, ClientServiceGrpcService.SERVICE_DESCRIPTOR, context.edge())
          .unary(ClientServiceGrpcService.GetMe, Audience.ANY_PRINCIPAL, Resource.SELF, (caller, request) -> Future.succeededFuture(MeResponse.newBuilder()
            .setPrincipalId(caller.principalId().toString())
            .setPrincipalType(caller.type().wire())
            .addAllRoles(caller.roles())
            .build()))
          .build());
      }

      @Override
      public void bindHttp(Router router) {
        new HttpRoutes(router, context.edge()).get("/api/v1/whoami", Audience.ANY_PRINCIPAL, Resource.SELF, (caller, ctx) ->
          Future.succeededFuture(new JsonObject().put("principalId", caller.principalId().toString())));
      }
    };
    return Future.succeededFuture(new RunningRole() {
      @Override
      public List<EdgeContribution> contributions() {
        return List.of(contribution);
      }

      @Override
      public Future<Void> stop() {
        return Future.succeededFuture();
      }
    });
  }
}
