package dev.conclave.agentruntime.backend.openai;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One streaming call of {@code POST {baseUrl}/chat/completions} ({@code "stream": true}): the SSE
 * chunks are put together into a {@link StreamedTurn}, and each chunk's text and reasoning go to a
 * listener whose future the reader waits for (the response is paused meanwhile, so TCP holds the
 * server back when the gateway reads slowly). A call can be aborted at any time; the connection is
 * then reset.
 */
final class ChatCompletions {

  /** The outcome of a call: the turn, or the error answer of the server. */
  record Result(StreamedTurn turn, int status, String errorBody) {
    boolean ok() {
      return status == 200;
    }
  }

  /** An in-flight call. */
  static final class Call {
    private final Promise<Result> result = Promise.promise();
    private volatile HttpClientRequest request;
    private volatile boolean aborted;

    Future<Result> result() {
      return result.future();
    }

    /** Resets the connection; the result fails with "aborted". */
    void abort() {
      aborted = true;
      HttpClientRequest r = request;
      if (r != null) {
        r.reset();
      }
      result.tryFail("aborted");
    }
  }

  private final HttpClient http;
  private final OpenAiSettings settings;

  ChatCompletions(Vertx vertx, OpenAiSettings settings) {
    this.settings = settings;
    this.http = vertx.createHttpClient(new HttpClientOptions()
      .setConnectTimeout(10_000)
      .setIdleTimeout((int) Math.max(1, settings.idleTimeout().toSeconds()))
      .setIdleTimeoutUnit(TimeUnit.SECONDS));
  }

  /** Streams one call; {@code headers} are added to the request (the request's W3C trace context). */
  Call stream(JsonObject body, java.util.Map<String, String> headers, Function<StreamedTurn.Delta, Future<Void>> listener) {
    Call call = new Call();
    RequestOptions options = new RequestOptions()
      .setMethod(HttpMethod.POST)
      .setAbsoluteURI(stripSlash(settings.baseUrl()) + "/chat/completions")
      .putHeader("content-type", "application/json")
      .putHeader("accept", "text/event-stream");
    headers.forEach(options::putHeader);
    String key = settings.apiKey().get();
    if (key != null && !key.isBlank()) {
      options.putHeader("authorization", "Bearer " + key);
    }
    http.request(options).onComplete(ar -> {
      if (ar.failed()) {
        call.result.tryFail(ar.cause());
        return;
      }
      HttpClientRequest req = ar.result();
      call.request = req;
      if (call.aborted) {
        req.reset();
        return;
      }
      req.send(body.toBuffer()).onComplete(resp -> {
        if (resp.failed()) {
          call.result.tryFail(resp.cause());
          return;
        }
        read(resp.result(), call, listener);
      });
    });
    return call;
  }

  private static void read(HttpClientResponse resp, Call call, Function<StreamedTurn.Delta, Future<Void>> listener) {
    if (resp.statusCode() != 200) {
      resp.body().onComplete(b -> call.result.tryComplete(
        new Result(null, resp.statusCode(), b.succeeded() ? b.result().toString() : "")));
      return;
    }
    StreamedTurn turn = new StreamedTurn();
    SseDecoder decoder = new SseDecoder();
    boolean[] done = {false};
    resp.exceptionHandler(err -> call.result.tryFail(err));
    resp.handler(chunk -> {
      java.util.List<String> events;
      try {
        events = decoder.feed(chunk);
      } catch (IllegalStateException e) {
        call.result.tryFail(e);
        resp.request().reset();
        return;
      }
      Future<Void> chain = Future.succeededFuture();
      for (String data : events) {
        if (data.strip().equals("[DONE]")) {
          done[0] = true;
          continue;
        }
        StreamedTurn.Delta delta;
        try {
          delta = turn.add(new JsonObject(data));
        } catch (DecodeException | ClassCastException e) {
          call.result.tryFail(new IllegalStateException("the AI service streamed a chunk that is not JSON: " + abbreviate(data)));
          resp.request().reset();
          return;
        }
        if (!delta.text().isEmpty() || !delta.reasoning().isEmpty()) {
          chain = chain.compose(v -> listener.apply(delta));
        }
      }
      if (!chain.isComplete()) {
        resp.pause();
        chain.onComplete(v -> resp.resume());
      }
    });
    resp.endHandler(v -> call.result.tryComplete(new Result(turn, 200, null)));
  }

  Future<Void> close() {
    return http.close();
  }

  private static String stripSlash(String s) {
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }

  private static String abbreviate(String s) {
    return s.length() > 200 ? s.substring(0, 200) + "…" : s;
  }

}
