package dev.conclave.gateway.mailbox;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.commit.LedgerWriter;
import dev.conclave.gateway.ledger.Entries;
import dev.conclave.gateway.ledger.LedgerEntry;
import dev.conclave.gateway.routing.AgentRouter;
import dev.conclave.gateway.store.BindingStore;
import dev.conclave.gateway.store.LedgerStore;
import dev.conclave.platform.tracing.TraceContexts;
import dev.conclave.platform.access.AgentAccess;
import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.Caller;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import io.vertx.core.Future;

import java.time.Clock;
import java.util.Optional;
import java.util.UUID;

/**
 * Accepts clients' messages into agents' mailboxes. Acceptance is durable before it is answered:
 * the request and its ledger entry commit in one transaction (shared with other writes by the
 * {@link LedgerWriter}, and with the agent's dispatch when its session here is idle: {@link Handoff}), and the (principal, idempotency key)
 * unique constraint decides duplicates atomically, however many connections race. Where a
 * conversation goes is remembered ({@link RouteMemory}) and checked by the write itself, as is the
 * caller's access to the agent, so a message costs one statement, not lookups and a write.
 */
public final class Mailbox {

  /** The outcome of a send: a new request, or a repeat of an earlier one. */
  public record Accepted(boolean duplicate, Optional<UUID> requestId, String agentId) {
  }

  private static final int MAX_KEY = 300;
  /** Lookups for one message whose conversation keeps being routed elsewhere before the message is written. */
  private static final int ROUTE_LOOKUPS = 3;

  private final Handoff writer;
  private final BindingStore bindings;
  private final AgentAccess access;
  private final AgentRouter router;
  private final Clock clock;
  private final RouteMemory memory = new RouteMemory();

  public Mailbox(Handoff writer, BindingStore bindings, AgentAccess access, AgentRouter router, Clock clock) {
    this.writer = writer;
    this.bindings = bindings;
    this.access = access;
    this.router = router;
    this.clock = clock;
  }

  public Future<Accepted> send(Caller caller, ClientSendMessageRequest message) {
    return send(caller, message, Optional.empty());
  }

  /** Accepts a message whose sender is shown as {@code sender} rather than the caller's name. */
  public Future<Accepted> send(Caller caller, ClientSendMessageRequest message, Optional<String> sender) {
    String key = message.getConversationKey();
    String idem = message.getIdempotencyKey();
    if (idem.isEmpty()) {
      return Future.failedFuture(GatewayErrors.required("idempotency_key"));
    }
    if (idem.length() > 100) {
      return Future.failedFuture(GatewayErrors.invalid("idempotency_key", "must be 1 to 100 characters, got " + idem.length()));
    }
    if (key.isBlank()) {
      return Future.failedFuture(GatewayErrors.required("conversation_key"));
    }
    if (key.length() > MAX_KEY) {
      return Future.failedFuture(GatewayErrors.invalid("conversation_key", "must be at most " + MAX_KEY + " characters"));
    }
    if (message.getContent().isEmpty() && message.getAttachmentsCount() == 0) {
      return Future.failedFuture(GatewayErrors.required("content"));
    }
    return viaMemory(caller, message, sender);
  }

  /**
   * Writes the message to the agent this node remembers the conversation going to, under the name it
   * remembers the caller by, without a lookup: the write checks the route and the caller's access to
   * the agent. A route that no longer holds (another agent's binding, a retired agent) is looked up
   * again: the conversation may go elsewhere now.
   */
  private Future<Accepted> viaMemory(Caller caller, ClientSendMessageRequest message, Optional<String> sender) {
    String key = message.getConversationKey();
    Optional<String> agentId = memory.agentOf(key);
    Optional<String> from = sender.or(() -> memory.nameOf(caller.principalId()));
    if (agentId.isEmpty() || from.isEmpty()) {
      return viaLookup(caller, message, sender, 1);
    }
    return write(caller, message, agentId.get(), from.get()).compose(accepted -> {
      if (accepted.isPresent()) {
        return Future.succeededFuture(accepted.get());
      }
      memory.forget(key);
      return viaLookup(caller, message, sender, 1);
    });
  }

  /** Looks the conversation's agent and the caller's name up, then writes; again when the route moved in between. */
  private Future<Accepted> viaLookup(Caller caller, ClientSendMessageRequest message, Optional<String> sender, int attempt) {
    String key = message.getConversationKey();
    return bindings.route(key, caller.principalId()).compose(route -> {
      if (route.agentId().isEmpty()) {
        return Future.failedFuture(GatewayErrors.unknownConversation(key));
      }
      String agentId = route.agentId().get();
      return access.require(caller, agentId).compose(v -> route.agentRetired()
        ? Future.failedFuture(GatewayErrors.agentRetired(agentId)) : Future.succeededFuture(route));
    }).compose(route -> {
      String agentId = route.agentId().orElseThrow();
      String name = route.senderName().orElse(caller.principalId().toString());
      memory.remember(key, agentId, caller.principalId(), name);
      return write(caller, message, agentId, sender.orElse(name));
    }).compose(accepted -> {
      if (accepted.isPresent()) {
        return Future.succeededFuture(accepted.get());
      }
      memory.forget(key);
      return attempt < ROUTE_LOOKUPS ? viaLookup(caller, message, sender, attempt + 1)
        : Future.failedFuture(GatewayErrors.routeMoving(key));
    });
  }

  /**
   * Writes the message for {@code agentId}; empty when the conversation no longer routes there, and
   * nothing was written. Fails PERMISSION_DENIED when the caller may not act on that agent.
   */
  private Future<Optional<Accepted>> write(Caller caller, ClientSendMessageRequest message, String agentId, String from) {
    String key = message.getConversationKey();
    UUID id = UUID.randomUUID();
    LedgerEntry inbound = Entries.inbound(id, from, caller.principalId(), message.getContent(), clock.instant());
    LedgerStore.NewRequest request = new LedgerStore.NewRequest(id, caller.principalId(), from, message.getIdempotencyKey(),
      message.getContent(), Attachments.encode(message.getAttachmentsList()), TraceContexts.current());
    return writer.write(agentId, new Handoff.Message(key, inbound, request, caller.isAdmin()))
      .compose(written -> {
        if (!written.routed()) {
          return Future.succeededFuture(Optional.empty());
        }
        if (!written.allowed()) {
          return Future.failedFuture(AuthErrors.noAgentAccess(agentId));
        }
        if (written.firstSeq().isEmpty()) {
          return Future.succeededFuture(Optional.of(new Accepted(true, Optional.empty(), agentId)));
        }
        if (!written.dispatched()) {
          router.wake(agentId);
        }
        return Future.succeededFuture(Optional.of(new Accepted(false, Optional.of(id), agentId)));
      });
  }
}
