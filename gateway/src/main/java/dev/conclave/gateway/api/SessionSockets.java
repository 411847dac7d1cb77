package dev.conclave.gateway.api;

import dev.conclave.gateway.clientsession.ClientSession;
import dev.conclave.gateway.streaming.Followers;
import dev.conclave.platform.access.AccessTarget;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.LiveAccess;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.admission.ConnectionGuard;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.LiveCredentials;
import dev.conclave.platform.server.HttpAuthHandler;
import dev.conclave.platform.server.HttpRoutes;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.ServerWebSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.BiFunction;

/**
 * {@code GET /api/v1/sessions}: the session protocol (seed 004) over WebSocket, one JSON message per
 * text frame. The upgrade is bearer-authenticated like every {@code /api/} route; each session's
 * caller is watched, so a revoked token closes its sockets at once (4001), a caller that loses
 * access to the session's agent or conversation closes it (4003), and a stopping node closes them
 * (1001) for the UI to resume elsewhere. docs/sessions.md.
 */
public final class SessionSockets {

  private static final Logger LOG = LoggerFactory.getLogger(SessionSockets.class);
  public static final String PATH = "/api/v1/sessions";

  private final BiFunction<Caller, ServerWebSocket, ClientSession> sessions;
  private final LiveCredentials live;
  private final LiveAccess access;
  private final Followers followers;
  private final ConnectionGuard guard;

  public SessionSockets(BiFunction<Caller, ServerWebSocket, ClientSession> sessions, LiveCredentials live, LiveAccess access,
                        Followers followers, ConnectionGuard guard) {
    this.sessions = sessions;
    this.live = live;
    this.access = access;
    this.followers = followers;
    this.guard = guard;
  }

  public void mount(HttpRoutes routes) {
    routes.raw(HttpMethod.GET, PATH, Audience.MEMBERS, Resource.AGENT, ctx -> {
      Caller caller = HttpAuthHandler.caller(ctx);
      if (!upgrade(ctx.request())) {
        // Vert.x would throw (a body already read) or never answer (no upgrade to make)
        dev.conclave.platform.server.Problems.send(ctx.response(), dev.conclave.gateway.GatewayErrors.webSocketRequired(PATH));
        return;
      }
      // the socket counts as one of the principal's connections for as long as it is open
      ConnectionGuard.Admission admission = guard.admitSocket(ctx.request(), caller);
      if (!admission.admitted()) {
        dev.conclave.platform.server.Problems.send(ctx.response(), admission.refusal().get());
        return;
      }
      ctx.request().toWebSocket().onSuccess(ws -> {
        ClientSession session = sessions.apply(caller, ws);
        Runnable closer = () -> session.close((short) 1001, "node stopping; reconnect and resume with your last event_id");
        Runnable unwatch = live.watch(caller, reason -> session.close((short) 4001, "credentials revoked: " + reason));
        // the session retargets it to its agent and conversation as it is configured
        LiveAccess.Watch accessWatch = access.watch(caller, AccessTarget.of(Audience.MEMBERS, "the session"), access.mark(),
          lost -> session.close(ClientSession.CLOSE_ACCESS_REVOKED, "access revoked: " + lost.detail()));
        followers.add(closer);
        session.start(accessWatch, () -> {
          followers.remove(closer);
          unwatch.run();
          accessWatch.close();
          admission.release().run();
        });
      }).onFailure(err -> {
        admission.release().run();
        LOG.debug("session upgrade refused error={}", err.getMessage());
        if (!ctx.response().ended()) {
          dev.conclave.platform.server.Problems.send(ctx.response(), dev.conclave.gateway.GatewayErrors.webSocketRequired(PATH));
        }
      });
    });
  }

  /** A WebSocket upgrade request, as RFC 6455 section 4.1 has it: HTTP/1.1, {@code upgrade: websocket}, {@code connection: upgrade}. */
  private static boolean upgrade(io.vertx.core.http.HttpServerRequest request) {
    String connection = request.getHeader("connection");
    return request.version() == io.vertx.core.http.HttpVersion.HTTP_1_1
      && "websocket".equalsIgnoreCase(request.getHeader("upgrade"))
      && connection != null && connection.toLowerCase(java.util.Locale.ROOT).contains("upgrade");
  }
}
