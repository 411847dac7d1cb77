package dev.conclave.gateway.store;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.conclave.platform.db.sql.Rows;
import dev.conclave.proto.coven.UserQuestionRequest;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Questions agents asked their users (ask_user), and how each was decided. */
public final class QuestionStore {

  /** A question as stored. */
  public record Question(UUID questionId, String agentId, String conversationKey, UserQuestionRequest request, long ledgerSeq,
                         String state, List<String> selected, Optional<String> customText, Instant expiresAt) {
  }

  private static final String COLUMNS = "question_id, agent_id, conversation_key, question, ledger_seq, state, selected, custom_text, expires_at";

  private final Pool pool;

  public QuestionStore(Pool pool) {
    this.pool = pool;
  }

  public Future<Void> recordOpen(SqlClient tx, UUID questionId, String agentId, String conversationKey, Optional<UUID> requestId,
                                 UserQuestionRequest question, long ledgerSeq, Instant expiresAt) {
    return tx.preparedQuery("INSERT INTO gateway.questions (question_id, agent_id, conversation_key, request_id, question, ledger_seq, state, expires_at)"
        + " VALUES ($1, $2, $3, $4, $5, $6, 'open', $7) ON CONFLICT (question_id) DO NOTHING")
      .execute(Tuple.of(questionId, agentId, conversationKey, requestId.orElse(null), Buffer.buffer(question.toByteArray()), ledgerSeq,
        Rows.utc(expiresAt)))
      .mapEmpty();
  }

  /** Answers the agent's open, unexpired question; empty when it is not open (or not the agent's). */
  public Future<Optional<Question>> answer(SqlClient tx, UUID questionId, String agentId, List<String> selected, Optional<String> customText,
                                           UUID by) {
    return tx.preparedQuery("UPDATE gateway.questions SET state = 'answered', selected = $3, custom_text = $4, decided_at = now(), decided_by = $5"
        + " WHERE question_id = $1 AND agent_id = $2 AND state = 'open' AND expires_at > now() RETURNING " + COLUMNS)
      .execute(Tuple.of(questionId, agentId, selected.toArray(new String[0]), customText.orElse(null), by))
      .map(rows -> Rows.first(rows, QuestionStore::map));
  }

  /** Expires the question if still open; returns it as it is afterwards (answered if an answer won). */
  public Future<Optional<Question>> expire(SqlClient tx, UUID questionId) {
    return tx.preparedQuery("UPDATE gateway.questions SET state = 'expired', decided_at = now() WHERE question_id = $1 AND state = 'open'")
      .execute(Tuple.of(questionId))
      .compose(r -> tx.preparedQuery("SELECT " + COLUMNS + " FROM gateway.questions WHERE question_id = $1").execute(Tuple.of(questionId)))
      .map(rows -> Rows.first(rows, QuestionStore::map));
  }

  public Future<Optional<Question>> find(UUID questionId) {
    return pool.preparedQuery("SELECT " + COLUMNS + " FROM gateway.questions WHERE question_id = $1")
      .execute(Tuple.of(questionId))
      .map(rows -> Rows.first(rows, QuestionStore::map));
  }

  /** Questions of the conversation that can still be answered, oldest first. */
  public Future<List<Question>> openIn(String conversationKey) {
    return pool.preparedQuery("SELECT " + COLUMNS + " FROM gateway.questions WHERE conversation_key = $1 AND state = 'open'"
        + " AND expires_at > now() ORDER BY ledger_seq")
      .execute(Tuple.of(conversationKey))
      .map(rows -> Rows.all(rows, QuestionStore::map));
  }

  private static Question map(Row r) {
    try {
      String[] selected = r.getArrayOfStrings("selected");
      return new Question(r.getUUID("question_id"), r.getString("agent_id"), r.getString("conversation_key"),
        UserQuestionRequest.parseFrom(r.getBuffer("question").getBytes()), r.getLong("ledger_seq"), r.getString("state"),
        selected == null ? List.of() : Arrays.asList(selected), Optional.ofNullable(r.getString("custom_text")),
        r.getOffsetDateTime("expires_at").toInstant());
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("unreadable question " + r.getUUID("question_id"), e);
    }
  }
}
