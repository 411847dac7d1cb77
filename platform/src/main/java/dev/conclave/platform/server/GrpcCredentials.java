package dev.conclave.platform.server;

import dev.conclave.platform.auth.Caller;
import io.vertx.core.Future;
import io.vertx.core.http.HttpServerRequest;

/**
 * Credentials other than a bearer token accepted on the gRPC port, for example coven-gateway's
 * SSH-key signatures ({@code x-ssh-*} headers). The gate tries them only for calls without an
 * {@code authorization} header; verification may be asynchronous (the call waits, paused).
 */
public interface GrpcCredentials {

  /** True when the call carries credentials of this kind (typically a header is present). */
  boolean present(HttpServerRequest request);

  /** Verifies them; fails with an UNAUTHENTICATED (or PERMISSION_DENIED) {@code ConclaveException}. */
  Future<Caller> verify(HttpServerRequest request);
}
