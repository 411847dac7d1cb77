package dev.conclave.gateway.access;

import dev.conclave.gateway.support.GatewayFixture;
import dev.conclave.gateway.support.RawAgent;
import dev.conclave.platform.access.AgentAccess;
import dev.conclave.platform.auth.Principal;
import dev.conclave.proto.coven.AdminServiceGrpcClient;
import dev.conclave.proto.coven.CreateBindingRequest;
import dev.conclave.proto.coven.Done;
import dev.conclave.proto.coven.MessageResponse;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.sqlclient.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The access rule is written more than once: as an expression ({@link AgentAccess#allows}), written
 * out again inside the statement that stores a client's message (the gateway's {@code mailbox/mailbox.sql}),
 * and as the batch statement ({@link AgentAccess#check}, {@code access.sql}) that every check and every
 * re-check of open followers asks. This keeps them in agreement, on every kind of principal and agent,
 * and pins what a conversation's readers are.
 */
class AccessRuleTest {

  private static GatewayFixture gw;
  private static Principal owner;
  private static Principal grantee;
  private static Principal stranger;
  private static Principal other;
  private static UUID ownedPrincipal;
  private static UUID unownedPrincipal;
  private static RawAgent owned;
  private static RawAgent unowned;
  private static RawAgent others;

  @BeforeAll
  static void start() {
    gw = GatewayFixture.start();
    owner = gw.newMember("ar-owner");
    grantee = gw.newMember("ar-grantee");
    stranger = gw.newMember("ar-stranger");
    other = gw.newMember("ar-other");
    owned = gw.connect("ar-owned", gw.agentTokenOwnedBy("ar-owned", owner.id()));
    unowned = gw.connect("ar-unowned", gw.agentToken("ar-unowned"));
    others = gw.connect("ar-others", gw.agentTokenOwnedBy("ar-others", other.id()));
    ownedPrincipal = principalOf("ar-owned");
    unownedPrincipal = principalOf("ar-unowned");
    sql("INSERT INTO auth.agent_grants (agent_principal_id, grantee_id, granted_by) VALUES ($1, $2, $3)", ownedPrincipal, grantee.id(), owner.id());
  }

  @AfterAll
  static void stop() {
    owned.close();
    unowned.close();
    others.close();
    gw.close();
  }

  @Test
  void theBatchStatementAndTheWriteStatementsExpressionAgreeOnEveryAgent() {
    List<UUID> principals = List.of(owner.id(), grantee.id(), stranger.id(), other.id(), ownedPrincipal, unownedPrincipal);
    List<String> agents = List.of("ar-owned", "ar-unowned", "ar-others", "ar-unknown");
    List<AgentAccess.Question> questions = new ArrayList<>();
    for (UUID p : principals) {
      for (String a : agents) {
        questions.add(new AgentAccess.Question(p, a, null));
      }
    }
    List<AgentAccess.Verdict> verdicts = GatewayFixture.await(access().check(questions));
    Map<String, Boolean> byStatement = new LinkedHashMap<>();
    Map<String, Boolean> byExpression = new LinkedHashMap<>();
    for (int i = 0; i < questions.size(); i++) {
      AgentAccess.Question q = questions.get(i);
      String name = q.principal() + " on " + q.agentId();
      byStatement.put(name, verdicts.get(i).allowed());
      byExpression.put(name, GatewayFixture.await(gw.node().runtime().context().pool()
        .preparedQuery("SELECT " + AgentAccess.allows("$1", "$2") + " AS allowed").execute(Tuple.of(q.agentId(), q.principal())))
        .iterator().next().getBoolean("allowed"));
    }
    assertThat(byStatement).isEqualTo(byExpression);
    // and the rule is what the docs say: owner, grantee, the agent's own principal; nobody on an unknown agent
    assertThat(byStatement).containsEntry(owner.id() + " on ar-owned", true).containsEntry(grantee.id() + " on ar-owned", true)
      .containsEntry(ownedPrincipal + " on ar-owned", true).containsEntry(stranger.id() + " on ar-owned", false)
      .containsEntry(owner.id() + " on ar-others", false).containsEntry(unownedPrincipal + " on ar-unowned", true)
      .containsEntry(owner.id() + " on ar-unknown", false);
    assertThat(verdicts.get(0).roles()).containsExactly("member");
  }

  /**
   * The statement that stores a client's message writes the rule out again ({@code mailbox/mailbox.sql},
   * EnqueueWithInbound): its {@code allowed} agrees with the batch statement on every principal and
   * agent. Each message is written in a transaction that is rolled back.
   */
  @Test
  void theStatementThatStoresAMessageAgreesWithTheBatchStatement() {
    List<UUID> principals = List.of(owner.id(), grantee.id(), stranger.id(), other.id(), ownedPrincipal, unownedPrincipal);
    List<String> agents = List.of("ar-owned", "ar-unowned", "ar-others", "ar-unknown");
    List<AgentAccess.Question> questions = new ArrayList<>();
    for (UUID p : principals) {
      for (String a : agents) {
        questions.add(new AgentAccess.Question(p, a, null));
      }
    }
    List<AgentAccess.Verdict> verdicts = GatewayFixture.await(access().check(questions));
    var pool = gw.node().runtime().context().pool();
    var ledger = new dev.conclave.gateway.store.LedgerStore(pool, 1024 * 1024);
    Map<String, Boolean> byStatement = new LinkedHashMap<>();
    Map<String, Boolean> byWrite = new LinkedHashMap<>();
    for (int i = 0; i < questions.size(); i++) {
      AgentAccess.Question q = questions.get(i);
      String name = q.principal() + " on " + q.agentId();
      byStatement.put(name, verdicts.get(i).allowed());
      UUID id = UUID.randomUUID();
      var request = new dev.conclave.gateway.mailbox.Mailbox.NewRequest(id, q.principal(), "tester", "ar-write-" + id, "hello",
        java.util.Optional.empty());
      var inbound = dev.conclave.gateway.ledger.Entries.inbound(id, "tester", q.principal(), "hello", java.time.Instant.now());
      var conn = GatewayFixture.await(pool.getConnection());
      try {
        var tx = GatewayFixture.await(conn.begin());
        var enqueued = GatewayFixture.await(dev.conclave.gateway.mailbox.Mailbox.enqueueWithInbound(conn, ledger, q.agentId(), q.agentId(), java.util.List.of(inbound), request,
          java.util.Optional.empty(), false));
        GatewayFixture.await(tx.rollback());
        byWrite.put(name, enqueued.allowed());
      } finally {
        conn.close();
      }
    }
    assertThat(byWrite).isEqualTo(byStatement);
  }

  @Test
  void aConversationIsReadThroughEveryAgentItBelongsTo() {
    bind("ar", "fresh", "ar-owned");
    bind("ar", "used", "ar-owned");
    owner(gw).sendOk("ar:used", "hi", "ar-used-1");
    owned.respond(owned.next().getSendMessage().getRequestId(), MessageResponse.newBuilder().setDone(Done.getDefaultInstance()));
    // the binding of a conversation with events moves to another member's agent
    sql("UPDATE gateway.bindings SET agent_id = 'ar-others' WHERE frontend = 'ar' AND channel_id = 'used'");
    List<AgentAccess.Question> questions = List.of(
      new AgentAccess.Question(owner.id(), null, "ar-owned"),
      new AgentAccess.Question(stranger.id(), null, "ar-owned"),
      new AgentAccess.Question(grantee.id(), null, "ar:fresh"),
      new AgentAccess.Question(owner.id(), null, "ar:used"),
      new AgentAccess.Question(other.id(), null, "ar:used"),
      new AgentAccess.Question(owner.id(), null, "ar:unbound"),
      new AgentAccess.Question(owner.id(), "ar-owned", "ar:fresh"),
      new AgentAccess.Question(owner.id(), "ar-others", "ar:fresh"));
    assertThat(GatewayFixture.await(access().check(questions))).extracting(AgentAccess.Verdict::allowed)
      .as("own agent's; a stranger's; through a binding; moved: neither its first agent's nor its new agent's owner alone;"
        + " unbound and not an agent; agent and conversation both; one of the two not")
      .containsExactly(true, false, true, false, false, false, true, false);
  }

  private static AgentAccess access() {
    return gw.node().runtime().context().access();
  }

  private static dev.conclave.gateway.support.Clients owner(GatewayFixture f) {
    return f.clients(f.token(owner));
  }

  private static void bind(String frontend, String channel, String agentId) {
    var created = gw.admin().grpc().unary(AdminServiceGrpcClient.CreateBinding,
      CreateBindingRequest.newBuilder().setFrontend(frontend).setChannelId(channel).setAgentId(agentId).build(), gw.admin().authorization());
    assertThat(created.status()).isEqualTo(GrpcStatus.OK);
  }

  private static UUID principalOf(String agentId) {
    return GatewayFixture.await(gw.node().runtime().context().pool()
      .preparedQuery("SELECT principal_id FROM gateway.agents WHERE agent_id = $1").execute(Tuple.of(agentId))).iterator().next().getUUID(0);
  }

  private static void sql(String statement, Object... values) {
    GatewayFixture.await(gw.node().runtime().context().pool().preparedQuery(statement).execute(Tuple.from(values)));
  }
}
