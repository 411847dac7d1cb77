package dev.conclave.platform.server;

import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.TokenService;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.Failures;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;

import java.util.List;

/**
 * The one HTTP authentication handler. It accepts {@code authorization: Bearer <token>} (an API
 * token), and, for requests without an authorization header, the {@link HttpCredentials} roles
 * contribute, then the console's {@link SessionCookie} under the browser rules of {@link CrossSite}
 * (every WebSocket upgrade under {@code /api/} included). Tokens are never taken from a URL.
 * The verified {@link Caller} is left on the routing context for handlers to read.
 */
public final class HttpAuthHandler implements Handler<RoutingContext> {

  private static final String CALLER_KEY = "conclave.caller";

  private final TokenService tokens;
  private final List<HttpCredentials> alternatives;
  private final EdgeSecurity edge;

  public HttpAuthHandler(TokenService tokens, List<HttpCredentials> alternatives, EdgeSecurity edge) {
    this.tokens = tokens;
    this.alternatives = List.copyOf(alternatives);
    this.edge = edge;
  }

  @Override
  public void handle(RoutingContext ctx) {
    String header = ctx.request().getHeader("authorization");
    if (header == null) {
      for (HttpCredentials credentials : alternatives) {
        if (credentials.present(ctx.request())) {
          credentials.verify(ctx).onComplete(ar -> {
            if (ar.succeeded()) {
              ctx.put(CALLER_KEY, ar.result());
              ctx.next();
            } else {
              ConclaveException e = Failures.classify(ar.cause());
              refused(ctx, e);
            }
          });
          return;
        }
      }
    }
    java.util.Optional<String> session = header == null ? SessionCookie.token(ctx.request().headers()) : java.util.Optional.empty();
    Future<Caller> verified = session.isPresent()
      ? SessionCookie.verify(tokens, session.get()).map(caller -> viaSession(ctx, caller))
      : tokens.authenticateHeader(header);
    if (verified.isComplete()) {
      proceed(ctx, verified);
      return;
    }
    // the token's first call on this node reads its record: hold the request (a WebSocket upgrade
    // must not see its end go by meanwhile); one whose body was read already has nothing to hold
    boolean hold = !ctx.request().isEnded();
    if (hold) {
      ctx.request().pause();
    }
    verified.onComplete(ar -> {
      proceed(ctx, verified);
      if (hold) {
        ctx.request().resume();
      }
    });
  }

  private void proceed(RoutingContext ctx, Future<Caller> verified) {
    if (verified.succeeded()) {
      ctx.put(CALLER_KEY, verified.result());
      ctx.next();
    } else {
      refused(ctx, Failures.classify(verified.cause()));
    }
  }

  /** The console's cookie, under the browser rules ({@link CrossSite}): the node's own pages only, read-only for bridge tokens. */
  private static Caller viaSession(RoutingContext ctx, Caller caller) {
    CrossSite.admitSession(ctx.request(), caller);
    return caller;
  }

  private void refused(RoutingContext ctx, ConclaveException e) {
    edge.authenticationFailed(ctx.request().method() + " " + ctx.request().path(), e,
      ctx.request().remoteAddress() == null ? "" : ctx.request().remoteAddress().toString());
    Problems.send(ctx.response(), e);
  }

  /** The caller the handler verified; fails if the route was not behind this handler. */
  public static Caller caller(RoutingContext ctx) {
    Caller caller = ctx.get(CALLER_KEY);
    if (caller == null) {
      throw AuthErrors.missingToken();
    }
    return caller;
  }
}
