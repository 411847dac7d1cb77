package dev.conclave.gateway.control;

import dev.conclave.contract.Addresses;
import dev.conclave.gateway.GatewayErrors;
import dev.conclave.gateway.commit.LedgerWriter;
import dev.conclave.gateway.ledger.Entries;
import dev.conclave.gateway.ledger.LedgerEntry;
import dev.conclave.gateway.model.RequestRecord;
import dev.conclave.gateway.store.QuestionStore;
import dev.conclave.gateway.store.RequestStore;
import dev.conclave.platform.auth.Caller;
import dev.conclave.platform.packs.GatewayToolOps;
import dev.conclave.proto.coven.AnswerQuestionRequest;
import dev.conclave.proto.coven.AnswerQuestionResponse;
import dev.conclave.proto.coven.QuestionOption;
import dev.conclave.proto.coven.UserQuestionRequest;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Agents' ask_user questions to their users. A question goes into the conversation the agent is
 * working in (its in-flight request's, else the agent's own), durably, before anyone sees it; it is
 * then answered exactly once from any node, or expires. The answer is announced to the pack host
 * that waits for it; a question that expires while an answer races it returns that answer.
 */
public final class Questions {

  private record Posted(String conversationKey, long seq, LedgerEntry entry) {
  }

  private final Vertx vertx;
  private final LedgerWriter writer;
  private final QuestionStore questions;
  private final RequestStore requests;
  private final Clock clock;

  public Questions(Vertx vertx, LedgerWriter writer, QuestionStore questions, RequestStore requests, Clock clock) {
    this.vertx = vertx;
    this.writer = writer;
    this.questions = questions;
    this.requests = requests;
    this.clock = clock;
  }

  /** Posts the question to the agent's conversation; returns that conversation's key. */
  public Future<String> ask(String agentId, UserQuestionRequest question) {
    UUID id = UUID.fromString(question.getQuestionId());
    Instant now = clock.instant();
    Instant expires = now.plusSeconds(question.getTimeoutSeconds());
    return requests.inFlightOf(agentId).compose(inFlight -> {
      String key = inFlight.map(RequestRecord::conversationKey).orElse(agentId);
      Optional<UUID> requestId = inFlight.map(RequestRecord::id);
      LedgerEntry entry = Entries.userQuestion(requestId, agentId, question, now);
      return writer.write(agentId, tx -> tx.append(key, agentId, List.of(entry))
          .compose(seq -> questions.recordOpen(tx.sql(), id, agentId, key, requestId, question, seq, expires).map(seq)))
        .map(seq -> new Posted(key, seq, entry));
    }).map(posted -> {
      return posted.conversationKey();
    });
  }

  /** AnswerQuestion: the first valid answer wins; every other attempt gets success=false with the reason. */
  public Future<AnswerQuestionResponse> answer(Caller caller, AnswerQuestionRequest r) {
    if (r.getAgentId().isBlank()) {
      return Future.failedFuture(GatewayErrors.required("agent_id"));
    }
    if (r.getQuestionId().isBlank()) {
      return Future.failedFuture(GatewayErrors.required("question_id"));
    }
    Optional<UUID> id = uuid(r.getQuestionId());
    if (id.isEmpty()) {
      return Future.succeededFuture(refused(noSuchQuestion(r)));
    }
    Optional<String> custom = r.hasCustomText() && !r.getCustomText().isBlank() ? Optional.of(r.getCustomText()) : Optional.empty();
    return questions.find(id.get()).compose(found -> {
      Optional<String> closed = whyClosed(found, r);
      if (closed.isPresent()) {
        return Future.succeededFuture(refused(closed.get()));
      }
      checkAnswer(found.get().request(), r.getSelectedList(), custom);
      return writer.write(r.getAgentId(), tx -> questions.answer(tx.sql(), id.get(), r.getAgentId(), r.getSelectedList(), custom, caller.principalId())
          .compose(answered -> {
            if (answered.isEmpty()) {
              return Future.succeededFuture(Optional.<Posted>empty());
            }
            QuestionStore.Question q = answered.get();
            LedgerEntry entry = Entries.questionClosed(Optional.empty(), q.questionId().toString(), "answered",
              Optional.of(caller.principalId()), clock.instant());
            return tx.append(q.conversationKey(), q.agentId(), List.of(entry)).map(seq -> Optional.of(new Posted(q.conversationKey(), seq, entry)));
          }))
        .compose(posted -> {
          if (posted.isEmpty()) {
            // another answer or the expiry won between the read and the update
            return questions.find(id.get()).map(now -> refused(whyClosed(now, r).orElse(noSuchQuestion(r))));
          }
          vertx.eventBus().publish(Addresses.QUESTION_ANSWERED,
            new GatewayToolOps.Answer(r.getQuestionId(), r.getAgentId(), r.getSelectedList(), custom).toJson());
          return Future.succeededFuture(AnswerQuestionResponse.newBuilder().setSuccess(true).build());
        });
    });
  }

  /** The asker stopped waiting: the question expires unless an answer got there first. */
  public Future<JsonObject> expire(String questionId) {
    Optional<UUID> id = uuid(questionId);
    if (id.isEmpty()) {
      return Future.failedFuture(GatewayErrors.invalid("questionId", "must be a UUID"));
    }
    return writer.write(questionId, tx -> questions.expire(tx.sql(), id.get()).compose(q -> {
      if (q.isEmpty()) {
        return Future.succeededFuture(new JsonObject().put("state", "expired"));
      }
      QuestionStore.Question question = q.get();
      if (question.state().equals("answered")) {
        JsonObject reply = new JsonObject().put("state", "answered").put("selected", new JsonArray(question.selected()));
        question.customText().ifPresent(t -> reply.put("customText", t));
        return Future.succeededFuture(reply);
      }
      LedgerEntry entry = Entries.questionClosed(Optional.empty(), questionId, "expired without an answer", Optional.empty(), clock.instant());
      return tx.append(question.conversationKey(), question.agentId(), List.of(entry)).map(seq -> new JsonObject().put("state", "expired"));
    }));
  }

  private Optional<String> whyClosed(Optional<QuestionStore.Question> found, AnswerQuestionRequest r) {
    if (found.isEmpty() || !found.get().agentId().equals(r.getAgentId())) {
      return Optional.of(noSuchQuestion(r));
    }
    QuestionStore.Question q = found.get();
    if (q.state().equals("answered")) {
      return Optional.of("question " + r.getQuestionId() + " was already answered");
    }
    if (q.state().equals("expired") || !clock.instant().isBefore(q.expiresAt())) {
      return Optional.of("question " + r.getQuestionId() + " expired without an answer");
    }
    return Optional.empty();
  }

  private static void checkAnswer(UserQuestionRequest q, List<String> selected, Optional<String> custom) {
    if (selected.isEmpty() && custom.isEmpty()) {
      throw GatewayErrors.invalid("selected", "choose at least one option or give custom_text");
    }
    if (!q.getMultiSelect() && selected.size() > 1) {
      throw GatewayErrors.invalid("selected", "this question takes one option, got " + selected.size());
    }
    Set<String> labels = q.getOptionsList().stream().map(QuestionOption::getLabel).collect(Collectors.toSet());
    for (String s : selected) {
      if (!labels.contains(s)) {
        throw GatewayErrors.invalid("selected", "'" + s + "' is not one of the options (" + String.join(", ", labels) + ")");
      }
    }
    if (Set.copyOf(selected).size() != selected.size()) {
      throw GatewayErrors.invalid("selected", "names an option more than once");
    }
  }

  private static String noSuchQuestion(AnswerQuestionRequest r) {
    return "no pending question with ID " + r.getQuestionId() + " for agent '" + r.getAgentId() + "'";
  }

  private static AnswerQuestionResponse refused(String why) {
    return AnswerQuestionResponse.newBuilder().setSuccess(false).setError(why).build();
  }

  private static Optional<UUID> uuid(String value) {
    try {
      return Optional.of(UUID.fromString(value));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
