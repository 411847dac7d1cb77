package dev.conclave.gateway.api;

import com.google.protobuf.Empty;
import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.control.Approvals;
import dev.conclave.gateway.control.Questions;
import dev.conclave.gateway.directory.AgentDirectory;
import dev.conclave.gateway.directory.ConversationAccess;
import dev.conclave.gateway.ledger.EventCursors;
import dev.conclave.gateway.ledger.LedgerEvent;
import dev.conclave.gateway.ledger.LedgerViews;
import dev.conclave.gateway.mailbox.Mailbox;
import dev.conclave.gateway.store.ApprovalStore;
import dev.conclave.gateway.store.LedgerStore;
import dev.conclave.gateway.store.QuestionStore;
import dev.conclave.gateway.streaming.ConversationFollower;
import dev.conclave.gateway.streaming.Followers;
import dev.conclave.platform.access.AgentAccess;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.auth.AuthErrors;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.auth.PrincipalStatus;
import dev.conclave.platform.auth.PrincipalStore;
import dev.conclave.platform.auth.PrincipalType;
import dev.conclave.platform.auth.Roles;
import dev.conclave.platform.config.NodeSettings;
import dev.conclave.platform.errors.ConclaveException;
import dev.conclave.platform.server.EdgeSecurity;
import dev.conclave.platform.server.GrpcEndpoint;
import dev.conclave.platform.server.GrpcFailures;
import dev.conclave.proto.coven.ClientSendMessageResponse;
import dev.conclave.proto.coven.ClientServiceGrpcService;
import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.GetEventsRequest;
import dev.conclave.proto.coven.GetEventsResponse;
import dev.conclave.proto.coven.ListAgentsResponse;
import dev.conclave.proto.coven.MeResponse;
import dev.conclave.proto.coven.RegisterAgentResponse;
import dev.conclave.proto.coven.RegisterClientResponse;
import dev.conclave.proto.coven.StreamEventsRequest;
import io.micrometer.core.instrument.Counter;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.Service;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/** {@code coven.ClientService}: what people and their tools use. Needs the member role (GetMe excepted). */
public final class ClientServiceEndpoint {

  private static final Pattern FINGERPRINT = Pattern.compile("[0-9a-fA-F]{64}");
  private static final int DEFAULT_LIMIT = 50;
  private static final int MAX_LIMIT = 500;
  /** A GetEvents page also stops at this many bytes; with events no larger, a page stays under the 4 MiB gRPC clients accept. */
  static final int MAX_PAGE_BYTES = NodeSettings.MAX_EVENT_BYTES_CEILING;

  private final Mailbox mailbox;
  private final LedgerStore ledger;
  private final Approvals approvals;
  private final Questions questions;
  private final AgentDirectory directory;
  private final ConversationAccess conversations;
  private final AgentAccess access;
  private final PrincipalStore principals;
  private final EdgeSecurity edge;
  private final EventStreams streams;

  public ClientServiceEndpoint(Mailbox mailbox, LedgerStore ledger, Approvals approvals, Questions questions, AgentDirectory directory,
                               ConversationAccess conversations, PrincipalStore principals, EdgeSecurity edge, EventStreams streams) {
    this.mailbox = mailbox;
    this.ledger = ledger;
    this.approvals = approvals;
    this.questions = questions;
    this.directory = directory;
    this.conversations = conversations;
    this.access = conversations.agents();
    this.principals = principals;
    this.edge = edge;
    this.streams = streams;
  }

  public Service service() {
    return GrpcEndpoint.service(ClientServiceGrpcService.SERVICE_NAME, ClientServiceGrpcService.SERVICE_DESCRIPTOR, edge)
      .unary(ClientServiceGrpcService.GetMe, Audience.ANY_PRINCIPAL, Resource.SELF, (caller, empty) -> getMe(caller))
      .unary(ClientServiceGrpcService.SendMessage, Audience.MEMBERS, Resource.AGENT, (caller, req) -> mailbox.send(caller, req)
        .map(accepted -> ClientSendMessageResponse.newBuilder()
          .setStatus(accepted.duplicate() ? "duplicate" : "accepted")
          .setMessageId(accepted.requestId().map(UUID::toString).orElse("")).build()))
      .unary(ClientServiceGrpcService.GetEvents, Audience.MEMBERS, Resource.AGENT, (caller, req) -> req.getConversationKey().isBlank()
        ? Future.failedFuture(GatewayErrors.required("conversation_key"))
        : conversations.require(caller, req.getConversationKey()).compose(v -> getEvents(req)))
      .serverStreaming(ClientServiceGrpcService.StreamEvents, Audience.MEMBERS, Resource.AGENT, streams::follow)
      .unary(ClientServiceGrpcService.ListAgents, Audience.MEMBERS, Resource.AGENT, (caller, req) -> directory.list(caller,
          req.hasWorkspace() && !req.getWorkspace().isEmpty() ? Optional.of(req.getWorkspace()) : Optional.empty())
        .map(agents -> ListAgentsResponse.newBuilder().addAllAgents(agents).build()))
      .unary(ClientServiceGrpcService.RegisterAgent, Audience.MEMBERS, Resource.NONE, (caller, req) ->
        register(caller, PrincipalType.AGENT, req.getDisplayName(), req.getFingerprint())
          .map(p -> RegisterAgentResponse.newBuilder().setPrincipalId(p.id().toString()).setStatus(p.status().wire()).build()))
      .unary(ClientServiceGrpcService.RegisterClient, Audience.MEMBERS, Resource.NONE, (caller, req) ->
        register(caller, PrincipalType.CLIENT, req.getDisplayName(), req.getFingerprint())
          .map(p -> RegisterClientResponse.newBuilder().setPrincipalId(p.id().toString()).setStatus(p.status().wire()).build()))
      .unary(ClientServiceGrpcService.ApproveTool, Audience.MEMBERS, Resource.AGENT, (caller, req) -> req.getAgentId().isEmpty()
        ? approvals.decide(caller, req) : access.require(caller, req.getAgentId()).compose(v -> approvals.decide(caller, req)))
      .unary(ClientServiceGrpcService.AnswerQuestion, Audience.MEMBERS, Resource.AGENT, (caller, req) -> req.getAgentId().isBlank()
        ? questions.answer(caller, req) : access.require(caller, req.getAgentId()).compose(v -> questions.answer(caller, req)))
      .build();
  }

  private Future<MeResponse> getMe(Caller caller) {
    return principals.find(caller.principalId()).map(found -> {
      var p = found.orElseThrow(() -> AuthErrors.unknownPrincipal(caller.principalId().toString()));
      return MeResponse.newBuilder()
        .setPrincipalId(p.id().toString())
        .setPrincipalType(p.type().wire())
        .setDisplayName(p.displayName())
        .setStatus(p.status().wire())
        .addAllRoles(p.roles())
        .build();
    });
  }

  private Future<GetEventsResponse> getEvents(GetEventsRequest req) {
    if (req.getConversationKey().isBlank()) {
      return Future.failedFuture(GatewayErrors.required("conversation_key"));
    }
    int limit = req.hasLimit() ? req.getLimit() : DEFAULT_LIMIT;
    if (limit < 1 || limit > MAX_LIMIT) {
      return Future.failedFuture(GatewayErrors.invalid("limit", "must be between 1 and " + MAX_LIMIT + ", got " + limit));
    }
    long after = req.hasCursor() && !req.getCursor().isEmpty() ? EventCursors.parseCursor(req.getCursor()) : 0L;
    Optional<Instant> since = req.hasSince() && !req.getSince().isEmpty() ? Optional.of(EventCursors.parseTime("since", req.getSince())) : Optional.empty();
    Optional<Instant> until = req.hasUntil() && !req.getUntil().isEmpty() ? Optional.of(EventCursors.parseTime("until", req.getUntil())) : Optional.empty();
    return ledger.page(req.getConversationKey(), after, since, until, limit + 1).map(events -> {
      GetEventsResponse.Builder b = GetEventsResponse.newBuilder();
      int bytes = 0;
      long lastSeq = after;
      int taken = 0;
      for (LedgerEvent e : events) {
        if (taken == limit) {
          break;
        }
        dev.conclave.proto.coven.Event event = LedgerViews.historyEvent(e);
        if (taken > 0 && bytes + event.getSerializedSize() > MAX_PAGE_BYTES) {
          break;
        }
        b.addEvents(event);
        bytes += event.getSerializedSize();
        lastSeq = e.seq();
        taken++;
      }
      boolean more = taken < events.size();
      b.setHasMore(more);
      if (more) {
        b.setNextCursor(EventCursors.cursorAfter(lastSeq));
      }
      return b.build();
    });
  }

  private Future<dev.conclave.platform.auth.Principal> register(Caller caller, PrincipalType type, String name, String fingerprint) {
    try {
      DisplayNames.check("display_name", name);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    if (!FINGERPRINT.matcher(fingerprint).matches()) {
      return Future.failedFuture(GatewayErrors.invalid("fingerprint", "must be a SHA-256 fingerprint: 64 hexadecimal characters"));
    }
    String fp = fingerprint.toLowerCase();
    // an admin's registrations are approved; anyone else's wait for an admin
    PrincipalStatus status = caller.isAdmin() ? PrincipalStatus.APPROVED : PrincipalStatus.PENDING;
    List<String> roles = type == PrincipalType.CLIENT ? List.of(Roles.MEMBER) : List.of();
    return principals.findByFingerprint(type, fp).compose(existing -> existing.isPresent()
      ? Future.failedFuture(GatewayErrors.fingerprintTaken())
      : principals.create(UUID.randomUUID(), type, name, status, roles, Optional.of(fp),
          type == PrincipalType.AGENT ? Optional.of(caller.principalId()) : Optional.empty())
        .recover(err -> Future.failedFuture(dev.conclave.platform.db.PgErrors.uniqueViolation(err) ? GatewayErrors.fingerprintTaken() : err)));
  }
}
