package dev.conclave.packs.builtin.mail;

import dev.conclave.packs.builtin.BuiltinPack;
import dev.conclave.packs.builtin.DefinedTool;
import dev.conclave.packs.builtin.JsonOutputs;
import dev.conclave.packs.builtin.ListLimit;
import dev.conclave.packs.builtin.ToolCaller;
import dev.conclave.packs.builtin.ToolDefinitions;
import dev.conclave.packs.builtin.ToolFailure;
import dev.conclave.packs.builtin.ToolInputs;
import dev.conclave.packs.store.MailStore;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;

import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;

/**
 * The {@code builtin:mail} pack (capability {@code mail}): {@code mail_send}, {@code mail_inbox}
 * and {@code mail_read}. Mail is stored, never pushed: the recipient polls its inbox. Only the
 * recipient sees a mail; to anyone else it does not exist ({@code message not found}).
 */
public final class MailPack {

  public static final String PACK_ID = "builtin:mail";
  public static final String CAPABILITY = "mail";
  static final int INBOX_DEFAULT_LIMIT = 20;
  static final String NOT_FOUND = "message not found";

  private static final String SEND_SCHEMA = "{\"type\":\"object\",\"properties\":{\"to_agent_id\":{\"type\":\"string\"},"
    + "\"subject\":{\"type\":\"string\"},\"content\":{\"type\":\"string\"}},\"required\":[\"to_agent_id\",\"subject\",\"content\"]}";
  private static final String INBOX_SCHEMA = "{\"type\":\"object\",\"properties\":{\"limit\":{\"type\":\"integer\"},"
    + "\"unread_only\":{\"type\":\"boolean\"}}}";
  private static final String READ_SCHEMA = "{\"type\":\"object\",\"properties\":{\"message_id\":{\"type\":\"string\"}},"
    + "\"required\":[\"message_id\"]}";

  private final MailStore store;
  private final Clock clock;

  private MailPack(MailStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  public static BuiltinPack create(Pool pool, Clock clock) {
    MailPack pack = new MailPack(new MailStore(pool), clock);
    return new BuiltinPack(PACK_ID, CAPABILITY, List.of(
      new DefinedTool(ToolDefinitions.of("mail_send", "Send message to another agent", SEND_SCHEMA, CAPABILITY), pack::send),
      new DefinedTool(ToolDefinitions.of("mail_inbox", "List received messages", INBOX_SCHEMA, CAPABILITY), pack::inbox),
      new DefinedTool(ToolDefinitions.of("mail_read", "Read and mark message as read", READ_SCHEMA, CAPABILITY), pack::read)));
  }

  /** Stores a mail; the recipient need not exist or be connected, as in coven-gateway. */
  private Future<String> send(ToolCaller caller, JsonObject input) {
    String agent = ToolInputs.agent(caller);
    String to = ToolInputs.required(input, "to_agent_id", ToolInputs.MAX_NAME);
    String subject = ToolInputs.required(input, "subject", ToolInputs.MAX_NAME);
    String content = ToolInputs.required(input, "content", ToolInputs.MAX_TEXT);
    return store.send(agent, to, subject, content, clock.instant().truncatedTo(ChronoUnit.MILLIS))
      .map(id -> JsonOutputs.status("id", id.toString(), "sent"));
  }

  private Future<String> inbox(ToolCaller caller, JsonObject input) {
    String agent = ToolInputs.agent(caller);
    ListLimit limit = ToolInputs.limit(input, "limit", INBOX_DEFAULT_LIMIT);
    boolean unreadOnly = ToolInputs.bool(input, "unread_only");
    return store.inbox(agent, unreadOnly, limit.fetch())
      .map(mail -> JsonOutputs.list("messages", mail.stream().map(MailPack::json).toList(), limit).encode());
  }

  /** Marks the mail read and returns it as it is afterwards: ReadAt is the time of the first read. */
  private Future<String> read(ToolCaller caller, JsonObject input) {
    String agent = ToolInputs.agent(caller);
    UUID id = ToolInputs.id(input, "message_id", NOT_FOUND);
    return store.read(agent, id, clock.instant().truncatedTo(ChronoUnit.MILLIS))
      .map(mail -> json(mail.orElseThrow(() -> new ToolFailure(NOT_FOUND))).encode());
  }

  /** Coven-gateway's AgentMail shape. */
  static JsonObject json(MailStore.Mail m) {
    return new JsonObject()
      .put("ID", m.id().toString())
      .put("FromAgentID", m.fromAgentId())
      .put("ToAgentID", m.toAgentId())
      .put("Subject", m.subject())
      .put("Content", m.content())
      .put("ReadAt", JsonOutputs.timeOrNull(m.readAt()))
      .put("CreatedAt", JsonOutputs.time(m.createdAt()));
  }
}
