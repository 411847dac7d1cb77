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

  /** The verified token's user, or empty when the token names no key of this ring or fails verification. */
  Optional<User> verify(String token) {
    JWTAuth auth = byKid.get(kidOf(token));
    if (auth == null) {
      return Optional.empty();
    }
    // HS256 verification in vertx-auth-jwt completes within the call; a pending future would mean
    // the library changed, and is treated as a rejection rather than waited on
    Future<User> result = auth.authenticate(new TokenCredentials(token));
    return result.succeeded() ? Optional.of(result.result()) : Optional.empty();
  }

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
