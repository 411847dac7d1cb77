package dev.conclave.gateway.api;

import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.control.Approvals;
import dev.conclave.gateway.control.Questions;
import dev.conclave.gateway.directory.ConversationAccess;
import dev.conclave.gateway.export.ConversationExport;
import dev.conclave.gateway.export.LedgerLines;
import dev.conclave.gateway.ledger.LedgerEvent;
import dev.conclave.gateway.mailbox.Mailbox;
import dev.conclave.gateway.store.LedgerStore;
import dev.conclave.platform.access.AgentAccess;
import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.server.HttpAuthHandler;
import dev.conclave.platform.server.HttpRoutes;
import dev.conclave.platform.server.Problems;
import dev.conclave.proto.coven.AnswerQuestionRequest;
import dev.conclave.proto.coven.ApproveToolRequest;
import dev.conclave.proto.coven.ClientSendMessageRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Conversations over HTTP, for the console and other web clients: send a message, page through the
 * ledger (forwards to catch up, backwards to scroll back) or export all of it, decide tool approvals,
 * answer questions.
 * The same rules as ClientService apply (docs/dashboard.md).
 */
public final class ConversationHttpApi {

  private static final Logger LOG = LoggerFactory.getLogger(ConversationHttpApi.class);

  static final int DEFAULT_LIMIT = 200;
  static final int MAX_LIMIT = 500;

  private final Mailbox mailbox;
  private final LedgerStore ledger;
  private final Approvals approvals;
  private final Questions questions;
  private final ConversationAccess conversations;
  private final AgentAccess access;
  private final ConversationExport export;

  public ConversationHttpApi(Mailbox mailbox, LedgerStore ledger, Approvals approvals, Questions questions, ConversationAccess conversations) {
    this.mailbox = mailbox;
    this.ledger = ledger;
    this.approvals = approvals;
    this.questions = questions;
    this.conversations = conversations;
    this.access = conversations.agents();
    this.export = new ConversationExport(ledger::after, DEFAULT_LIMIT);
  }

  public void mount(HttpRoutes routes) {
    String base = GatewayHttpApi.BASE;
    routes.post(base + "/conversations/:key/messages", Audience.MEMBERS, Resource.AGENT, 202, (caller, ctx) -> {
      JsonObject body = GatewayHttpApi.body(ctx);
      String key = ctx.pathParam("key");
      ClientSendMessageRequest request = ClientSendMessageRequest.newBuilder()
        .setConversationKey(key)
        .setContent(Optional.ofNullable(text(body, "content")).orElse(""))
        .setIdempotencyKey(Optional.ofNullable(text(body, "idempotencyKey")).filter(s -> !s.isEmpty()).orElse(UUID.randomUUID().toString()))
        .build();
      return mailbox.send(caller, request).map(accepted -> new JsonObject()
        .put("status", accepted.duplicate() ? "duplicate" : "accepted")
        .put("requestId", accepted.requestId().map(UUID::toString).orElse(null))
        .put("agentId", accepted.agentId())
        .put("conversationKey", key));
    });
    routes.get(base + "/conversations/:key/events", Audience.MEMBERS, Resource.AGENT, (caller, ctx) -> {
      String key = ctx.pathParam("key");
      int limit = limit(ctx);
      Optional<Long> after = seq(ctx, "after");
      Optional<Long> before = seq(ctx, "before");
      if (after.isPresent() && before.isPresent()) {
        throw GatewayErrors.invalid("after", "give 'after' (catch up) or 'before' (scroll back), not both");
      }
      return conversations.require(caller, key).compose(v -> after.isPresent()
        ? ledger.after(key, after.get(), limit + 1).map(events -> page(events, limit, false))
        : ledger.before(key, before, limit + 1).map(events -> page(events, limit, true)));
    });
    // the whole history as NDJSON, streamed; audited like a change: it hands out a conversation at once
    routes.raw(HttpMethod.GET, base + "/conversations/:key/export", Audience.MEMBERS, Resource.AGENT, true, ctx -> {
      String key = ctx.pathParam("key");
      long after;
      try {
        after = seq(ctx, "after").orElse(0L);
      } catch (RuntimeException e) {
        Problems.send(ctx, e);
        return;
      }
      conversations.require(HttpAuthHandler.caller(ctx), key)
        .compose(v -> export.stream(ctx.response(), key, after))
        .onFailure(e -> {
          if (!ctx.response().headWritten()) {
            ctx.response().setChunked(false);
            Problems.send(ctx, e);
          } else {
            LOG.warn("export of conversation '{}' cut after it started (the client resumes with after=): {}", key, e.toString());
          }
        });
    });
    routes.post(base + "/approvals", Audience.MEMBERS, Resource.AGENT, 200, (caller, ctx) -> {
      JsonObject body = GatewayHttpApi.body(ctx);
      ApproveToolRequest request = ApproveToolRequest.newBuilder()
        .setAgentId(required(body, "agentId"))
        .setToolId(required(body, "toolId"))
        .setApproved(flag(body, "approved", null))
        .setApproveAll(flag(body, "approveAll", false))
        .build();
      return access.require(caller, request.getAgentId()).compose(v -> approvals.decide(caller, request))
        .map(r -> outcome(r.getSuccess(), r.hasError() ? r.getError() : null));
    });
    routes.post(base + "/questions/:questionId/answer", Audience.MEMBERS, Resource.AGENT, 200, (caller, ctx) -> {
      JsonObject body = GatewayHttpApi.body(ctx);
      AnswerQuestionRequest.Builder request = AnswerQuestionRequest.newBuilder()
        .setAgentId(required(body, "agentId"))
        .setQuestionId(ctx.pathParam("questionId"));
      Object selected = body.getValue("selected");
      if (selected != null && !(selected instanceof JsonArray)) {
        throw GatewayErrors.invalid("selected", "must be an array of option labels");
      }
      if (selected != null) {
        for (Object label : (JsonArray) selected) {
          if (!(label instanceof String s)) {
            throw GatewayErrors.invalid("selected", "must be an array of option labels (strings)");
          }
          request.addSelected(s);
        }
      }
      Optional.ofNullable(text(body, "customText")).ifPresent(request::setCustomText);
      return access.require(caller, request.getAgentId()).compose(v -> questions.answer(caller, request.build()))
        .map(r -> outcome(r.getSuccess(), r.hasError() ? r.getError() : null));
    });
  }

  private static JsonObject page(List<LedgerEvent> events, int limit, boolean backwards) {
    boolean more = events.size() > limit;
    List<LedgerEvent> shown = !more ? events : backwards ? events.subList(1, events.size()) : events.subList(0, limit);
    JsonArray out = new JsonArray();
    shown.forEach(e -> out.add(LedgerLines.json(e)));
    return new JsonObject().put("events", out).put("hasMore", more);
  }

  private static JsonObject outcome(boolean accepted, String error) {
    JsonObject out = new JsonObject().put("accepted", accepted);
    return error == null ? out : out.put("error", error);
  }

  private static int limit(RoutingContext ctx) {
    String raw = ctx.queryParams().get("limit");
    if (raw == null) {
      return DEFAULT_LIMIT;
    }
    try {
      int limit = Integer.parseInt(raw);
      if (limit >= 1 && limit <= MAX_LIMIT) {
        return limit;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw GatewayErrors.invalid("limit", "must be a whole number from 1 to " + MAX_LIMIT + ", got '" + raw + "'");
  }

  private static Optional<Long> seq(RoutingContext ctx, String name) {
    String raw = ctx.queryParams().get(name);
    if (raw == null) {
      return Optional.empty();
    }
    try {
      long seq = Long.parseLong(raw);
      if (seq >= 0) {
        return Optional.of(seq);
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw GatewayErrors.invalid(name, "must be an event sequence number (0 or more), got '" + raw + "'");
  }

  private static String text(JsonObject body, String field) {
    Object value = body.getValue(field);
    if (value != null && !(value instanceof String)) {
      throw GatewayErrors.invalid(field, "must be a string");
    }
    return (String) value;
  }

  private static String required(JsonObject body, String field) {
    String value = text(body, field);
    if (value == null || value.isBlank()) {
      throw GatewayErrors.required(field);
    }
    return value;
  }

  private static boolean flag(JsonObject body, String field, Boolean fallback) {
    Object value = body.getValue(field);
    if (value == null && fallback != null) {
      return fallback;
    }
    if (!(value instanceof Boolean b)) {
      throw value == null ? GatewayErrors.required(field) : GatewayErrors.invalid(field, "must be true or false");
    }
    return b;
  }
}
