package dev.conclave.platform.server;

import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;
import dev.conclave.platform.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Deadlines for the requests on the HTTP port, which the idle timeout alone cannot give: it restarts
 * on every byte, so a request trickling in a byte every few seconds held its connection for ever.
 *
 * <ul>
 *   <li><b>Headers</b> ({@code CONCLAVE_HTTP_HEADER_SECONDS}): the request line and headers must all
 *       have arrived within the deadline of the connection opening (its first request) or of the
 *       first byte of the request (a later one); between requests a kept-alive connection is left
 *       to the idle timeout. Read below the HTTP decoder, byte by byte, because Vert.x sees a request
 *       only once its headers are complete. A request cut off is answered 408 (a connection that
 *       sent nothing is not answered), and its connection closed.</li>
 *   <li><b>Bodies</b> ({@code CONCLAVE_HTTP_BODY_SECONDS}): a request body must have arrived whole
 *       within the deadline of its headers; otherwise it is answered 408 ({@code body_timeout}) if
 *       its answer has not begun, and its connection closed. A request without a body ends with its
 *       headers, so WebSocket and SockJS upgrades and long responses are not bounded by it.</li>
 * </ul>
 * A connection that becomes a WebSocket (101) leaves both. The port speaks HTTP/1.1 only (no h2c),
 * so that every connection is read this way from its first byte.
 */
public final class HttpDeadlines {

  /** The settings, read once by the node. */
  public record Limits(Duration headers, Duration body) {
  }

  private static final String RAW = "conclave-header-deadline";
  private static final String FRAMED = "conclave-request-deadline";

  private final Vertx vertx;
  private final Limits limits;
  private final Counter headerCut;
  private final Counter bodyCut;

  public HttpDeadlines(Vertx vertx, Limits limits, MeterRegistry registry) {
    this.vertx = vertx;
    this.limits = limits;
    this.headerCut = registry.counter(MetricNames.EDGE_CONNECTIONS_CLOSED, "reason", "header_timeout");
    this.bodyCut = registry.counter(MetricNames.EDGE_CONNECTIONS_CLOSED, "reason", "body_timeout");
  }

  /** A new connection on the HTTP port (its connection handler, on its event loop): its first request's header deadline starts now. */
  public void opened(HttpConnection connection) {
    if (!(connection instanceof io.vertx.core.net.impl.ConnectionBase base)) {
      return;
    }
    ChannelPipeline pipeline = base.channel().pipeline();
    if (pipeline.get(HttpRequestDecoder.class) == null || pipeline.get("handler") == null || pipeline.get(RAW) != null) {
      return;
    }
    Watch watch = new Watch();
    pipeline.addBefore(pipeline.context(HttpRequestDecoder.class).name(), RAW, watch.raw);
    pipeline.addBefore("handler", FRAMED, watch.framed);
    watch.headersFrom(pipeline.context(RAW));
  }

  /** A request Vert.x hands to the router: its body, if it has one, has the body deadline to arrive. */
  public void request(HttpServerRequest request) {
    if (request.isEnded()) {
      return;
    }
    long timer = vertx.setTimer(limits.body().toMillis(), t -> {
      if (!request.isEnded()) {
        bodyTimedOut(request);
      }
    });
    request.end().onComplete(ar -> vertx.cancelTimer(timer));
  }

  private void bodyTimedOut(HttpServerRequest request) {
    bodyCut.increment();
    HttpConnection connection = request.connection();
    HttpServerResponse response = request.response();
    if (response.headWritten() || response.ended() || response.closed()) {
      connection.close();
      return;
    }
    ConclaveException e = new ConclaveException(ErrorKind.INVALID_ARGUMENT, "body_timeout",
      "the request body did not arrive within " + limits.body().toSeconds() + " s of its headers (CONCLAVE_HTTP_BODY_SECONDS)");
    response.setStatusCode(HttpResponseStatus.REQUEST_TIMEOUT.code())
      .putHeader("content-type", Problems.CONTENT_TYPE)
      .putHeader("connection", "close")
      .end(Problems.body(e).put("status", 408).put("title", "Request timeout").encode())
      .onComplete(ar -> connection.close());
  }

  /** One connection's state; every method runs on its event loop. */
  private final class Watch {

    /** Reading a request's line and headers (a timer runs), its body, or neither (between requests). */
    private enum Phase { BETWEEN, HEADERS, BODY, DONE }

    private Phase phase = Phase.BETWEEN;
    private ScheduledFuture<?> headerTimer;
    /** Whether a byte of the request being waited for has arrived (a connection that sent none is closed without an answer). */
    private boolean started;
    /** Requests whose response has not been written whole yet. */
    private int answering;

    /** Below the decoder: the bytes of a request's line and headers, which the decoder does not pass on until they are whole. */
    final ChannelInboundHandlerAdapter raw = new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (phase != Phase.DONE && msg instanceof ByteBuf buf && buf.isReadable()) {
          if (ctx.pipeline().get(HttpRequestDecoder.class) == null) {
            done(); // no longer HTTP
          } else if (phase == Phase.BETWEEN) {
            headersFrom(ctx);
            started = true;
          } else if (phase == Phase.HEADERS) {
            started = true;
          }
        }
        ctx.fireChannelRead(msg);
      }

      @Override
      public void channelInactive(ChannelHandlerContext ctx) {
        done();
        ctx.fireChannelInactive();
      }
    };

    /** Above the decoder: where a request's headers end, where its body ends, and the responses going out. */
    final ChannelDuplexHandler framed = new ChannelDuplexHandler() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (phase != Phase.DONE) {
          if (msg instanceof HttpRequest) {
            cancelHeaders();
            answering++;
            phase = Phase.BODY;
          }
          if (msg instanceof LastHttpContent) {
            phase = Phase.BETWEEN;
          }
        }
        ctx.fireChannelRead(msg);
      }

      @Override
      public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (phase != Phase.DONE) {
          if (msg instanceof HttpResponse response && response.status().code() == HttpResponseStatus.SWITCHING_PROTOCOLS.code()) {
            done(); // a WebSocket from now on
          } else if (msg instanceof LastHttpContent && answering > 0) {
            answering--;
          }
        }
        ctx.write(msg, promise);
      }
    };

    void headersFrom(ChannelHandlerContext ctx) {
      phase = Phase.HEADERS;
      started = false;
      cancelHeaders();
      headerTimer = ctx.executor().schedule(() -> headersTimedOut(ctx), limits.headers().toMillis(), TimeUnit.MILLISECONDS);
    }

    private void headersTimedOut(ChannelHandlerContext ctx) {
      if (phase != Phase.HEADERS) {
        return;
      }
      if (answering > 0) {
        // an earlier request on the connection is still being answered: this one is not read until it is
        headerTimer = ctx.executor().schedule(() -> headersTimedOut(ctx), limits.headers().toMillis(), TimeUnit.MILLISECONDS);
        return;
      }
      phase = Phase.DONE;
      headerCut.increment();
      if (!started) {
        // a connection that never sent a byte of a request: nothing to answer
        ctx.close();
        return;
      }
      String body = Problems.body(new ConclaveException(ErrorKind.INVALID_ARGUMENT, "header_timeout",
        "the request's line and headers did not arrive within " + limits.headers().toSeconds() + " s (CONCLAVE_HTTP_HEADER_SECONDS)"))
        .put("status", 408).put("title", "Request timeout").encode();
      byte[] json = body.getBytes(StandardCharsets.UTF_8);
      byte[] head = ("HTTP/1.1 408 Request Timeout\r\ncontent-type: " + Problems.CONTENT_TYPE + "\r\nconnection: close\r\ncontent-length: "
        + json.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
      // written below the HTTP encoder: no response of Vert.x's is under way on the connection
      ctx.writeAndFlush(Unpooled.wrappedBuffer(head, json)).addListener(ChannelFutureListener.CLOSE);
    }

    private void cancelHeaders() {
      if (headerTimer != null) {
        headerTimer.cancel(false);
        headerTimer = null;
      }
    }

    private void done() {
      phase = Phase.DONE;
      cancelHeaders();
    }
  }
}
