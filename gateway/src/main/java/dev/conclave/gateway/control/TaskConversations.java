package dev.conclave.gateway.control;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.mailbox.Mailbox;
import dev.conclave.gateway.store.AgentStore;
import dev.conclave.gateway.store.BindingStore;
import dev.conclave.platform.access.AgentAccess;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.auth.Roles;
import dev.conclave.platform.swarm.TaskConversationOps;
import dev.conclave.platform.swarm.TaskConversationOps.Open;
import dev.conclave.platform.swarm.TaskConversationOps.Opened;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import io.vertx.core.Future;

import java.time.Clock;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * A claimed swarm task becomes a conversation: the coordinator, which has checked that the agent
 * holds the task and that the principal acts for that swarm agent, hands over the task's prompt; here
 * the gateway checks that the same principal may act on the gateway agent of that id (the agent's own
 * principal, its owner, a grantee, an admin: {@link AgentAccess}), binds {@code swarm:<taskId>} to
 * the agent, and writes the prompt to the agent's mailbox as an ordinary message from
 * {@value TaskConversationOps#SENDER}. From there it is queued, dispatched, recorded in the ledger and
 * followed like any conversation; its tool approvals go to whoever may act on the agent.
 */
public final class TaskConversations {

  /** A conversation key is at most 300 characters (the mailbox's rule): {@code swarm:} and the task id. */
  private static final int MAX_TASK_ID = 300 - TaskConversationOps.FRONTEND.length() - 1;

  private final AgentStore agents;
  private final BindingStore bindings;
  private final Mailbox mailbox;
  private final AgentAccess access;
  private final Clock clock;

  public TaskConversations(AgentStore agents, BindingStore bindings, Mailbox mailbox, AgentAccess access, Clock clock) {
    this.agents = agents;
    this.bindings = bindings;
    this.mailbox = mailbox;
    this.access = access;
    this.clock = clock;
  }

  public Future<Opened> open(Open open) {
    if (open.taskId().isBlank() || open.taskId().length() > MAX_TASK_ID) {
      return Future.failedFuture(GatewayErrors.invalid("taskId", "must be 1 to " + MAX_TASK_ID + " characters"));
    }
    if (open.agentId().isBlank()) {
      return Future.failedFuture(GatewayErrors.required("agentId"));
    }
    String key = TaskConversationOps.conversationKey(open.taskId());
    // the principal the coordinator vouches for; only its id and whether it is an admin matter here
    Caller caller = new Caller(open.principalId(), PrincipalType.AGENT, open.admin() ? Set.of(Roles.ADMIN) : Set.of(),
      Optional.empty(), clock.instant().plusSeconds(60));
    ClientSendMessageRequest message = ClientSendMessageRequest.newBuilder().setConversationKey(key).setContent(open.content())
      .setIdempotencyKey(open.idempotencyKey()).build();
    return agents.find(open.agentId())
      .compose(found -> found.isPresent() ? access.require(caller, open.agentId())
        : Future.failedFuture(GatewayErrors.agentUnknown(open.agentId())))
      .compose(v -> bindings.bindTo(TaskConversationOps.FRONTEND, open.taskId(), open.agentId(), TaskConversationOps.SENDER))
      .compose(v -> mailbox.send(caller, message, Optional.of(TaskConversationOps.SENDER)))
      .map(accepted -> new Opened(key, accepted.requestId().map(UUID::toString), accepted.duplicate()));
  }
}
