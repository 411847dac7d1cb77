package dev.conclave.platform.auth.ssh;

import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.server.EchoRole;
import dev.conclave.platform.testing.GrpcCalls;
import dev.conclave.platform.testing.TestNode;
import dev.conclave.proto.coven.MeResponse;
import io.vertx.core.Vertx;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import dev.conclave.platform.testing.Await;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Unknown SSH keys create principals, so what anyone who reaches the gRPC port can make a node write
 * is bounded: per source address and hour, and pending ones in all; and the key's comment becomes the
 * name only if it is a valid principal name (issue 40, finding 5: 100 unknown keys made 100 pending
 * principals in 2.4 s).
 */
class SshNewKeyLimitsTest {

  private static Vertx vertx;
  private static TestNode perSource;
  private static TestNode capped;
  private static SshCalls calls;

  @BeforeAll
  static void start() {
    perSource = TestNode.builder().role(new EchoRole()).env("CONCLAVE_SSH_NEW_KEYS_PER_HOUR", "3").start();
    capped = TestNode.builder().role(new EchoRole()).env("CONCLAVE_SSH_PENDING_MAX", "2").start();
    vertx = Vertx.vertx();
    calls = new SshCalls(vertx);
  }

  @AfterAll
  static void stop() throws Exception {
    calls.close();
    vertx.close().await(10, TimeUnit.SECONDS);
    perSource.close();
    capped.close();
  }

  @Test
  void oneSourceCreatesAFewPrincipalsAnHourAndNothingMore() {
    for (int i = 0; i < 3; i++) {
      assertThat(call(perSource, AgentKeys.ed25519("agent-" + i)).message()).startsWith("ssh_principal_pending:");
    }
    for (int i = 3; i < 8; i++) {
      AgentKeys key = AgentKeys.ed25519("agent-" + i);
      GrpcCalls.Outcome<MeResponse> refused = call(perSource, key);
      assertThat(refused.status()).as(refused.message()).isEqualTo(GrpcStatus.RESOURCE_EXHAUSTED);
      assertThat(refused.message()).startsWith("ssh_new_keys_limit:").contains("CONCLAVE_SSH_NEW_KEYS_PER_HOUR");
      // refused before anything is written: not even the nonce
      assertThat(SshAgentAuthTest.nonceRows(perSource, key.fingerprint())).isZero();
    }
    assertThat(pending(perSource)).hasSize(3);
  }

  @Test
  void pendingPrincipalsAreCappedUntilAnAdminDecides() {
    for (int i = 0; i < 2; i++) {
      assertThat(call(capped, AgentKeys.ed25519("capped-" + i)).message()).startsWith("ssh_principal_pending:");
    }
    GrpcCalls.Outcome<MeResponse> refused = call(capped, AgentKeys.ed25519("one-too-many"));
    assertThat(refused.status()).as(refused.message()).isEqualTo(GrpcStatus.RESOURCE_EXHAUSTED);
    assertThat(refused.message()).startsWith("ssh_pending_limit:").contains("CONCLAVE_SSH_PENDING_MAX");
    assertThat(pending(capped)).hasSize(2);

    // an admin approves one: a place is free again
    Principal decided = pending(capped).get(0);
    assertThat(Await.await(capped.runtime().context().principals().setStatus(decided.id(), PrincipalStatus.APPROVED))).isTrue();
    AgentKeys later = AgentKeys.ed25519("<img src=x onerror=alert(1)>\u0085");
    assertThat(call(capped, later).message()).startsWith("ssh_principal_pending:");
    Principal named = pending(capped).stream().filter(p -> p.pubkeyFingerprint().orElse("").equals(later.fingerprint())).findFirst().orElseThrow();
    // a comment that is not a valid principal name (a C1 control here: headers carry Latin-1 only) is not the name
    assertThat(named.displayName()).isEqualTo("ssh-agent " + later.fingerprint().substring(0, 12));
  }

  private static GrpcCalls.Outcome<MeResponse> call(TestNode node, AgentKeys key) {
    return calls.getMeNow(node.grpcPort(), key.headers());
  }

  private static List<Principal> pending(TestNode node) {
    return Await.await(node.runtime().context().principals().list(Optional.of(PrincipalType.AGENT), Optional.of(PrincipalStatus.PENDING)));
  }
}
