package dev.conclave.platform.auth;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.PubSecKeyOptions;
import io.vertx.ext.auth.User;
import io.vertx.ext.auth.authentication.TokenCredentials;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * HS256 signing and verification with {@link SigningKeys}: new tokens are signed with the current
 * key and name it in the header ({@code kid}); a token is verified with the key it names, so a token
 * of a retired key fails. Replaced whole when the keys change.
 */
final class Keyring {

  private final String currentKid;
  private final Map<String, JWTAuth> byKid = new HashMap<>();

  Keyring(Vertx vertx, SigningKeys keys, String issuer, String audience) {
    this.currentKid = keys.current().kid();
    // expiry is checked by the token service against its own clock
    JWTOptions verify = new JWTOptions().setIssuer(issuer).setAudience(List.of(audience)).setIgnoreExpiration(true).setLeeway(0);
    for (SigningKeys.Key key : keys.all()) {
      byKid.put(key.kid(), JWTAuth.create(vertx, new JWTAuthOptions()
        .addPubSecKey(new PubSecKeyOptions().setAlgorithm("HS256").setBuffer(key.secret()))
        .setJWTOptions(verify)));
    }
  }

  String sign(JsonObject claims, String issuer, String audience) {
    JWTOptions options = new JWTOptions().setAlgorithm("HS256").setIssuer(issuer).setAudience(List.of(audience)).setNoTimestamp(true)
      .setHeader(new JsonObject().put("kid", currentKid));
    return byKid.get(currentKid).generateToken(claims, options);
  }

  /**
   * The verified token's user, or empty when the token names no key of this ring or fails verification.
   * A token this ring verified before is not decoded and checked again: the answer for the same
   * string under the same keys cannot change (expiry, revocation and purpose are the caller's checks,
   * made on every call); a rotation makes a new ring, with nothing remembered.
   */
  Optional<User> verify(String token) {
    User known = verified.get(token);
    if (known != null) {
      return Optional.of(known);
    }
    JWTAuth auth = byKid.get(kidOf(token));
    if (auth == null) {
      return Optional.empty();
    }
    // HS256 verification in vertx-auth-jwt completes within the call; a pending future would mean
    // the library changed, and is treated as a rejection rather than waited on
    Future<User> result = auth.authenticate(new TokenCredentials(token));
    if (!result.succeeded()) {
      return Optional.empty();
    }
    if (verified.size() >= MAX_VERIFIED) {
      verified.clear(); // bounded: a flood of distinct valid tokens starts it over
    }
    verified.put(token, result.result());
    return Optional.of(result.result());
  }

  /** Verified tokens remembered, at most (each a few hundred bytes). */
  static final int MAX_VERIFIED = 10_000;
  private final java.util.Map<String, User> verified = new java.util.concurrent.ConcurrentHashMap<>();

  String currentKid() {
    return currentKid;
  }

  /** The {@code kid} a token's header names; tokens from before key ids were signed by the legacy key. */
  static String kidOf(String token) {
    int dot = token.indexOf('.');
    if (dot <= 0) {
      return "";
    }
    try {
      JsonObject header = new JsonObject(new String(Base64.getUrlDecoder().decode(token.substring(0, dot)), StandardCharsets.UTF_8));
      return header.getString("kid", SigningKeys.LEGACY_KID);
    } catch (RuntimeException e) {
      return "";
    }
  }
}
