package dev.conclave.agentruntime.backend.openai;

import dev.conclave.agentruntime.testing.Ports;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A local stand-in for an OpenAI-compatible Chat Completions server, speaking its streaming wire
 * format: {@code POST /v1/chat/completions} answered with {@code text/event-stream} lines
 * {@code data: {chunk}} and a final {@code data: [DONE]}, chunks shaped as the API reference's
 * "chat completion chunk" object ({@code choices[0].delta.content}, {@code delta.tool_calls[]}
 * with {@code index}, {@code id}, {@code function.name} and {@code function.arguments} fragments,
 * {@code finish_reason}, and with {@code stream_options.include_usage} a last chunk with empty
 * {@code choices} and {@code usage}). Errors come as the API's JSON error body with its status.
 * Each request is answered by the next scripted answer; requests are recorded.
 */
final class ChatCompletionsStandIn {

  final List<JsonObject> requests = new CopyOnWriteArrayList<>();
  final List<String> authorizations = new CopyOnWriteArrayList<>();
  /** Each request's W3C trace headers, {@code traceparent|tracestate} ("null" for one not sent). */
  final List<String> traceHeaders = new CopyOnWriteArrayList<>();
  final List<String> closed = new CopyOnWriteArrayList<>();
  private final Deque<Consumer<HttpServerResponse>> answers = new ArrayDeque<>();
  private final HttpServer server;
  final int port;

  ChatCompletionsStandIn(Vertx vertx) {
    this.port = Ports.free();
    this.server = vertx.createHttpServer().requestHandler(req -> {
      if (!req.path().equals("/v1/chat/completions")) {
        req.response().setStatusCode(404).end();
        return;
      }
      authorizations.add(String.valueOf(req.getHeader("authorization")));
      traceHeaders.add(req.getHeader("traceparent") + "|" + req.getHeader("tracestate"));
      req.connection().closeHandler(v -> closed.add("closed"));
      req.body().onSuccess(body -> {
        requests.add(body.toJsonObject());
        Consumer<HttpServerResponse> answer;
        synchronized (answers) {
          answer = answers.poll();
        }
        if (answer == null) {
          req.response().setStatusCode(500).end("{\"error\":{\"type\":\"server_error\",\"message\":\"no scripted answer\"}}");
        } else {
          answer.accept(req.response());
        }
      });
    });
    server.listen(port, "127.0.0.1").await();
  }

  String baseUrl() {
    return "http://127.0.0.1:" + port + "/v1";
  }

  ChatCompletionsStandIn then(Consumer<HttpServerResponse> answer) {
    synchronized (answers) {
      answers.add(answer);
    }
    return this;
  }

  /** Streams the chunks, then usage, then [DONE]. */
  static Consumer<HttpServerResponse> stream(JsonObject... chunks) {
    return resp -> {
      resp.setChunked(true).putHeader("content-type", "text/event-stream");
      for (JsonObject c : chunks) {
        // one event split over two writes, to exercise reassembly
        String event = "data: " + c.encode() + "\n\n";
        int half = event.length() / 2;
        resp.write(event.substring(0, half));
        resp.write(event.substring(half));
      }
      resp.end("data: [DONE]\n\n");
    };
  }

  /** Streams the chunks and then never ends: a stuck model, for cancellation. */
  static Consumer<HttpServerResponse> streamThenHang(JsonObject... chunks) {
    return resp -> {
      resp.setChunked(true).putHeader("content-type", "text/event-stream");
      for (JsonObject c : chunks) {
        resp.write("data: " + c.encode() + "\n\n");
      }
    };
  }

  static Consumer<HttpServerResponse> error(int status, String type, String message) {
    return resp -> resp.setStatusCode(status).putHeader("content-type", "application/json")
      .end(new JsonObject().put("error", new JsonObject().put("message", message).put("type", type)
        .put("param", (String) null).put("code", (String) null)).encode());
  }

  static JsonObject text(String content) {
    return chunk(new JsonObject().put("content", content), null);
  }

  static JsonObject finish(String reason) {
    return chunk(new JsonObject(), reason);
  }

  static JsonObject usage(int prompt, int completion) {
    return base().put("choices", new JsonArray()).put("usage", new JsonObject().put("prompt_tokens", prompt)
      .put("completion_tokens", completion).put("total_tokens", prompt + completion));
  }

  static JsonObject toolCallStart(int index, String id, String name) {
    return chunk(new JsonObject().put("tool_calls", new JsonArray().add(new JsonObject().put("index", index).put("id", id)
      .put("type", "function").put("function", new JsonObject().put("name", name).put("arguments", "")))), null);
  }

  static JsonObject toolCallArgs(int index, String fragment) {
    return chunk(new JsonObject().put("tool_calls", new JsonArray().add(new JsonObject().put("index", index)
      .put("function", new JsonObject().put("arguments", fragment)))), null);
  }

  private static JsonObject chunk(JsonObject delta, String finish) {
    return base().put("choices", new JsonArray().add(new JsonObject().put("index", 0).put("delta", delta)
      .put("logprobs", (String) null).put("finish_reason", finish)));
  }

  private static JsonObject base() {
    return new JsonObject().put("id", "chatcmpl-standin").put("object", "chat.completion.chunk")
      .put("created", 1_700_000_000).put("model", "standin-model").put("system_fingerprint", "fp_standin");
  }

  void close() {
    server.close().await();
  }
}
