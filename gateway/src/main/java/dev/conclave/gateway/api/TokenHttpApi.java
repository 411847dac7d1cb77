package dev.conclave.gateway.api;

import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.TokenService;
import dev.conclave.platform.auth.TokenStore;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.server.HttpRoutes;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.format.DateTimeFormatter;
import java.util.UUID;

/**
 * Tokens over HTTP under {@code /api/v1/gateway}: a principal's tokens (id, purpose, issued, expires,
 * revoked, last used; never the token itself) and revoking one token, for admins and for the
 * principal itself. A revoked token stops working on every node at once, open streams included.
 */
public final class TokenHttpApi {

  private static final String BASE = GatewayHttpApi.BASE;

  private final TokenService tokens;

  public TokenHttpApi(TokenService tokens) {
    this.tokens = tokens;
  }

  public void mount(HttpRoutes routes) {
    routes.get(BASE + "/principals/:id/tokens", Audience.ANY_PRINCIPAL, Resource.SELF, (caller, ctx) -> {
      UUID id = GatewayHttpApi.uuid(ctx.pathParam("id"), "principal id");
      requireSelfOrAdmin(caller, id);
      return tokens.listOf(id).map(list -> {
        JsonArray out = new JsonArray();
        list.forEach(t -> out.add(json(t)));
        return new JsonObject().put("principalId", id.toString()).put("tokens", out);
      });
    });
    routes.delete(BASE + "/tokens/:tokenId", Audience.ANY_PRINCIPAL, Resource.SELF, (caller, ctx) -> {
      UUID id = GatewayHttpApi.uuid(ctx.pathParam("tokenId"), "token id");
      return tokens.find(id).compose(found -> {
        if (found.isEmpty() || !(caller.isAdmin() || found.get().principalId().equals(caller.principalId()))) {
          return Future.failedFuture(ConclaveException.notFound("token_not_found", "no token " + id));
        }
        return tokens.revoke(id, "revoked by " + caller.principalId())
          .map(changed -> new JsonObject().put("tokenId", id.toString()).put("revoked", true).put("changed", changed));
      });
    });
  }

  private static void requireSelfOrAdmin(Caller caller, UUID principal) {
    if (!caller.isAdmin() && !caller.principalId().equals(principal)) {
      throw ConclaveException.denied("only the principal itself or an admin may list its tokens");
    }
  }

  private static JsonObject json(TokenStore.TokenInfo t) {
    DateTimeFormatter iso = DateTimeFormatter.ISO_INSTANT;
    JsonObject json = new JsonObject().put("tokenId", t.tokenId().toString()).put("purpose", t.purpose())
      .put("issuedAt", iso.format(t.issuedAt())).put("expiresAt", iso.format(t.expiresAt()));
    t.revokedAt().ifPresent(r -> json.put("revokedAt", iso.format(r)));
    t.lastUsedAt().ifPresent(u -> json.put("lastUsedAt", iso.format(u)));
    return json;
  }
}
