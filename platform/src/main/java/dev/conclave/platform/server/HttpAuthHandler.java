package dev.conclave.platform.server;

import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.TokenService;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.Failures;
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
    try {
      if (header == null) {
        java.util.Optional<String> session = SessionCookie.token(ctx.request().headers());
        if (session.isPresent()) {
          ctx.put(CALLER_KEY, viaSession(ctx, session.get()));
          ctx.next();
          return;
        }
      }
      ctx.put(CALLER_KEY, tokens.verifyHeader(header));
      ctx.next();
    } catch (ConclaveException e) {
      refused(ctx, e);
    }
  }

  /** The console's cookie, under the browser rules ({@link CrossSite}): the node's own pages only, read-only for bridge tokens. */
  private Caller viaSession(RoutingContext ctx, String token) {
    Caller caller = SessionCookie.verify(tokens, token);
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
