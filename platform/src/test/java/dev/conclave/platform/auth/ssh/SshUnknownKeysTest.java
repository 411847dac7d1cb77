package dev.conclave.platform.auth.ssh;

import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.config.NodeSettings;
import dev.conclave.platform.server.EchoRole;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.MeResponse;
import dev.conclave.settings.ConfigException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import dev.conclave.platform.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What an agent whose key no principal has gets, under each CONCLAVE_SSH_UNKNOWN_KEYS policy. */
class SshUnknownKeysTest {

  private static final Pattern PRINCIPAL_ID = Pattern.compile("principal ([0-9a-f-]{36})");

  private static Vertx vertx;
  private static TestNode pending;
  private static TestNode reject;
  private static TestNode approve;
  private static SshCalls calls;

  @BeforeAll
  static void start() {
    pending = TestNode.builder().role(new EchoRole()).start();
    reject = TestNode.builder().role(new EchoRole()).env("CONCLAVE_SSH_UNKNOWN_KEYS", "reject").start();
    approve = TestNode.builder().role(new EchoRole()).env("CONCLAVE_SSH_UNKNOWN_KEYS", "approve").start();
    vertx = Vertx.vertx();
    calls = new SshCalls(vertx);
  }

  @AfterAll
  static void stop() throws Exception {
    calls.close();
    vertx.close().await(10, TimeUnit.SECONDS);
    for (TestNode node : List.of(pending, reject, approve)) {
      node.close();
    }
  }

  @Test
  void byDefaultAnUnknownKeyBecomesAPendingPrincipalThatWorksOnceApproved() {
    AgentKeys agent = AgentKeys.ed25519("build-agent@ci");
    GrpcCalls.Outcome<MeResponse> first = calls.getMeNow(pending.grpcPort(), agent.headers());
    assertThat(first.status()).isEqualTo(GrpcStatus.PERMISSION_DENIED);
    assertThat(first.message()).startsWith("ssh_principal_pending:").contains("an admin must approve principal");
    UUID id = principalIn(first.message());
    assertThat(first.message()).contains("POST /api/v1/gateway/principals/" + id + "/approve");

    Principal created = agentWithKey(pending, agent).orElseThrow();
    assertThat(created.id()).isEqualTo(id);
    assertThat(created.status()).isEqualTo(PrincipalStatus.PENDING);
    assertThat(created.displayName()).isEqualTo("build-agent@ci");
    assertThat(created.roles()).isEmpty();

    // still pending: the same principal, not a second one
    GrpcCalls.Outcome<MeResponse> again = calls.getMeNow(pending.grpcPort(), agent.headers());
    assertThat(again.status()).isEqualTo(GrpcStatus.PERMISSION_DENIED);
    assertThat(principalIn(again.message())).isEqualTo(id);

    assertThat(Await.await(pending.runtime().context().principals().setStatus(id, PrincipalStatus.APPROVED))).isTrue();
    GrpcCalls.Outcome<MeResponse> me = calls.getMeNow(pending.grpcPort(), agent.headers());
    assertThat(me.status()).as(me.message()).isEqualTo(GrpcStatus.OK);
    assertThat(me.response().orElseThrow().getPrincipalId()).isEqualTo(id.toString());
  }

  @Test
  void aKeyWithoutCommentIsNamedByItsFingerprint() {
    AgentKeys agent = AgentKeys.ed25519(null);
    calls.getMeNow(pending.grpcPort(), agent.headers());
    assertThat(agentWithKey(pending, agent).orElseThrow().displayName()).isEqualTo("ssh-agent " + agent.fingerprint().substring(0, 12));
  }

  @Test
  void concurrentFirstCallsOfOneNewKeyMakeOnePrincipal() {
    AgentKeys agent = AgentKeys.generate(AgentKeys.Kind.ECDSA_P256, "racer");
    List<Future<GrpcCalls.Outcome<MeResponse>>> outcomes = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      outcomes.add(calls.getMe(pending.grpcPort(), agent.headers()));
    }
    UUID id = agentWithKeyAfter(outcomes).orElseThrow();
    for (Future<GrpcCalls.Outcome<MeResponse>> f : outcomes) {
      GrpcCalls.Outcome<MeResponse> outcome = Await.await(f);
      assertThat(outcome.status()).as(outcome.message()).isEqualTo(GrpcStatus.PERMISSION_DENIED);
      assertThat(principalIn(outcome.message())).isEqualTo(id);
    }
    long count = Await.await(pending.runtime().context().principals().list(Optional.of(PrincipalType.AGENT), Optional.empty()))
      .stream().filter(p -> p.pubkeyFingerprint().equals(Optional.of(agent.fingerprint()))).count();
    assertThat(count).isEqualTo(1);
  }

  @Test
  void underRejectAnUnknownKeyIsRefusedAndNothingIsWritten() {
    AgentKeys agent = AgentKeys.ed25519("stranger");
    GrpcCalls.Outcome<MeResponse> outcome = calls.getMeNow(reject.grpcPort(), agent.headers());
    assertThat(outcome.status()).isEqualTo(GrpcStatus.UNAUTHENTICATED);
    assertThat(outcome.message()).startsWith("ssh_key_unknown:").contains("unknown key", agent.fingerprint());
    assertThat(agentWithKey(reject, agent)).isEmpty();
    assertThat(SshAgentAuthTest.nonceRows(reject, agent.fingerprint())).isZero();

    // a key an admin registered is accepted as usual
    Principal known = Await.await(reject.runtime().context().principals().create(UUID.randomUUID(), PrincipalType.AGENT,
      "known", PrincipalStatus.APPROVED, List.of(), Optional.of(agent.fingerprint())));
    GrpcCalls.Outcome<MeResponse> me = calls.getMeNow(reject.grpcPort(), agent.headers());
    assertThat(me.status()).isEqualTo(GrpcStatus.OK);
    assertThat(me.response().orElseThrow().getPrincipalId()).isEqualTo(known.id().toString());
  }

  @Test
  void underApproveAnUnknownKeyIsAnApprovedAgentAtOnce() {
    AgentKeys agent = AgentKeys.generate(AgentKeys.Kind.RSA_SHA512, "trial-agent");
    GrpcCalls.Outcome<MeResponse> me = calls.getMeNow(approve.grpcPort(), agent.headers());
    assertThat(me.status()).as(me.message()).isEqualTo(GrpcStatus.OK);
    Principal created = agentWithKey(approve, agent).orElseThrow();
    assertThat(me.response().orElseThrow().getPrincipalId()).isEqualTo(created.id().toString());
    assertThat(created.status()).isEqualTo(PrincipalStatus.APPROVED);
    assertThat(created.displayName()).isEqualTo("trial-agent");
    assertThat(created.roles()).isEmpty();
  }

  @Test
  void thePolicyIsCheckedAtStartAndEveryWordIsAPolicy() {
    assertThat(ConclaveConfig.from(Map.of()).get(NodeSettings.SSH_UNKNOWN_KEYS)).isEqualTo("pending");
    assertThat(ConclaveConfig.from(Map.of("CONCLAVE_SSH_UNKNOWN_KEYS", " Reject ")).get(NodeSettings.SSH_UNKNOWN_KEYS)).isEqualTo("reject");
    assertThatThrownBy(() -> ConclaveConfig.from(Map.of("CONCLAVE_SSH_UNKNOWN_KEYS", "sometimes")))
      .isInstanceOf(ConfigException.class).hasMessageContaining("CONCLAVE_SSH_UNKNOWN_KEYS").hasMessageContaining("reject, pending, approve");
    for (String word : NodeSettings.UNKNOWN_KEY_POLICIES) {
      assertThat(UnknownKeyPolicy.of(word).name()).isEqualToIgnoringCase(word);
    }
    assertThat(NodeSettings.UNKNOWN_KEY_POLICIES).hasSize(UnknownKeyPolicy.values().length);
  }

  private static Optional<UUID> agentWithKeyAfter(List<Future<GrpcCalls.Outcome<MeResponse>>> outcomes) {
    outcomes.forEach(Await::await);
    return Await.await(pending.runtime().context().principals().list(Optional.of(PrincipalType.AGENT), Optional.empty()))
      .stream().filter(p -> p.displayName().equals("racer")).map(Principal::id).findFirst();
  }

  private static Optional<Principal> agentWithKey(TestNode node, AgentKeys agent) {
    return Await.await(node.runtime().context().principals().findByFingerprint(PrincipalType.AGENT, agent.fingerprint()));
  }

  private static UUID principalIn(String message) {
    Matcher m = PRINCIPAL_ID.matcher(message);
    assertThat(m.find()).as(message).isTrue();
    return UUID.fromString(m.group(1));
  }
}
