package dev.conclave.gateway.control;

import dev.conclave.gateway.ledger.EventKind;
import dev.conclave.gateway.ledger.LedgerEvent;
import dev.conclave.gateway.mailbox.Mailbox;
import dev.conclave.gateway.presence.Presence;
import dev.conclave.gateway.store.LedgerStore;
import dev.conclave.gateway.store.RequestStore;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.errors.ErrorKind;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * {@code admin_send_message}: one agent prompts another and waits for its reply. The prompt is an
 * ordinary durable request in the target's own conversation (sender {@code admin:<agent>}), so it is
 * queued, dispatched and recorded like any other; the waiter polls the request until it ends.
 */
public final class AgentPrompts {

  static final long POLL_MS = 250;

  private final Vertx vertx;
  private final Mailbox mailbox;
  private final RequestStore requests;
  private final LedgerStore ledger;
  private final Presence presence;

  public AgentPrompts(Vertx vertx, Mailbox mailbox, RequestStore requests, LedgerStore ledger, Presence presence) {
    this.vertx = vertx;
    this.mailbox = mailbox;
    this.requests = requests;
    this.ledger = ledger;
    this.presence = presence;
  }

  /** Sends as {@code actor} (the calling agent's owner), shown as from {@code admin:<fromAgentId>}. */
  public Future<JsonObject> send(Caller actor, String target, String content, String fromAgentId, String idempotencyKey, Duration timeout) {
    if (target.isBlank()) {
      return Future.failedFuture(refused("agent_id is required"));
    }
    if (content.isBlank()) {
      return Future.failedFuture(refused("content is required"));
    }
    if (target.equals(fromAgentId)) {
      return Future.failedFuture(refused("an agent cannot send a message to itself: it would wait for its own reply"));
    }
    ClientSendMessageRequest message = ClientSendMessageRequest.newBuilder().setConversationKey(target).setContent(content)
      .setIdempotencyKey(idempotencyKey).build();
    return presence.get(target).compose(present -> {
      if (present.isEmpty()) {
        return Future.failedFuture(refused("sending message: agent '" + target + "' is not connected"));
      }
      return mailbox.send(actor, message, Optional.of("admin:" + fromAgentId));
    }).compose(accepted -> accepted.requestId().isEmpty()
      ? Future.failedFuture(refused("this message was already sent (same call id)"))
      : awaitEnd(accepted.requestId().get(), System.nanoTime() + timeout.toNanos(), timeout)
        .compose(v -> ledger.ofRequest(accepted.requestId().get()))
        .map(events -> reply(target, events)));
  }

  private Future<Void> awaitEnd(UUID requestId, long deadline, Duration timeout) {
    Promise<Void> ended = Promise.promise();
    poll(requestId, deadline, timeout, ended);
    return ended.future();
  }

  private void poll(UUID requestId, long deadline, Duration timeout, Promise<Void> ended) {
    requests.find(requestId).onComplete(ar -> {
      if (ar.succeeded() && ar.result().map(r -> r.state().ended()).orElse(false)) {
        ended.tryComplete();
      } else if (System.nanoTime() > deadline) {
        ended.tryFail(refused("the agent did not finish within " + timeout.toSeconds() + " s; its request " + requestId
          + " stays in its mailbox"));
      } else {
        vertx.setTimer(POLL_MS, t -> poll(requestId, deadline, timeout, ended));
      }
    });
  }

  private static JsonObject reply(String target, List<LedgerEvent> events) {
    StringBuilder text = new StringBuilder();
    Optional<String> full = Optional.empty();
    boolean done = false;
    for (LedgerEvent e : events) {
      if (e.kind() == EventKind.TEXT) {
        e.text().ifPresent(text::append);
      } else if (e.kind() == EventKind.DONE) {
        done = true;
        full = e.text();
      } else if (e.kind() == EventKind.ERROR) {
        throw refused("agent error: " + e.text().orElse("unknown error"));
      }
    }
    String response = done && full.isPresent() && !full.get().isEmpty() ? full.get() : text.toString();
    return new JsonObject().put("agent_id", target).put("done", done).put("response", response).put("status", "sent");
  }

  private static ConclaveException refused(String message) {
    return new ConclaveException(ErrorKind.FAILED_PRECONDITION, "tool_refused", message);
  }
}
