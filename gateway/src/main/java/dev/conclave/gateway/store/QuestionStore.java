package dev.conclave.gateway.store;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.conclave.platform.db.sql.Rows;
import dev.conclave.platform.db.sql.SqlFile;
import dev.conclave.proto.coven.UserQuestionRequest;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;

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

  private static final SqlFile SQL = SqlFile.of(QuestionStore.class, "questions.sql");

  private final Pool pool;

  public QuestionStore(Pool pool) {
    this.pool = pool;
  }

  public Future<Void> recordOpen(SqlClient tx, UUID questionId, String agentId, String conversationKey, Optional<UUID> requestId,
                                 UserQuestionRequest question, long ledgerSeq, Instant expiresAt) {
    return SQL.get("RecordOpen").with("question_id", questionId).with("agent_id", agentId).with("conversation_key", conversationKey)
      .with("request_id", requestId.orElse(null)).with("question", Buffer.buffer(question.toByteArray())).with("ledger_seq", ledgerSeq)
      .with("expires_at", Rows.utc(expiresAt))
      .execute(tx)
      .mapEmpty();
  }

  /** Answers the agent's open, unexpired question; empty when it is not open (or not the agent's). */
  public Future<Optional<Question>> answer(SqlClient tx, UUID questionId, String agentId, List<String> selected, Optional<String> customText,
                                           UUID by) {
    return SQL.get("Answer").with("question_id", questionId).with("agent_id", agentId).with("selected", selected.toArray(new String[0]))
      .with("custom_text", customText.orElse(null)).with("decided_by", by)
      .execute(tx)
      .map(rows -> Rows.first(rows, QuestionStore::map));
  }

  /** Expires the question if still open; returns it as it is afterwards (answered if an answer won). */
  public Future<Optional<Question>> expire(SqlClient tx, UUID questionId) {
    return SQL.get("Expire").with("question_id", questionId).execute(tx)
      .compose(r -> SQL.get("Find").with("question_id", questionId).execute(tx))
      .map(rows -> Rows.first(rows, QuestionStore::map));
  }

  public Future<Optional<Question>> find(UUID questionId) {
    return SQL.get("Find").with("question_id", questionId)
      .execute(pool)
      .map(rows -> Rows.first(rows, QuestionStore::map));
  }

  /** Questions of the conversation that can still be answered, oldest first. */
  public Future<List<Question>> openIn(String conversationKey) {
    return SQL.get("OpenIn").with("conversation_key", conversationKey)
      .execute(pool)
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
