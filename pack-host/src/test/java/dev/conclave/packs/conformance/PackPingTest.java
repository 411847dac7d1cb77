package dev.conclave.packs.conformance;

import dev.conclave.packs.support.PackHost;
import dev.conclave.packs.support.RawPack;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.Http2Route;
import dev.conclave.platform.testing.TestNode;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * HTTP/2 PINGs find a pack whose connection went silent without closing (a frozen process, a
 * black-holed route) and drop its tools within a few PING intervals; a pack one of whose answers is
 * lost on the way stays, since the next answer arrives well within the patience of two intervals.
 */
class PackPingTest {

  private static PackHost host;

  @BeforeAll
  static void start() {
    host = PackHost.start(TestNode.builder().env("CONCLAVE_PACK_PING_SECONDS", "2"));
  }

  @AfterAll
  static void stop() {
    host.close();
  }

  @Test
  void aPackWhoseConnectionFreezesIsDroppedWithinAFewPingIntervals() throws Exception {
    onRoute("frozen-pack", "frozen_tool", (route, pack) -> {
      assertThat(listed("frozen-pack")).isTrue();
      long frozenAt = System.nanoTime();
      route.freeze();
      while (listed("frozen-pack") && System.nanoTime() - frozenAt < 20_000_000_000L) {
        Thread.sleep(100);
      }
      double seconds = (System.nanoTime() - frozenAt) / 1e9;
      assertThat(listed("frozen-pack")).as("still listed %.1f s after its connection froze", seconds).isFalse();
      assertThat(seconds).as("dropped by the PING deadline (two intervals after the first unanswered one)").isLessThan(12);
    });
  }

  @Test
  void aPackThatLosesOnePingAnswerStays() throws Exception {
    onRoute("lossy-pack", "lossy_tool", (route, pack) -> {
      route.dropPingAnswers(1);
      // four PING intervals: the lost answer's PING is answered by the next one's answer
      Thread.sleep(8_000);
      assertThat(route.droppedPingAnswers()).as("PING answers the route swallowed").isEqualTo(1);
      assertThat(pack.ended()).isFalse();
      assertThat(listed("lossy-pack")).isTrue();
    });
  }

  /** What a test does with a pack registered through its own {@link Http2Route} to the pack host. */
  private interface RouteTest {
    void run(Http2Route route, RawPack pack) throws Exception;
  }

  /** Registers pack {@code packId} with one tool through a fresh route and runs {@code test}; closes both afterwards. */
  private static void onRoute(String packId, String tool, RouteTest test) throws Exception {
    Http2Route route = new Http2Route(host.gw().vertx(), host.gw().address());
    try (GrpcCalls calls = new GrpcCalls(host.gw().vertx(), route.port());
         RawPack pack = RawPack.register(calls, host.packToken(packId), RawPack.manifest(packId, RawPack.tool(tool)))) {
      test.run(route, pack);
    } finally {
      route.close();
    }
  }

  /** Whether the pack host lists the pack as connected ({@code GET /api/v1/packs}). */
  private static boolean listed(String packId) throws Exception {
    HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + host.gw().node().httpPort() + "/api/v1/packs"))
      .header("authorization", "Bearer " + host.gw().node().adminToken()).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return new JsonObject(response.body()).getJsonArray("packs").stream()
      .anyMatch(p -> packId.equals(((JsonObject) p).getString("packId")));
  }
}
