package dev.conclave.gateway.api;

import dev.conclave.gateway.sessions.AgentSession;
import dev.conclave.gateway.sessions.SessionServices;
import dev.conclave.platform.server.GrpcEndpoint;
import dev.conclave.proto.coven.CovenControlGrpcService;
import io.vertx.core.Vertx;
import io.vertx.grpc.server.Service;

/** {@code coven.CovenControl/AgentStream}: every call becomes an {@link AgentSession}. */
public final class AgentStreamEndpoint {

  private AgentStreamEndpoint() {
  }

  public static Service service(SessionServices services) {
    return GrpcEndpoint.service(CovenControlGrpcService.SERVICE_NAME, CovenControlGrpcService.SERVICE_DESCRIPTOR, services.tokens())
      .streaming(CovenControlGrpcService.AgentStream, (caller, request) ->
        new AgentSession(services, caller, request, Vertx.currentContext()).start())
      .build();
  }
}
