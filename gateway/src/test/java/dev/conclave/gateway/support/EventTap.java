package dev.conclave.gateway.support;

import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.StreamEventsRequest;
import io.vertx.grpc.client.GrpcClientRequest;
import io.vertx.grpc.common.GrpcStatus;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** A StreamEvents subscription whose events a test reads one by one. */
public final class EventTap implements AutoCloseable {

  private final BlockingQueue<ClientStreamEvent> events = new LinkedBlockingQueue<>();
  private final CompletableFuture<GrpcStatus> end = new CompletableFuture<>();
  private volatile String endMessage;
  private final GrpcClientRequest<StreamEventsRequest, ClientStreamEvent> request;

  EventTap(GrpcClientRequest<StreamEventsRequest, ClientStreamEvent> request) {
    this.request = request;
    request.response().onComplete(ar -> {
      if (ar.failed()) {
        end.complete(GrpcStatus.UNAVAILABLE);
        return;
      }
      var resp = ar.result();
      resp.handler(events::add);
      resp.endHandler(v -> {
        endMessage = RawAgent.message(resp);
        end.complete(resp.status());
      });
      resp.exceptionHandler(err -> {
        endMessage = RawAgent.message(resp);
        end.complete(resp.status() == null ? GrpcStatus.UNKNOWN : resp.status());
      });
    });
  }

  public ClientStreamEvent next() {
    try {
      ClientStreamEvent e = events.poll(10, TimeUnit.SECONDS);
      if (e == null) {
        throw new AssertionError("no stream event within 10 s (stream end: " + end.getNow(null) + ")");
      }
      return e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  public ClientStreamEvent poll(long ms) {
    try {
      return events.poll(ms, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** Reads events until one matches; returns all read, the match last. */
  public List<ClientStreamEvent> until(Predicate<ClientStreamEvent> stop) {
    List<ClientStreamEvent> seen = new ArrayList<>();
    while (true) {
      ClientStreamEvent e = next();
      seen.add(e);
      if (stop.test(e)) {
        return seen;
      }
    }
  }

  public GrpcStatus awaitEnd() {
    try {
      return end.get(15, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("stream did not end", e);
    }
  }

  /** The status message the stream ended with (after {@link #awaitEnd}); null when it had none. */
  public String endMessage() {
    return endMessage;
  }

  public boolean ended() {
    return end.isDone();
  }

  @Override
  public void close() {
    if (!end.isDone()) {
      request.cancel();
    }
  }

  public static boolean terminal(ClientStreamEvent e) {
    return e.hasDone() || e.hasError();
  }
}
