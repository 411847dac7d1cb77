package dev.conclave.gateway.ledger;

import dev.conclave.proto.coven.ClientStreamEvent;
import dev.conclave.proto.coven.ClientToolApprovalRequest;
import dev.conclave.proto.coven.Event;
import dev.conclave.proto.coven.MessageResponse;
import dev.conclave.proto.coven.StreamDone;
import dev.conclave.proto.coven.StreamError;
import dev.conclave.proto.coven.TextChunk;
import dev.conclave.proto.coven.ThinkingChunk;
import dev.conclave.proto.coven.UserQuestionRequest;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/** Builds ledger entries: from agents' events, and for what the gateway itself records. */
public final class Entries {

  public static final String GATEWAY_AUTHOR = "gateway";
  public static final String DISCONNECTED = "agent disconnected";
  public static final String RETIRED = "agent retired: it takes no more work";
  public static final String EVENTS_OUT_OF_STEP = "the gateway lost track of this request's events; send it again";

  private Entries() {
  }

  /** The client's message, appended when it is accepted. */
  public static LedgerEntry inbound(UUID requestId, String sender, UUID principalId, String content, Instant at) {
    ClientStreamEvent view = ClientStreamEvent.newBuilder()
      .setEvent(Event.newBuilder().setType("message").setDirection("inbound_to_agent").setAuthor(sender).setText(content))
      .build();
    return new LedgerEntry(Optional.of(requestId), EventKind.INBOUND, sender, Optional.of(content), view,
      Optional.empty(), Optional.of(principalId), at);
  }

  /**
   * An agent's event for its in-flight request, or empty when the event carries no payload.
   *
   * @param fullText the request's text so far, used for {@code StreamDone.full_response} when the
   *     agent's Done leaves it empty; empty when it was too large to assemble
   */
  public static Optional<LedgerEntry> fromAgent(MessageResponse r, String agentId, String agentName, UUID requestId, Instant at,
                                                Optional<String> fullText) {
    ClientStreamEvent.Builder view = ClientStreamEvent.newBuilder();
    EventKind kind;
    String text = null;
    byte[] raw = null;
    switch (r.getEventCase()) {
      case THINKING -> {
        kind = EventKind.THINKING;
        text = r.getThinking();
        view.setThinking(ThinkingChunk.newBuilder().setContent(text));
      }
      case TEXT -> {
        kind = EventKind.TEXT;
        text = r.getText();
        view.setText(TextChunk.newBuilder().setContent(text));
      }
      case TOOL_USE -> {
        kind = EventKind.TOOL_USE;
        text = r.getToolUse().getName() + " " + r.getToolUse().getInputJson();
        view.setToolUse(r.getToolUse());
      }
      case TOOL_RESULT -> {
        kind = EventKind.TOOL_RESULT;
        text = r.getToolResult().getOutput();
        view.setToolResult(r.getToolResult());
      }
      case TOOL_STATE -> {
        kind = EventKind.TOOL_STATE;
        text = r.getToolState().getId() + " " + r.getToolState().getState().name()
          + (r.getToolState().hasDetail() ? ": " + r.getToolState().getDetail() : "");
        view.setToolState(r.getToolState());
      }
      case USAGE -> {
        kind = EventKind.USAGE;
        text = "input=" + r.getUsage().getInputTokens() + " output=" + r.getUsage().getOutputTokens();
        view.setUsage(r.getUsage());
      }
      case TOOL_APPROVAL_REQUEST -> {
        kind = EventKind.TOOL_APPROVAL;
        text = r.getToolApprovalRequest().getName() + " " + r.getToolApprovalRequest().getInputJson();
        view.setToolApproval(ClientToolApprovalRequest.newBuilder()
          .setAgentId(agentId)
          .setRequestId(requestId.toString())
          .setToolId(r.getToolApprovalRequest().getId())
          .setToolName(r.getToolApprovalRequest().getName())
          .setInputJson(r.getToolApprovalRequest().getInputJson()));
      }
      case FILE -> {
        kind = EventKind.FILE;
        text = "file " + r.getFile().getFilename() + " (" + r.getFile().getMimeType() + ", " + r.getFile().getData().size() + " bytes)";
        view.setEvent(Event.newBuilder().setType("message").setText(text));
        raw = r.toByteArray();
      }
      case SESSION_INIT -> {
        kind = EventKind.SESSION_INIT;
        text = "backend session " + r.getSessionInit().getSessionId();
        view.setEvent(Event.newBuilder().setType("system").setText(text));
        raw = r.toByteArray();
      }
      case SESSION_ORPHANED -> {
        kind = EventKind.SESSION_ORPHANED;
        text = "backend session lost: " + r.getSessionOrphaned().getReason();
        view.setEvent(Event.newBuilder().setType("system").setText(text));
        raw = r.toByteArray();
      }
      case DONE -> {
        kind = EventKind.DONE;
        Optional<String> full = r.getDone().getFullResponse().isEmpty() ? fullText : Optional.of(r.getDone().getFullResponse());
        text = full.orElse("(full response not assembled: too large; it is in the text events)");
        StreamDone.Builder done = StreamDone.newBuilder();
        full.ifPresent(done::setFullResponse);
        view.setDone(done);
      }
      case ERROR -> {
        kind = EventKind.ERROR;
        text = r.getError();
        view.setError(StreamError.newBuilder().setMessage(text).setRecoverable(false));
      }
      case CANCELLED -> {
        kind = EventKind.CANCELLED;
        text = "cancelled: " + r.getCancelled().getReason();
        view.setError(StreamError.newBuilder().setMessage(text).setRecoverable(false));
      }
      default -> {
        return Optional.empty();
      }
    }
    return Optional.of(new LedgerEntry(Optional.of(requestId), kind, agentName, Optional.ofNullable(text), view.build(),
      Optional.ofNullable(raw), Optional.empty(), at));
  }

  /** The gateway ends a request with an error, for example because the agent disconnected. */
  public static LedgerEntry gatewayError(UUID requestId, String message, boolean recoverable, Instant at) {
    ClientStreamEvent view = ClientStreamEvent.newBuilder()
      .setError(StreamError.newBuilder().setMessage(message).setRecoverable(recoverable)).build();
    return new LedgerEntry(Optional.of(requestId), EventKind.ERROR, GATEWAY_AUTHOR, Optional.of(message), view,
      Optional.empty(), Optional.empty(), at);
  }

  /** The gateway ends a request as cancelled (queued, or for an agent without cancellation). */
  public static LedgerEntry gatewayCancelled(UUID requestId, String reason, UUID by, Instant at) {
    String message = "cancelled: " + reason;
    ClientStreamEvent view = ClientStreamEvent.newBuilder()
      .setError(StreamError.newBuilder().setMessage(message).setRecoverable(false)).build();
    return new LedgerEntry(Optional.of(requestId), EventKind.CANCELLED, GATEWAY_AUTHOR, Optional.of(message), view,
      Optional.empty(), Optional.of(by), at);
  }

  /** An agent's ask_user question, as the conversation's followers see it. */
  public static LedgerEntry userQuestion(Optional<UUID> requestId, String agentName, UserQuestionRequest question, Instant at) {
    ClientStreamEvent view = ClientStreamEvent.newBuilder().setUserQuestion(question).build();
    return new LedgerEntry(requestId, EventKind.USER_QUESTION, agentName, Optional.of(question.getQuestion()), view,
      Optional.empty(), Optional.empty(), at);
  }

  /** A question was answered (by {@code by}) or expired, for the record. */
  public static LedgerEntry questionClosed(Optional<UUID> requestId, String questionId, String outcome, Optional<UUID> by, Instant at) {
    String message = "question " + questionId + " " + outcome;
    ClientStreamEvent view = ClientStreamEvent.newBuilder()
      .setEvent(Event.newBuilder().setType("system").setText(message)).build();
    return new LedgerEntry(requestId, EventKind.QUESTION_CLOSED, GATEWAY_AUTHOR, Optional.of(message), view,
      Optional.empty(), by, at);
  }

  /** A human's decision on a tool approval, for the record. */
  public static LedgerEntry toolDecision(UUID requestId, String toolId, boolean approved, boolean all, UUID by, Instant at) {
    String message = "tool " + toolId + (approved ? " approved" : " denied") + (all ? " (and every further tool of this request)" : "");
    ClientStreamEvent view = ClientStreamEvent.newBuilder()
      .setEvent(Event.newBuilder().setType("system").setText(message)).build();
    return new LedgerEntry(Optional.of(requestId), EventKind.TOOL_DECISION, GATEWAY_AUTHOR, Optional.of(message), view,
      Optional.empty(), Optional.of(by), at);
  }

  /**
   * An agent's lifecycle transition, recorded in its own conversation. The text is the
   * {@code LifecycleEvent} as JSON, so followers (and the session protocol) can read it back.
   */
  public static LedgerEntry lifecycle(io.vertx.core.json.JsonObject lifecycleEvent, Optional<UUID> by, Instant at) {
    String json = lifecycleEvent.encode();
    ClientStreamEvent view = ClientStreamEvent.newBuilder()
      .setEvent(Event.newBuilder().setType("system").setText(json)).build();
    return new LedgerEntry(Optional.empty(), EventKind.LIFECYCLE, GATEWAY_AUTHOR, Optional.of(json), view, Optional.empty(), by, at);
  }
}
