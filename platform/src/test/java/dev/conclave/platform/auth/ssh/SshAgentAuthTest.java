package dev.conclave.platform.auth.ssh;

import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalStore;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.server.EchoRole;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.MeResponse;
import io.vertx.core.Vertx;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.sqlclient.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.conclave.platform.testing.Await.await;

/**
 * SSH-signed calls (coven agents' x-ssh-* headers) against a real node: which are accepted as which
 * principal, and which are refused with what. The gate answers before any handler runs.
 */
class SshAgentAuthTest {

  private static Vertx vertx;
  private static TestNode node;
  private static SshCalls calls;

  @BeforeAll
  static void start() {
    node = TestNode.builder().role(new EchoRole()).start();
    vertx = Vertx.vertx();
    calls = new SshCalls(vertx);
  }

  @AfterAll
  static void stop() throws Exception {
    calls.close();
    vertx.close().await(10, TimeUnit.SECONDS);
    node.close();
  }

  @ParameterizedTest
  @EnumSource(AgentKeys.Kind.class)
  void aRegisteredKeyOfEveryAcceptedTypeAuthenticatesAsItsPrincipal(AgentKeys.Kind kind) {
    AgentKeys agent = AgentKeys.generate(kind, "agent " + kind);
    Principal principal = registered(agent, PrincipalStatus.APPROVED);

    GrpcCalls.Outcome<MeResponse> me = calls.getMeNow(node.grpcPort(), agent.headers());
    assertThat(me.status()).as(me.message()).isEqualTo(GrpcStatus.OK);
    assertThat(me.response().orElseThrow().getPrincipalId()).isEqualTo(principal.id().toString());
    assertThat(me.response().orElseThrow().getPrincipalType()).isEqualTo("agent");
    assertThat(me.response().orElseThrow().getRolesList()).isEmpty();
  }

  @Test
  void everyCallNeedsAFreshNonce() {
    AgentKeys agent = AgentKeys.ed25519(null);
    registered(agent, PrincipalStatus.APPROVED);
    Map<String, String> headers = agent.headers();
    assertThat(calls.getMeNow(node.grpcPort(), headers).status()).isEqualTo(GrpcStatus.OK);
    refused(headers, "ssh_nonce_reused");
    assertThat(calls.getMeNow(node.grpcPort(), agent.headers()).status()).isEqualTo(GrpcStatus.OK);
  }

  @Test
  void aBadSignatureIsRefused() {
    AgentKeys agent = AgentKeys.ed25519(null);
    AgentKeys impostor = AgentKeys.ed25519(null);
    registered(agent, PrincipalStatus.APPROVED);
    long now = Instant.now().getEpochSecond();
    String nonce = agent.nonce();
    // signed by another key
    refused(agent.headers(now, nonce, impostor.sign((now + "|" + nonce).getBytes())), "ssh_signature_invalid");
    // signed over another timestamp than the one sent
    refused(agent.headers(now, nonce, agent.sign(((now - 1) + "|" + nonce).getBytes())), "ssh_signature_invalid");
    // garbage
    GrpcCalls.Outcome<MeResponse> garbage = refused(agent.headers(now, nonce, "AAAA"), "ssh_signature_malformed");
    assertThat(garbage.message()).contains("x-ssh-signature");
  }

  @Test
  void staleAndFutureTimestampsAreRefused() {
    AgentKeys agent = AgentKeys.ed25519(null);
    registered(agent, PrincipalStatus.APPROVED);
    long now = Instant.now().getEpochSecond();
    GrpcCalls.Outcome<MeResponse> stale = refused(agent.headers(now - 301 - 2, agent.nonce()), "ssh_signature_expired");
    assertThat(stale.message()).contains("at most 300 s");
    GrpcCalls.Outcome<MeResponse> future = refused(agent.headers(now + 62, agent.nonce()), "ssh_timestamp_in_future");
    assertThat(future.message()).contains("at most 60 s");
    refused(agent.headers(Long.MAX_VALUE, agent.nonce()), "ssh_timestamp_in_future");

    // inside the window, both ways
    assertThat(calls.getMeNow(node.grpcPort(), agent.headers(now - 280, agent.nonce())).status()).isEqualTo(GrpcStatus.OK);
    assertThat(calls.getMeNow(node.grpcPort(), agent.headers(now + 45, agent.nonce())).status()).isEqualTo(GrpcStatus.OK);
  }

  @Test
  void aMissingOrMalformedHeaderIsNamed() {
    AgentKeys agent = AgentKeys.ed25519(null);
    registered(agent, PrincipalStatus.APPROVED);
    for (String header : List.of("x-ssh-pubkey", "x-ssh-signature", "x-ssh-timestamp", "x-ssh-nonce")) {
      Map<String, String> headers = new HashMap<>(agent.headers());
      headers.remove(header);
      GrpcCalls.Outcome<MeResponse> outcome = refused(headers, "ssh_header_missing");
      assertThat(outcome.message()).contains(header + " is missing");
    }
    Map<String, String> badTime = new HashMap<>(agent.headers());
    badTime.put("x-ssh-timestamp", "yesterday");
    refused(badTime, "ssh_timestamp_invalid");
    Map<String, String> badKey = new HashMap<>(agent.headers());
    badKey.put("x-ssh-pubkey", "ssh-ed25519");
    refused(badKey, "ssh_pubkey_invalid");
  }

  /**
   * The timestamp is signed as the agent wrote it, so it is read exactly: decimal digits, no sign,
   * space or leading zero; and each x-ssh-* header comes once (issue 40, finding 11).
   */
  @Test
  void headersAreReadStrictly() {
    AgentKeys agent = AgentKeys.ed25519(null);
    registered(agent, PrincipalStatus.APPROVED);
    long now = Instant.now().getEpochSecond();
    for (String written : List.of("+" + now, "0" + now, " " + now, now + " ", "00", "-0", now + ".0", "1e9")) {
      Map<String, String> headers = new HashMap<>(agent.headers(now, agent.nonce()));
      headers.put("x-ssh-timestamp", written);
      GrpcCalls.Outcome<MeResponse> outcome = refused(headers, "ssh_timestamp_invalid");
      assertThat(outcome.message()).as(written).contains("digits");
    }
    Map<String, String> spacedNonce = new HashMap<>();
    String nonce = agent.nonce();
    agent.headers(now, nonce).forEach(spacedNonce::put);
    spacedNonce.put("x-ssh-nonce", " " + nonce);
    refused(spacedNonce, "ssh_nonce_invalid");

    AgentKeys other = AgentKeys.ed25519(null);
    for (String header : List.of("x-ssh-pubkey", "x-ssh-signature", "x-ssh-timestamp", "x-ssh-nonce")) {
      io.vertx.core.MultiMap headers = io.vertx.core.MultiMap.caseInsensitiveMultiMap().addAll(agent.headers());
      headers.add(header, other.headers().get(header));
      GrpcCalls.Outcome<MeResponse> outcome = calls.getMeNow(node.grpcPort(), headers);
      assertThat(outcome.status()).as(header + ": " + outcome.message()).isEqualTo(GrpcStatus.UNAUTHENTICATED);
      assertThat(outcome.message()).startsWith("ssh_header_repeated:").contains(header);
    }
    // the same headers, once each, are fine
    assertThat(calls.getMeNow(node.grpcPort(), agent.headers()).status()).isEqualTo(GrpcStatus.OK);
  }

  @Test
  void garbageWritesNoNonceRows() {
    AgentKeys agent = AgentKeys.ed25519(null);
    AgentKeys impostor = AgentKeys.ed25519(null);
    registered(agent, PrincipalStatus.APPROVED);
    long now = Instant.now().getEpochSecond();
    for (int i = 0; i < 10; i++) {
      String nonce = agent.nonce();
      refused(agent.headers(now, nonce, impostor.sign((now + "|" + nonce).getBytes())), "ssh_signature_invalid");
      refused(agent.headers(now, agent.nonce(), "c2lnbmF0dXJl"), "ssh_signature_malformed");
      refused(agent.headers(now - 3600, agent.nonce()), "ssh_signature_expired");
      refused(agent.headers(now, "nonce with spaces"), "ssh_nonce_invalid");
    }
    assertThat(nonceRows(agent.fingerprint())).isZero();

    // the same key's good call writes exactly its one row
    assertThat(calls.getMeNow(node.grpcPort(), agent.headers()).status()).isEqualTo(GrpcStatus.OK);
    assertThat(nonceRows(agent.fingerprint())).isEqualTo(1);
  }

  @Test
  void pendingAndRevokedPrincipalsAreDeniedByName() {
    AgentKeys waiting = AgentKeys.ed25519(null);
    Principal pending = registered(waiting, PrincipalStatus.PENDING);
    GrpcCalls.Outcome<MeResponse> denied = calls.getMeNow(node.grpcPort(), waiting.headers());
    assertThat(denied.status()).isEqualTo(GrpcStatus.PERMISSION_DENIED);
    assertThat(denied.message()).startsWith("ssh_principal_pending:").contains(pending.id().toString(), "pending",
      "/api/v1/gateway/principals/" + pending.id() + "/approve");

    AgentKeys gone = AgentKeys.ed25519(null);
    Principal revoked = registered(gone, PrincipalStatus.REVOKED);
    GrpcCalls.Outcome<MeResponse> refusedRevoked = calls.getMeNow(node.grpcPort(), gone.headers());
    assertThat(refusedRevoked.status()).isEqualTo(GrpcStatus.PERMISSION_DENIED);
    assertThat(refusedRevoked.message()).startsWith("ssh_principal_revoked:").contains(revoked.id().toString(), "revoked");
  }

  @Test
  void aKeyOfAnotherPrincipalTypeIsNotAnAgent() {
    // the same key registered for a client principal does not make its holder that client
    AgentKeys agent = AgentKeys.ed25519("shared key");
    await(principals().create(UUID.randomUUID(), PrincipalType.CLIENT, "a client", PrincipalStatus.APPROVED, List.of("member"),
      Optional.of(agent.fingerprint())));
    GrpcCalls.Outcome<MeResponse> outcome = calls.getMeNow(node.grpcPort(), agent.headers());
    // default policy: an unknown agent key becomes a pending agent principal
    assertThat(outcome.status()).isEqualTo(GrpcStatus.PERMISSION_DENIED);
    assertThat(outcome.message()).startsWith("ssh_principal_pending:");
  }

  @Test
  void aBearerTokenStillWinsWhenBothAreSent() {
    AgentKeys agent = AgentKeys.ed25519(null);
    Map<String, String> headers = new HashMap<>(agent.headers());
    headers.put("authorization", "Bearer " + node.adminToken());
    GrpcCalls.Outcome<MeResponse> me = calls.getMeNow(node.grpcPort(), headers);
    assertThat(me.status()).isEqualTo(GrpcStatus.OK);
    assertThat(me.response().orElseThrow().getPrincipalType()).isEqualTo("client");
    assertThat(nonceRows(agent.fingerprint())).isZero();
  }

  private static GrpcCalls.Outcome<MeResponse> refused(Map<String, String> headers, String code) {
    GrpcCalls.Outcome<MeResponse> outcome = calls.getMeNow(node.grpcPort(), headers);
    assertThat(outcome.status()).as(outcome.message()).isEqualTo(GrpcStatus.UNAUTHENTICATED);
    assertThat(outcome.message()).startsWith(code + ":");
    assertThat(outcome.response()).isEmpty();
    return outcome;
  }

  private static Principal registered(AgentKeys agent, PrincipalStatus status) {
    return await(principals().create(UUID.randomUUID(), PrincipalType.AGENT, "agent", status, List.of(), Optional.of(agent.fingerprint())));
  }

  private static PrincipalStore principals() {
    return node.runtime().context().principals();
  }

  static long nonceRows(TestNode node, String fingerprint) {
    return await(node.runtime().context().pool().preparedQuery("SELECT count(*) FROM auth.ssh_nonces WHERE fingerprint = $1")
      .execute(Tuple.of(fingerprint)).map(rows -> rows.iterator().next().getLong(0)));
  }

  private static long nonceRows(String fingerprint) {
    return nonceRows(node, fingerprint);
  }
}
