package dev.conclave.gateway.clientsession;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.control.Approvals;
import dev.conclave.gateway.control.Cancellation;
import dev.conclave.gateway.mailbox.Mailbox;
import dev.conclave.gateway.store.RequestStore;
import dev.conclave.platform.access.AgentAccess;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.proto.coven.ApproveToolRequest;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import io.vertx.core.Future;

import java.util.Optional;
import java.util.UUID;

/**
 * A session's tasks as gateway requests: {@code user_input} queues one in the session's conversation,
 * {@code interrupt} cancels it, {@code exec_approval} decides its tool calls. The session keeps which
 * task is its own; this holds no state of a session. One per node, shared by its sessions.
 */
public final class TaskOps {

  /** The prefix of a session task's idempotency key, {@code ui:<session id>:<submission id>}. */
  private static final String KEY_PREFIX = "ui:";
  private static final int KEY_HEAD = KEY_PREFIX.length() + 36 + 1;

  private final Mailbox mailbox;
  private final Cancellation cancellation;
  private final Approvals approvals;
  private final RequestStore requests;
  private final AgentAccess agents;

  public TaskOps(Mailbox mailbox, Cancellation cancellation, Approvals approvals, RequestStore requests, AgentAccess agents) {
    this.mailbox = mailbox;
    this.cancellation = cancellation;
    this.approvals = approvals;
    this.requests = requests;
    this.agents = agents;
  }

  /** Queues a task; answers its request. A submission id the session used before is refused. */
  Future<UUID> submit(Caller caller, UUID sessionId, String conversationKey, String subId, String content) {
    return mailbox.send(caller, ClientSendMessageRequest.newBuilder().setConversationKey(conversationKey)
        .setContent(content).setIdempotencyKey(KEY_PREFIX + sessionId + ":" + subId).build())
      .compose(accepted -> accepted.duplicate() || accepted.requestId().isEmpty()
        ? Future.failedFuture(GatewayErrors.badSubmission("submission id '" + subId + "' was already used in this session"))
        : Future.succeededFuture(accepted.requestId().get()));
  }

  /** Whether a request is known and has not ended (a resumed session's task is still running). */
  Future<Boolean> running(UUID request) {
    return requests.find(request).map(r -> r.isPresent() && !r.get().state().ended());
  }

  /** Succeeds when {@code responseId} names a request of the conversation (a {@code last_response_id} bookmark). */
  Future<Void> checkBookmark(String conversationKey, String responseId) {
    Optional<UUID> request = ResponseIds.request(responseId);
    if (request.isEmpty()) {
      return Future.failedFuture(GatewayErrors.unknownResponseId(responseId));
    }
    return requests.find(request.get()).compose(r -> r.isPresent() && r.get().conversationKey().equals(conversationKey)
      ? Future.succeededFuture() : Future.failedFuture(GatewayErrors.unknownResponseId(responseId)));
  }

  /** Cancels a task's request (at the agent, when it is in flight); one that already ended is left alone. */
  Future<Void> abort(Caller caller, UUID request, String reason) {
    return requests.find(request).compose(r -> r.isEmpty() || r.get().state().ended() ? Future.succeededFuture()
      : cancellation.cancel(caller, r.get(), reason).<Void>mapEmpty()
        .recover(err -> err instanceof ConclaveException ce && ce.code().equals("request_finished")
          ? Future.succeededFuture() : Future.failedFuture(err)));
  }

  /** Decides a tool call of the agent's ({@code callId}: the {@code call_id} of its {@code exec_approval_request}). */
  Future<Void> approve(Caller caller, String agentId, String callId, Submissions.Decision d) {
    ApproveToolRequest request = ApproveToolRequest.newBuilder().setAgentId(agentId).setToolId(callId)
      .setApproved(d.approved()).setApproveAll(d.forSession()).build();
    return agents.require(caller, agentId).compose(v -> approvals.decide(caller, request))
      .compose(r -> r.getSuccess() || r.getError().startsWith("decision recorded") ? Future.<Void>succeededFuture()
        : Future.failedFuture(GatewayErrors.approvalRefused(r.getError())));
  }

  /** The submission id of the {@code user_input} that started a request: kept in its idempotency key (else the request id). */
  Future<String> subIdOf(UUID request) {
    return requests.idempotencyKey(request).map(key -> key.filter(k -> k.startsWith(KEY_PREFIX) && k.length() > KEY_HEAD)
      .map(k -> k.substring(KEY_HEAD)).orElse(request.toString()));
  }
}
