package dev.conclave.platform.server;

import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.TokenPurpose;
import dev.conclave.platform.auth.TokenService;
import io.netty.handler.codec.http.cookie.Cookie;
import io.netty.handler.codec.http.cookie.ServerCookieDecoder;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
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
  /** What a session may be opened with: full API tokens, or read-only dashboard tokens. */
  public static final EnumSet<TokenPurpose> PURPOSES = EnumSet.of(TokenPurpose.API, TokenPurpose.BRIDGE);

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

  /** Verifies a session cookie's token; fails with the precise authentication failure. */
  public static Future<Caller> verify(TokenService tokens, String token) {
    return tokens.authenticate(token, PURPOSES);
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
