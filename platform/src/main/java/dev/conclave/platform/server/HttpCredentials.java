package dev.conclave.platform.server;

import dev.conclave.platform.auth.Caller;
import io.vertx.core.Future;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;

/**
 * Credentials other than a bearer token that a role accepts on its HTTP routes, for example the
 * coordinator's HMAC-signed requests. The one auth handler tries them only for requests without an
 * {@code authorization} header; the body has been read when {@link #verify} runs.
 */
public interface HttpCredentials {

  /** True when the request carries credentials of this kind (typically a header is present). */
  boolean present(HttpServerRequest request);

  /** Verifies them; fails with an UNAUTHENTICATED {@code ConclaveException} saying what was wrong. */
  Future<Caller> verify(RoutingContext ctx);
}
