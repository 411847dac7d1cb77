package dev.conclave.platform.server;

import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.PrincipalStore;
import dev.conclave.platform.auth.TokenService;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.Failures;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

import java.time.Clock;

/**
 * {@code /auth/session}: the console's login. {@code POST} exchanges a token (in the body, never the
 * URL) for the session cookie, {@code GET} says who the cookie is, {@code DELETE} forgets it. It sits
 * outside {@code /api/} because it takes its credentials in the body; failures are audited as
 * authentication failures like any other. A page of another origin can do none of it
 * ({@link CrossSite}), and a login is JSON only.
 */
public final class SessionEndpoint {

  public static final String PATH = "/auth/session";
  private static final long MAX_BODY = 16 * 1024;

  private final TokenService tokens;
  private final PrincipalStore principals;
  private final EdgeSecurity edge;
  private final Clock clock;

  public SessionEndpoint(TokenService tokens, PrincipalStore principals, EdgeSecurity edge, Clock clock) {
    this.tokens = tokens;
    this.principals = principals;
    this.edge = edge;
    this.clock = clock;
  }

  public void mount(Router router) {
    router.route(PATH).handler(this::browserRules);
    router.post(PATH).handler(BodyHandler.create(false).setBodyLimit(MAX_BODY));
    router.post(PATH).handler(ctx -> answer(ctx, true, () -> tokenInBody(ctx)));
    router.get(PATH).handler(ctx -> answer(ctx, false,
      () -> SessionCookie.token(ctx.request().headers()).orElseThrow(AuthErrors::missingSession)));
    router.delete(PATH).handler(ctx -> ctx.response().setStatusCode(204)
      .putHeader("set-cookie", SessionCookie.clear(ctx.request().isSSL())).end());
  }

  /**
   * Login CSRF: a page of another site could log the user in as the attacker (a {@code text/plain}
   * form needs no preflight), or out. So every call here comes from the node's own page or from a
   * program (no Origin), and a login is JSON, which another origin cannot send without a CORS
   * preflight (never granted).
   */
  private void browserRules(RoutingContext ctx) {
    ConclaveException refused = null;
    if (CrossSite.origin(ctx.request()) == CrossSite.Origin.FOREIGN) {
      refused = dev.conclave.platform.auth.AuthErrors.originNotAllowed(ctx.request().getHeader("origin"));
    } else if (ctx.request().method() == io.vertx.core.http.HttpMethod.POST && !json(ctx.request().getHeader("content-type"))) {
      refused = new ConclaveException(dev.conclave.platform.errors.ErrorKind.UNSUPPORTED_MEDIA, "media_type_unsupported",
        "a login is JSON: send 'content-type: application/json' and {\"token\": \"…\"}");
    }
    if (refused == null) {
      ctx.next();
      return;
    }
    edge.authenticationFailed(ctx.request().method() + " " + PATH, refused,
      ctx.request().remoteAddress() == null ? "" : ctx.request().remoteAddress().toString());
    Problems.send(ctx.response(), refused);
  }

  /** {@code application/json}, with parameters (a charset) or without. */
  private static boolean json(String contentType) {
    return contentType != null
      && contentType.split(";", 2)[0].trim().equalsIgnoreCase("application/json");
  }

  private static String tokenInBody(RoutingContext ctx) {
    JsonObject body = JsonBodies.object(ctx);
    Object token = body == null ? null : body.getValue("token");
    if (!(token instanceof String s) || s.isBlank()) {
      throw ConclaveException.invalid("token_required", "the body must carry the token: {\"token\": \"…\"}");
    }
    return s.trim();
  }

  /** Verifies the presented token, then answers with the session (and, for a login, sets the cookie). */
  private void answer(RoutingContext ctx, boolean login, java.util.function.Supplier<String> presented) {
    String token;
    try {
      token = presented.get();
    } catch (ConclaveException e) {
      refuse(ctx, e);
      return;
    }
    SessionCookie.verify(tokens, token).onComplete(verified -> {
      if (verified.failed()) {
        refuse(ctx, Failures.classify(verified.cause()));
        return;
      }
      session(ctx, login, token, verified.result());
    });
  }

  private void refuse(RoutingContext ctx, ConclaveException e) {
    if (e.kind() == dev.conclave.platform.errors.ErrorKind.UNAUTHENTICATED) {
      edge.authenticationFailed(ctx.request().method() + " " + PATH, e,
        ctx.request().remoteAddress() == null ? "" : ctx.request().remoteAddress().toString());
    }
    Problems.send(ctx.response(), e);
  }

  private void session(RoutingContext ctx, boolean login, String token, Caller caller) {
    principals.find(caller.principalId()).onComplete(ar -> {
      if (ar.failed()) {
        Problems.send(ctx.response(), Failures.classify(ar.cause()));
        return;
      }
      if (ar.result().isEmpty()) {
        Problems.send(ctx.response(), AuthErrors.unknownPrincipal(caller.principalId().toString()));
        return;
      }
      var p = ar.result().get();
      JsonObject session = new JsonObject()
        .put("principalId", p.id().toString())
        .put("displayName", p.displayName())
        .put("type", p.type().wire())
        .put("roles", new JsonArray(caller.roles().stream().sorted().toList()))
        .put("admin", caller.isAdmin())
        .put("purpose", caller.purpose().wire())
        .put("expiresAt", caller.expiresAt().toString());
      if (login) {
        ctx.response().putHeader("set-cookie", SessionCookie.set(token, caller.expiresAt(),
          clock.instant(), ctx.request().isSSL()));
        edge.lifecycle(caller, "session.login", p.id().toString(), "console login (" + caller.purpose().wire() + " token)",
          ctx.request().remoteAddress() == null ? "" : ctx.request().remoteAddress().toString());
      }
      ctx.response().putHeader("content-type", "application/json").putHeader("cache-control", "no-store").end(session.encode());
    });
  }
}
