package dev.conclave.gateway.support;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;

/** JSON calls to a node's HTTP API with a bearer token. Blocking; tests only. */
public final class HttpJson implements AutoCloseable {

  /** A response: status and JSON body (problem responses included). */
  public record Answer(int status, JsonObject body) {
  }

  private final WebClient web;
  private final int port;

  public HttpJson(Vertx vertx, int port) {
    this.web = WebClient.create(vertx);
    this.port = port;
  }

  public Answer post(String token, String path, JsonObject body) {
    return answer(GatewayFixture.await(web.request(HttpMethod.POST, port, "127.0.0.1", path)
      .putHeader("authorization", "Bearer " + token).sendJsonObject(body)));
  }

  public Answer get(String token, String path) {
    return answer(GatewayFixture.await(web.request(HttpMethod.GET, port, "127.0.0.1", path)
      .putHeader("authorization", "Bearer " + token).send()));
  }

  private static Answer answer(HttpResponse<Buffer> r) {
    Buffer b = r.body();
    return new Answer(r.statusCode(), b == null || b.length() == 0 ? new JsonObject() : b.toJsonObject());
  }

  @Override
  public void close() {
    web.close();
  }
}
