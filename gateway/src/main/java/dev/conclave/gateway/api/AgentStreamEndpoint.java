package dev.conclave.gateway.api;

import dev.conclave.gateway.sessions.AgentSession;
import dev.conclave.gateway.sessions.AgentSessions;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.server.EdgeSecurity;
import dev.conclave.platform.server.GrpcEndpoint;
import dev.conclave.proto.coven.CovenControlGrpcService;
import io.vertx.core.Vertx;
import io.vertx.grpc.server.Service;

/** {@code coven.CovenControl/AgentStream}: every call becomes an {@link AgentSession}. */
public final class AgentStreamEndpoint {

  private AgentStreamEndpoint() {
  }

  public static Service service(EdgeSecurity edge, AgentSessions sessions) {
    return GrpcEndpoint.service(CovenControlGrpcService.SERVICE_NAME, CovenControlGrpcService.SERVICE_DESCRIPTOR, edge)
      // any principal may open the stream: registration then checks it is an agent (Audience.AGENTS)
      // and answers a refusal with a RegistrationError, as the Coven protocol says
      .streaming(CovenControlGrpcService.AgentStream, Audience.ANY_PRINCIPAL, Resource.SELF, (caller, request) ->
        sessions.open(caller, request, Vertx.currentContext()).start())
      .build();
  }
}
