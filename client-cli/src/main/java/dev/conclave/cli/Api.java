package dev.conclave.cli;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemTrustOptions;

import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The public HTTP API and the session WebSocket of one node, used blocking (it is a CLI): each call
 * answers the JSON body or throws a {@link CliFailure} with one line and the exit code that says
 * what went wrong (the server's problem {@code code} included).
 */
public final class Api implements AutoCloseable {

  private static final long TIMEOUT_SECONDS = 30;

  private final Target target;
  private final Vertx vertx;
  private final HttpClient http;
  private final WebSocketClient ws;

  public Api(Target target) {
    this.target = target;
    this.vertx = Vertx.vertx();
    HttpClientOptions options = new HttpClientOptions().setVerifyHost(true).setConnectTimeout(5_000);
    WebSocketClientOptions wsOptions = new WebSocketClientOptions().setVerifyHost(true).setConnectTimeout(5_000);
    target.caFile().ifPresent(ca -> {
      options.setTrustOptions(new PemTrustOptions().addCertPath(ca.toString()));
      wsOptions.setTrustOptions(new PemTrustOptions().addCertPath(ca.toString()));
    });
    this.http = vertx.createHttpClient(options);
    this.ws = vertx.createWebSocketClient(wsOptions);
  }

  public Vertx vertx() {
    return vertx;
  }

  public JsonObject get(String path) {
    return call(HttpMethod.GET, path, null);
  }

  public JsonObject post(String path, JsonObject body) {
    return call(HttpMethod.POST, path, body == null ? new JsonObject() : body);
  }

  public JsonObject delete(String path) {
    return call(HttpMethod.DELETE, path, null);
  }

  /** A path segment, encoded (agent ids and conversation keys may hold {@code :} or spaces). */
  public static String seg(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }

  public JsonObject call(HttpMethod method, String path, JsonObject body) {
    URI url = target.url();
    boolean tls = "https".equals(url.getScheme());
    String base = url.getPath() == null || url.getPath().equals("/") ? "" : url.getPath().replaceAll("/+$", "");
    RequestOptions options = new RequestOptions().setMethod(method).setHost(url.getHost()).setPort(port(url))
      .setSsl(tls).setURI(base + path).putHeader("authorization", "Bearer " + target.token())
      .putHeader("accept", "application/json");
    Future<JsonObject> answer = http.request(options).compose(req -> {
      Future<io.vertx.core.http.HttpClientResponse> sent = body == null ? req.send()
        : req.putHeader("content-type", "application/json").send(body.toBuffer());
      return sent.compose(resp -> resp.body().map(buf -> answer(method, path, resp.statusCode(), buf)));
    });
    return await(answer);
  }

  /** Opens the session WebSocket ({@code /api/v1/sessions}, docs/sessions.md). */
  public WebSocket session() {
    URI url = target.url();
    boolean tls = "https".equals(url.getScheme());
    WebSocketConnectOptions options = new WebSocketConnectOptions().setHost(url.getHost()).setPort(port(url))
      .setSsl(tls).setURI("/api/v1/sessions").addHeader("authorization", "Bearer " + target.token());
    return await(ws.connect(options));
  }

  private static int port(URI url) {
    return url.getPort() > 0 ? url.getPort() : "https".equals(url.getScheme()) ? 443 : 80;
  }

  private JsonObject answer(HttpMethod method, String path, int status, Buffer buf) {
    JsonObject json;
    try {
      json = buf.length() == 0 ? new JsonObject() : new JsonObject(buf);
    } catch (DecodeException | ClassCastException e) {
      json = new JsonObject().put("detail", buf.toString().strip());
    }
    if (status < 400) {
      return json;
    }
    int exit = status == 401 || status == 403 ? ExitCodes.AUTH : ExitCodes.SERVER_ERROR;
    throw new CliFailure(exit, problemLine(status, json));
  }

  /** {@code 404 agent_not_found: no agent named x}: the status, the problem's code and its detail. */
  public static String problemLine(int status, JsonObject problem) {
    String code = problem.getString("code", problem.getString("error", "error"));
    String detail = problem.getString("detail", problem.getString("message", problem.getString("title", "")));
    return status + " " + code + (detail.isBlank() ? "" : ": " + detail.replaceAll("[\\r\\n]+", " "));
  }

  /** Waits for a call of this client; a node that does not answer is exit 3, as one that is not there. */
  public <T> T await(Future<T> future) {
    try {
      return future.toCompletionStage().toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof CliFailure f) {
        throw f;
      }
      if (cause instanceof io.vertx.core.http.UpgradeRejectedException rejected) {
        int status = rejected.getStatus();
        JsonObject body;
        try {
          body = rejected.getBody() == null || rejected.getBody().length() == 0 ? new JsonObject() : new JsonObject(rejected.getBody());
        } catch (DecodeException | ClassCastException d) {
          body = new JsonObject();
        }
        throw new CliFailure(status == 401 || status == 403 ? ExitCodes.AUTH : ExitCodes.SERVER_ERROR, problemLine(status, body));
      }
      throw new CliFailure(ExitCodes.CANNOT_CONNECT, "cannot connect to " + target.url() + ": " + describe(cause));
    } catch (TimeoutException e) {
      throw new CliFailure(ExitCodes.CANNOT_CONNECT, target.url() + " did not answer within " + TIMEOUT_SECONDS + " s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliFailure(ExitCodes.CANCELLED, "interrupted");
    }
  }

  private static String describe(Throwable e) {
    if (e instanceof ConnectException && e.getMessage() != null && e.getMessage().contains("refused")) {
      return "connection refused (is a node running there?)";
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().replaceAll("[\\r\\n]+", " ");
  }

  @Override
  public void close() {
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    } catch (Exception ignored) {
      // the process is ending anyway
    }
  }
}
