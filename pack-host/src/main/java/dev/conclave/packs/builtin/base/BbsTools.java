package dev.conclave.packs.builtin.base;

import dev.conclave.packs.builtin.BuiltinTool;
import dev.conclave.packs.builtin.DefinedTool;
import dev.conclave.packs.builtin.JsonOutputs;
import dev.conclave.packs.builtin.ListLimit;
import dev.conclave.packs.builtin.ToolCaller;
import dev.conclave.packs.builtin.ToolDefinitions;
import dev.conclave.packs.builtin.ToolFailure;
import dev.conclave.packs.builtin.ToolInputs;
import dev.conclave.packs.store.BbsStore;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;

/**
 * {@code bbs_create_thread}, {@code bbs_reply}, {@code bbs_list_threads} and
 * {@code bbs_read_thread}: the bulletin board every agent shares. Threads list newest first,
 * replies oldest first.
 */
final class BbsTools {

  static final String NOT_FOUND = "thread not found";
  static final int THREADS_DEFAULT_LIMIT = 50;

  private static final String CREATE_SCHEMA = "{\"type\":\"object\",\"properties\":{\"subject\":{\"type\":\"string\"},"
    + "\"content\":{\"type\":\"string\"}},\"required\":[\"subject\",\"content\"]}";
  private static final String REPLY_SCHEMA = "{\"type\":\"object\",\"properties\":{\"thread_id\":{\"type\":\"string\"},"
    + "\"content\":{\"type\":\"string\"}},\"required\":[\"thread_id\",\"content\"]}";
  private static final String LIST_SCHEMA = "{\"type\":\"object\",\"properties\":{\"limit\":{\"type\":\"integer\"}}}";
  private static final String READ_SCHEMA = "{\"type\":\"object\",\"properties\":{\"thread_id\":{\"type\":\"string\"}},"
    + "\"required\":[\"thread_id\"]}";

  private final BbsStore store;
  private final Clock clock;

  BbsTools(BbsStore store, Clock clock) {
    this.store = store;
    this.clock = clock;
  }

  List<BuiltinTool> tools() {
    return List.of(
      new DefinedTool(ToolDefinitions.of("bbs_create_thread", "Create a new discussion thread", CREATE_SCHEMA, BasePack.CAPABILITY), this::create),
      new DefinedTool(ToolDefinitions.of("bbs_reply", "Reply to a thread", REPLY_SCHEMA, BasePack.CAPABILITY), this::reply),
      new DefinedTool(ToolDefinitions.of("bbs_list_threads", "List discussion threads", LIST_SCHEMA, BasePack.CAPABILITY), this::list),
      new DefinedTool(ToolDefinitions.of("bbs_read_thread", "Read a thread with replies", READ_SCHEMA, BasePack.CAPABILITY), this::read));
  }

  private Future<String> create(ToolCaller caller, JsonObject input) {
    String agent = ToolInputs.agent(caller);
    String subject = ToolInputs.required(input, "subject", ToolInputs.MAX_NAME);
    String content = ToolInputs.required(input, "content", ToolInputs.MAX_TEXT);
    return store.createThread(agent, subject, content, clock.instant().truncatedTo(ChronoUnit.MILLIS))
      .map(id -> JsonOutputs.status("thread_id", id.toString(), "created"));
  }

  private Future<String> reply(ToolCaller caller, JsonObject input) {
    String agent = ToolInputs.agent(caller);
    UUID thread = ToolInputs.id(input, "thread_id", NOT_FOUND);
    String content = ToolInputs.required(input, "content", ToolInputs.MAX_TEXT);
    return store.reply(agent, thread, content, clock.instant().truncatedTo(ChronoUnit.MILLIS)).map(reply -> switch (reply.outcome()) {
      case POSTED -> JsonOutputs.status("post_id", reply.postId().toString(), "posted");
      case NO_SUCH_THREAD -> throw new ToolFailure(NOT_FOUND);
      case TARGET_IS_A_REPLY -> throw new ToolFailure("cannot reply to a reply, use original thread_id");
    });
  }

  private Future<String> list(ToolCaller caller, JsonObject input) {
    ListLimit limit = ToolInputs.limit(input, "limit", THREADS_DEFAULT_LIMIT);
    return store.threads(limit.fetch())
      .map(threads -> JsonOutputs.list("threads", threads.stream().map(BbsTools::json).toList(), limit).encode());
  }

  private Future<String> read(ToolCaller caller, JsonObject input) {
    UUID id = ToolInputs.id(input, "thread_id", NOT_FOUND);
    return store.post(id).compose(found -> {
      BbsStore.Post post = found.orElseThrow(() -> new ToolFailure(NOT_FOUND));
      if (post.threadId() != null) {
        throw new ToolFailure(id + " is a reply, not a thread; its thread_id is " + post.threadId());
      }
      ListLimit limit = ListLimit.UNBOUNDED;
      JsonObject head = json(post);
      return store.replies(id, limit.fetch()).map(replies -> {
        JsonOutputs.Page page = JsonOutputs.page(replies.stream().map(BbsTools::json).toList(), limit, head.encode().length());
        JsonObject out = new JsonObject().put("Post", head).put("Replies", page.items());
        return (page.truncated() ? out.put("truncated", true) : out).encode();
      });
    });
  }

  /** Coven-gateway's BBSPost shape: a thread has an empty ThreadID, a reply an empty Subject. */
  static JsonObject json(BbsStore.Post p) {
    return new JsonObject()
      .put("ID", p.id().toString())
      .put("AgentID", p.agentId())
      .put("ThreadID", p.threadId() == null ? "" : p.threadId().toString())
      .put("Subject", p.subject() == null ? "" : p.subject())
      .put("Content", p.content())
      .put("CreatedAt", JsonOutputs.time(p.createdAt()));
  }
}
