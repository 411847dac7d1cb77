package dev.conclave.gateway.mailbox;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.commit.LedgerWriter;
import dev.conclave.gateway.ledger.Entries;
import dev.conclave.gateway.ledger.LedgerEntry;
import dev.conclave.gateway.model.RequestRecord;
import dev.conclave.gateway.model.RequestState;
import dev.conclave.gateway.routing.AgentRouter;
import dev.conclave.gateway.store.BindingStore;
import dev.conclave.gateway.store.LedgerStore;
import dev.conclave.gateway.store.RequestStore;
import dev.conclave.gateway.store.Routes;
import dev.conclave.platform.db.sql.NamedStatement;
import dev.conclave.platform.db.sql.SqlFile;
import dev.conclave.platform.tracing.TraceContexts;
import dev.conclave.platform.access.AgentAccess;
import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.Caller;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;

import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/**
 * Accepts clients' messages into agents' mailboxes: checks them, finds the agent, and writes them with
 * its own statement ({@code mailbox.sql}'s EnqueueWithInbound), so a message goes from its edge
 * handler through this class to its INSERT (MessagePathTest keeps it so). Acceptance is durable before
 * it is answered: the request and its ledger entry commit in one statement (sharing a transaction with
 * other writes through the {@link LedgerWriter}, and dispatched in it when the agent's session here is
 * idle: {@link Sessions}), and the (principal, idempotency key) unique constraint decides duplicates
 * atomically, however many connections race. Where a conversation goes is remembered
 * ({@link RouteMemory}) and checked by the write itself, as is the caller's access to the agent, so a
 * message costs one statement, not lookups and a write.
 */
public final class Mailbox {

  /** The outcome of a send: a new request, or a repeat of an earlier one. */
  public record Accepted(boolean duplicate, Optional<UUID> requestId, String agentId) {
  }

  /** A request to queue: what a client sent, and who sent it. */
  public record NewRequest(UUID id, UUID principalId, String sender, String idempotencyKey, String content, Optional<byte[]> attachments,
                           Optional<String> traceContext) {

    /** A request sent outside a trace. */
    public NewRequest(UUID id, UUID principalId, String sender, String idempotencyKey, String content, Optional<byte[]> attachments) {
      this(id, principalId, sender, idempotencyKey, content, attachments, Optional.empty());
    }
  }

  /** The session a new request may be dispatched to at once: its epoch, on node {@code node}. */
  public record DispatchTo(long epoch, String node) {
  }

  /**
   * What the message's statement did: whether the conversation still routes to the agent and whether
   * the sender may act on it (unless both, nothing was written), the inbound entry's sequence number
   * (empty when nothing was written: also when the (principal, idempotency key) was used before), and
   * the request when it was dispatched at once (then nobody needs to wake the agent).
   */
  public record Enqueued(boolean routed, boolean allowed, Optional<Long> firstSeq, Optional<RequestRecord> dispatched) {
  }

  /**
   * This node's agent sessions, as the mailbox needs them: the session of the message's agent, when it
   * is here, decides whether the message's statement also dispatches it to that session (it is idle
   * with nothing queued) and runs it; with no session here the statement runs without a dispatch.
   */
  public interface Sessions {
    Future<Enqueued> write(String agentId, Function<Optional<DispatchTo>, Future<Enqueued>> statement);
  }

  private static final NamedStatement ENQUEUE_WITH_INBOUND = SqlFile.of(Mailbox.class, "mailbox.sql").get("EnqueueWithInbound");
  private static final int MAX_KEY = 300;
  /** Lookups for one message whose conversation keeps being routed elsewhere before the message is written. */
  private static final int ROUTE_LOOKUPS = 3;

  private final LedgerWriter writer;
  private final LedgerStore ledger;
  private final Sessions sessions;
  private final BindingStore bindings;
  private final AgentAccess access;
  private final AgentRouter router;
  private final Clock clock;
  private final RouteMemory memory = new RouteMemory();

  public Mailbox(LedgerWriter writer, LedgerStore ledger, Sessions sessions, BindingStore bindings, AgentAccess access, AgentRouter router,
                 Clock clock) {
    this.writer = writer;
    this.ledger = ledger;
    this.sessions = sessions;
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
   * Writes the message for {@code agentId} in the agent's lane of the ledger writer, dispatched at once
   * when its session here is idle; empty when the conversation no longer routes there, and nothing was
   * written. Fails PERMISSION_DENIED when the caller may not act on that agent.
   */
  private Future<Optional<Accepted>> write(Caller caller, ClientSendMessageRequest message, String agentId, String from) {
    String key = message.getConversationKey();
    UUID id = UUID.randomUUID();
    LedgerEntry inbound = Entries.inbound(id, from, caller.principalId(), message.getContent(), clock.instant());
    List<LedgerEntry> entries = List.of(inbound);
    NewRequest request = new NewRequest(id, caller.principalId(), from, message.getIdempotencyKey(),
      message.getContent(), Attachments.encode(message.getAttachmentsList()), TraceContexts.current());
    boolean admin = caller.isAdmin();
    // (the statement is published after commit: its inbound entry, when it wrote one)
    return sessions.write(agentId, dispatch -> writer.writeStatement(agentId, tx -> tx.appending(key, entries,
        sql -> enqueueWithInbound(sql, ledger, key, agentId, entries, request, dispatch, admin), Enqueued::firstSeq)))
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
        if (written.dispatched().isEmpty()) {
          router.wake(agentId);
        }
        return Future.succeededFuture(Optional.of(new Accepted(false, Optional.of(id), agentId)));
      });
  }

  /**
   * The message's statement (inside the caller's transaction): queues the request and appends its
   * inbound entry ({@code entries}, that one) if the conversation still routes to {@code agentId} and
   * the request's principal may act on that agent (any agent, with {@code admin}); with
   * {@code dispatch}, dispatches it to that session in the same statement when the agent is idle with
   * an empty queue (see {@code mailbox.sql}). Two sessions dispatching at once fail one statement on
   * the one-in-flight index ({@link RequestStore#lostDispatchRace}). Refuses an entry too large.
   */
  public static Future<Enqueued> enqueueWithInbound(SqlClient tx, LedgerStore ledger, String conversationKey, String agentId,
                                                    List<LedgerEntry> entries, NewRequest request, Optional<DispatchTo> dispatch,
                                                    boolean admin) {
    NamedStatement.Binding enqueue;
    try {
      enqueue = ledger.bindEntries(ENQUEUE_WITH_INBOUND, conversationKey, agentId, entries)
        .with("request_id", request.id()).with("principal_id", request.principalId()).with("sender", request.sender())
        .with("idempotency_key", request.idempotencyKey()).with("content", request.content())
        .with("attachments", request.attachments().map(Buffer::buffer).orElse(null))
        .with("dispatch_epoch", dispatch.map(DispatchTo::epoch).orElse(null)).with("dispatch_node", dispatch.map(DispatchTo::node).orElse(null))
        .with("frontend", Routes.frontend(conversationKey).orElse(null)).with("channel", Routes.channel(conversationKey).orElse(null))
        .with("admin", admin).with("trace_context", request.traceContext().orElse(null));
    } catch (RuntimeException tooLarge) {
      return Future.failedFuture(tooLarge);
    }
    return enqueue.execute(tx).map(rows -> {
      Row r = rows.iterator().next();
      // (a repeated key wrote no request: its columns are null)
      boolean dispatched = RequestState.DISPATCHED.id().equals(r.getString("state"));
      return new Enqueued(r.getBoolean("routed"), r.getBoolean("allowed"), Optional.ofNullable(r.getLong("first_seq")),
        dispatched ? Optional.of(RequestStore.map(r)) : Optional.empty());
    });
  }
}
