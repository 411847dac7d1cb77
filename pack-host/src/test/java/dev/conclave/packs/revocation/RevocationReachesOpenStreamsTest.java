package dev.conclave.packs.revocation;

import dev.conclave.gateway.support.Clients;
import dev.conclave.gateway.support.EventTap;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.packs.support.RawPack;
import dev.conclave.packs.support.TwoNodes;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.Principal;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.proto.coven.AdminServiceGrpcClient;
import dev.conclave.proto.coven.DeletePrincipalRequest;
import dev.conclave.proto.coven.ServerMessage;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.conclave.platform.testing.Await.await;

/**
 * Revoking a token, or deleting a principal, on one node ends that principal's open streams on
 * every node within 2 s: agent streams (Shutdown, then UNAUTHENTICATED), event streams and pack
 * streams.
 */
class RevocationReachesOpenStreamsTest {

  private static TwoNodes nodes;

  @BeforeAll
  static void start() {
    nodes = TwoNodes.start();
  }

  @AfterAll
  static void stop() {
    nodes.close();
  }

  @Test
  void deletingAPrincipalOnOneNodeEndsItsStreamsOnTheOther() {
    Principal member = nodes.gwA().newMember("doomed-member");
    Principal agentPrincipal = await(nodes.gwA().node().runtime().context().principals().create(UUID.randomUUID(), PrincipalType.AGENT,
      "doomed-agent", PrincipalStatus.APPROVED, List.of(), Optional.empty(), Optional.of(member.id())));
    String agentToken = nodes.gwA().token(agentPrincipal);
    String memberToken = nodes.gwA().token(member);
    try (RawAgent agent = nodes.b().gw().connect("doomed", agentToken);
         EventTap follow = nodes.b().gw().clients(memberToken).stream("doomed", "0")) {
      follow.poll(300);
      long t0 = System.nanoTime();
      deletePrincipal(nodes.a().gw().admin(), agentPrincipal.id());
      ServerMessage last = agent.next(2_000);
      assertThat(last.hasShutdown()).isTrue();
      assertThat(last.getShutdown().getReason()).contains("revoked");
      RawAgent.End end = agent.awaitEnd();
      assertThat(end.status()).isEqualTo(GrpcStatus.UNAUTHENTICATED);
      assertThat(end.message()).startsWith("credentials_revoked:");
      assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(2_000);

      t0 = System.nanoTime();
      deletePrincipal(nodes.a().gw().admin(), member.id());
      assertThat(follow.awaitEnd()).isEqualTo(GrpcStatus.UNAUTHENTICATED);
      assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(2_000);
    }
  }

  @Test
  void revokingOneTokenEndsTheStreamsOpenedWithIt() {
    Principal agentPrincipal = nodes.gwA().newPrincipal(PrincipalType.AGENT, "token-agent", PrincipalStatus.APPROVED, List.of());
    String first = nodes.gwA().token(agentPrincipal);
    String second = nodes.gwA().token(agentPrincipal);
    try (RawAgent a1 = nodes.b().gw().connect("token-agent-1", first);
         RawAgent a2 = nodes.b().gw().connect("token-agent-2", second)) {
      Caller c = await(nodes.gwA().node().runtime().context().tokens().authenticate(first));
      await(nodes.a().gw().node().runtime().context().tokens().revoke(c.tokenId().orElseThrow(), "test"));
      assertThat(a1.next(2_000).hasShutdown()).isTrue();
      assertThat(a1.awaitEnd().status()).isEqualTo(GrpcStatus.UNAUTHENTICATED);
      assertThat(a2.poll(500)).as("the other token's stream stays").isNull();
      assertThat(a2.ended()).isFalse();
    }
  }

  @Test
  void deletingAPacksPrincipalEndsItsRegistration() {
    Principal packPrincipal = nodes.gwA().newPrincipal(PrincipalType.PACK, "doomed-pack", PrincipalStatus.APPROVED, List.of());
    try (RawPack pack = nodes.b().registerPack(nodes.gwA().token(packPrincipal), RawPack.manifest("doomed-pack", RawPack.tool("doomed_tool")))) {
      long t0 = System.nanoTime();
      deletePrincipal(nodes.a().gw().admin(), packPrincipal.id());
      RawPack.End end = pack.awaitEnd();
      assertThat(end.status()).isEqualTo(GrpcStatus.UNAUTHENTICATED);
      assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(2_000);
    }
  }

  private static void deletePrincipal(Clients admin, UUID id) {
    var outcome = admin.grpc().unary(AdminServiceGrpcClient.DeletePrincipal, DeletePrincipalRequest.newBuilder().setId(id.toString()).build(),
      admin.authorization());
    assertThat(outcome.status()).isEqualTo(GrpcStatus.OK);
  }
}
