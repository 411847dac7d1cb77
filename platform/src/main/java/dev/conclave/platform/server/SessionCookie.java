package dev.conclave.platform.server;

import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.TokenPurpose;
import dev.conclave.platform.auth.TokenService;
import io.netty.handler.codec.http.cookie.Cookie;
import io.netty.handler.codec.http.cookie.ServerCookieDecoder;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.ext.web.RoutingContext;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The console's session: a Conclave token kept in an HttpOnly, SameSite=Strict cookie, so page
 * scripts never hold it and no URL ever carries it. What it may authenticate (the node's own pages
 * only; changes with {@link #CSRF_HEADER}, which another origin cannot add without a CORS preflight,
 * never granted) is decided by {@link CrossSite}. Model: docs/dashboard.md.
 */
public final class SessionCookie {

  public static final String NAME = "conclave_session";
  public static final String CSRF_HEADER = "X-Conclave-Csrf";

  private SessionCookie() {
  }

  /** The token in the request's session cookie, if it has one. */
  public static Optional<String> token(MultiMap headers) {
    String header = headers.get("cookie");
    if (header == null) {
      return Optional.empty();
    }
    for (Cookie c : ServerCookieDecoder.LAX.decode(header)) {
      if (NAME.equals(c.name()) && !c.value().isEmpty()) {
        return Optional.of(c.value());
      }
    }
    return Optional.empty();
  }

  /** Verifies a session cookie's token ({@link TokenPurpose#browser()}); fails with the precise authentication failure. */
  public static Future<Caller> verify(TokenService tokens, String token) {
    return tokens.authenticate(token, TokenPurpose.browser());
  }

  /**
   * Puts the session cookie's token on the routing context under {@code key}, for a handler after it
   * whose transport hides cookies (SockJS strips them from what its sockets see). A page of another
   * origin must not ride on the user's cookie (cross-site WebSocket hijacking), so the cookie counts
   * only on a request with the node's own Origin, as on every socket ({@link CrossSite}); otherwise it
   * is left out.
   */
  public static void handOn(RoutingContext ctx, String key) {
    if (CrossSite.cookieRefused(ctx.request(), true).isEmpty()) {
      token(ctx.request().headers()).ifPresent(t -> ctx.put(key, t));
    }
    ctx.next();
  }

  /** The {@code Set-Cookie} value that opens a session until the token expires. */
  public static String set(String token, Instant expiresAt, Instant now, boolean secure) {
    long maxAge = Math.max(0, Duration.between(now, expiresAt).getSeconds());
    return NAME + "=" + token + "; Max-Age=" + maxAge + "; Path=/; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "");
  }

  /** The {@code Set-Cookie} value that ends the session. */
  public static String clear(boolean secure) {
    return NAME + "=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "");
  }
}
