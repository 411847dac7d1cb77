package dev.conclave.platform.server;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Exception;
import io.vertx.core.http.HttpConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the failure of one HTTP/2 stream on that stream, instead of letting Vert.x close the whole
 * connection, and every other call multiplexed on it, over it.
 *
 * <p>Vert.x (5.0.7, and 5.0.8 to 5.0.12 alike) writes a response's trailers with Netty's void
 * promise. When the trailers wait in Netty's flow controller behind the response's last DATA frame
 * (always, when the response ends while the connection is being read: Vert.x flushes only at the
 * end of the read) and the peer's RST_STREAM for that stream comes in the same read, Netty closes
 * the stream, fails the queued write with a stream error ({@code STREAM_CLOSED}, "Stream closed
 * before write could take place") and, the promise being void, fires that error down the pipeline.
 * Vert.x's HTTP/2 handler closes the connection on any exception it is given. That is exactly what a
 * Node.js {@code @grpc/grpc-js} client's {@code call.cancel()} does on a bidirectional call: Node
 * half-closes the stream (END_STREAM), the server ends its response on reading it, and the
 * RST_STREAM right behind often arrives in the same read; about one cancel in two took down every
 * agent sharing the connection (SharedChannelCancelIT in the e2e module).
 *
 * <p>Netty's codec has already handled the stream error by then (it calls its lifecycle manager's
 * {@code onError} before failing the write's promise: the stream is reset and Vert.x told of it), so
 * this handler, placed in front of Vert.x's HTTP/2 handler, takes a stream error out of the pipeline
 * and passes everything else on. A connection error still closes the connection.
 */
@ChannelHandler.Sharable
public final class Http2StreamErrors extends ChannelInboundHandlerAdapter {

  /** Its name in a connection's pipeline. */
  public static final String NAME = "conclave-http2-stream-errors";

  private static final Logger LOG = LoggerFactory.getLogger(Http2StreamErrors.class);
  private static final Http2StreamErrors INSTANCE = new Http2StreamErrors();

  private Http2StreamErrors() {
  }

  /**
   * Puts the handler in front of the connection's HTTP/2 handler; nothing for a connection without
   * one (HTTP/1) or that has it already. Call it on the connection's event loop, as Vert.x calls a
   * server's connection handler.
   */
  public static void install(HttpConnection connection) {
    if (!(connection instanceof io.vertx.core.net.impl.ConnectionBase base)) {
      return;
    }
    ChannelPipeline pipeline = base.channel().pipeline();
    ChannelHandlerContext http2 = pipeline.context(Http2ConnectionHandler.class);
    if (http2 != null && pipeline.get(NAME) == null) {
      pipeline.addBefore(http2.name(), NAME, INSTANCE);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (Http2CodecUtil.getEmbeddedHttp2Exception(cause) instanceof Http2Exception.StreamException stream) {
      LOG.debug("HTTP/2 stream {} failed, the connection stays: {}", stream.streamId(), stream.getMessage());
      return;
    }
    ctx.fireExceptionCaught(cause);
  }
}
