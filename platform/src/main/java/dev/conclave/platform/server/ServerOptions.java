package dev.conclave.platform.server;

import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.config.NodeSettings;
import io.vertx.core.http.Http2Settings;
import io.vertx.core.http.HttpServerOptions;

/**
 * HTTP server settings for the two ports, chosen explicitly rather than inherited.
 *
 * <p>gRPC port: cleartext HTTP/2 (h2c with prior knowledge, as gRPC clients use), a 1 MiB stream
 * window and an 8 MiB connection window so that many concurrent agent streams on one connection do
 * not starve each other, and TCP keepalive so that dead peers are noticed by the kernel as well as
 * by the gateway's own heartbeat timeout.
 *
 * <p>Streams per gRPC connection: one more than {@code CONCLAVE_MAX_CALLS_PER_PRINCIPAL} (10,001 by
 * default; it was a fixed 1,000), and never fewer than 1,000: one connection may carry several
 * principals' calls (a proxy, a process holding several tokens), which a small per-principal limit
 * must not hold to a handful of streams between them. A client that multiplexes calls on one connection (a process hosting
 * many agents, a proxy) then meets the principal's limit, refused with RESOURCE_EXHAUSTED where it can
 * see it, before the connection's, at which a gRPC client waits for a stream without an error (issue
 * 45). The value costs nothing by itself: Netty's HTTP/2 codec only compares it with the count of open
 * streams ({@code DefaultHttp2Connection.DefaultEndpoint}), and Vert.x's server reads it for server
 * push alone; each stream costs the same memory whatever the limit, and what a connection may buffer
 * is bounded by its window.
 *
 * <p>HTTP port: HTTP/1.1, with the idle timeout and the header and body deadlines of
 * {@link HttpDeadlines}.
 */
public final class ServerOptions {

  static final int STREAM_WINDOW_BYTES = 1024 * 1024;
  static final int CONNECTION_WINDOW_BYTES = 8 * 1024 * 1024;

  private ServerOptions() {
  }

  public static HttpServerOptions grpc(ConclaveConfig config) {
    return new HttpServerOptions()
      .setHost(config.bindHost())
      .setPort(config.grpcPort())
      // until a call authenticates (ConnectionGuard then removes it)
      .setIdleTimeout((int) config.get(NodeSettings.UNAUTHENTICATED_TIMEOUT).toSeconds())
      .setHttp2ClearTextEnabled(true)
      .setTcpKeepAlive(true)
      .setTcpNoDelay(true)
      .setHttp2ConnectionWindowSize(CONNECTION_WINDOW_BYTES)
      .setInitialSettings(new Http2Settings()
        .setInitialWindowSize(STREAM_WINDOW_BYTES)
        .setMaxConcurrentStreams(maxStreamsPerConnection(config))
        .setMaxHeaderListSize(64 * 1024));
  }

  /** One more than a principal's calls, so that a principal's limit is met first, and at least 1,000 (see above). */
  static long maxStreamsPerConnection(ConclaveConfig config) {
    return Math.max(config.get(NodeSettings.MAX_CALLS_PER_PRINCIPAL) + 1L, MIN_STREAMS_PER_CONNECTION);
  }

  /** The floor of a connection's streams: what every connection allowed before the limit followed the principal's. */
  static final long MIN_STREAMS_PER_CONNECTION = 1_000;

  public static HttpServerOptions http(ConclaveConfig config) {
    return new HttpServerOptions()
      .setHost(config.bindHost())
      .setPort(config.httpPort())
      .setIdleTimeout((int) config.get(NodeSettings.HTTP_IDLE_TIMEOUT).toSeconds())
      // HTTP/1.1 only: every connection is then HTTP from its first byte, where HttpDeadlines reads it
      // (h2c's detection of the preface would come first, outside any deadline)
      .setHttp2ClearTextEnabled(false)
      .setTcpKeepAlive(true)
      .setCompressionSupported(true)
      .setMaxWebSocketFrameSize(1024 * 1024)
      .setMaxWebSocketMessageSize(4 * 1024 * 1024);
  }
}
