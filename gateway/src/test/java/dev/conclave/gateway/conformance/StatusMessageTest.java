package dev.conclave.gateway.conformance;

import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.proto.coven.ClientServiceGrpcClient;
import dev.conclave.proto.coven.GetEventsRequest;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * grpc-message on the wire is encoded as the gRPC HTTP/2 spec says: printable ASCII as is (spaces,
 * ':' and ',' included), only other bytes and '%' percent-encoded. Clients that show the raw value
 * (grpc-js) then read {@code superseded: a newer connection…}, not {@code superseded%3A%20a…}.
 */
class StatusMessageTest {

  private static GatewayFixture gw;

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start();
  }

  @AfterAll
  static void stop() {
    gw.close();
  }

  @Test
  void aTrailersOnlyErrorCarriesItsMessageUnmangled() throws Exception {
    String raw = rawMessageOf(GetEventsRequest.newBuilder().setConversationKey("").build(), gw.memberToken("status-reader"));
    assertThat(raw).contains(": ").doesNotContain("%3A").doesNotContain("%20").doesNotContain("+");
  }

  @Test
  void nonAsciiAndPercentAreEncodedAndDecodeBack() throws Exception {
    String key = "ключ-100%";
    String raw = rawMessageOf(GetEventsRequest.newBuilder().setConversationKey(key).build(), gw.memberToken("status-stranger"));
    assertThat(raw).contains("%D0%BA").contains("100%25").contains(": ");
    assertThat(URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8)).contains(key);
  }

  @Test
  void aStreamEndedAfterItsMessagesCarriesItsMessageUnmangledInTheTrailers() {
    String token = gw.agentToken("status-twin");
    try (RawAgent old = gw.connect("status-twin", token); RawAgent fresh = gw.agent(token)) {
      fresh.register(RawAgent.registration("status-twin"));
      assertThat(old.next().hasShutdown()).isTrue();
      RawAgent.End end = old.awaitEnd();
      assertThat(end.status()).isNotEqualTo(GrpcStatus.OK);
      assertThat(end.rawMessage()).startsWith("superseded: ").doesNotContain("%20");
    }
  }

  private static String rawMessageOf(GetEventsRequest request, String token) throws Exception {
    var response = gw.grpc().open(ClientServiceGrpcClient.GetEvents, GrpcCalls.bearer(token))
      .compose(r -> r.send(request))
      .await(20, TimeUnit.SECONDS);
    response.last().otherwiseEmpty().await(20, TimeUnit.SECONDS); // the end, failed or not
    assertThat(response.status()).isNotEqualTo(GrpcStatus.OK);
    String raw = response.headers().get("grpc-message");
    return raw != null ? raw : response.trailers().get("grpc-message");
  }
}
