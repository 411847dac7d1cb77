package dev.conclave.packs.builtin;

import dev.conclave.packs.builtin.base.BasePack;
import dev.conclave.packs.builtin.mail.MailPack;
import dev.conclave.packs.builtin.notes.NotesPack;
import dev.conclave.proto.coven.ToolDefinition;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tool definitions agents and MCP clients see are coven-gateway's, word for word: names, order,
 * descriptions, input schemas (as JSON values), one capability named after the pack, no timeout.
 * Expected values are copied from the coven-gateway spec, not from our code.
 */
class BuiltinPacksContractTest {

  private record Expected(String name, String description, String schema) {
  }

  @Test
  void basePack() {
    check(BasePack.create(null, Clock.systemUTC()), "builtin:base", "base", List.of(
      new Expected("log_entry", "Log an activity or event",
        "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"},\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},\"required\":[\"message\"]}"),
      new Expected("log_search", "Search past log entries",
        "{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\"},\"since\":{\"type\":\"string\",\"format\":\"date-time\"},\"limit\":{\"type\":\"integer\"}}}"),
      new Expected("todo_add", "Create a todo",
        "{\"type\":\"object\",\"properties\":{\"description\":{\"type\":\"string\"},\"priority\":{\"type\":\"string\",\"enum\":[\"low\",\"medium\",\"high\"]},\"due_date\":{\"type\":\"string\",\"format\":\"date-time\"},\"notes\":{\"type\":\"string\"}},\"required\":[\"description\"]}"),
      new Expected("todo_list", "List todos",
        "{\"type\":\"object\",\"properties\":{\"status\":{\"type\":\"string\",\"enum\":[\"pending\",\"in_progress\",\"completed\"]},\"priority\":{\"type\":\"string\",\"enum\":[\"low\",\"medium\",\"high\"]}}}"),
      new Expected("todo_update", "Update a todo",
        "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},\"status\":{\"type\":\"string\",\"enum\":[\"pending\",\"in_progress\",\"completed\"]},\"priority\":{\"type\":\"string\",\"enum\":[\"low\",\"medium\",\"high\"]},\"notes\":{\"type\":\"string\"},\"due_date\":{\"type\":\"string\",\"format\":\"date-time\"}},\"required\":[\"id\"]}"),
      new Expected("todo_delete", "Delete a todo",
        "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}},\"required\":[\"id\"]}"),
      new Expected("bbs_create_thread", "Create a new discussion thread",
        "{\"type\":\"object\",\"properties\":{\"subject\":{\"type\":\"string\"},\"content\":{\"type\":\"string\"}},\"required\":[\"subject\",\"content\"]}"),
      new Expected("bbs_reply", "Reply to a thread",
        "{\"type\":\"object\",\"properties\":{\"thread_id\":{\"type\":\"string\"},\"content\":{\"type\":\"string\"}},\"required\":[\"thread_id\",\"content\"]}"),
      new Expected("bbs_list_threads", "List discussion threads",
        "{\"type\":\"object\",\"properties\":{\"limit\":{\"type\":\"integer\"}}}"),
      new Expected("bbs_read_thread", "Read a thread with replies",
        "{\"type\":\"object\",\"properties\":{\"thread_id\":{\"type\":\"string\"}},\"required\":[\"thread_id\"]}")));
  }

  @Test
  void notesPack() {
    check(NotesPack.create(null, Clock.systemUTC()), "builtin:notes", "notes", List.of(
      new Expected("note_set", "Store a note",
        "{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\"},\"value\":{\"type\":\"string\"}},\"required\":[\"key\",\"value\"]}"),
      new Expected("note_get", "Retrieve a note",
        "{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\"}},\"required\":[\"key\"]}"),
      new Expected("note_list", "List all note keys", "{\"type\":\"object\",\"properties\":{}}"),
      new Expected("note_delete", "Delete a note",
        "{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\"}},\"required\":[\"key\"]}")));
  }

  @Test
  void mailPack() {
    check(MailPack.create(null, Clock.systemUTC()), "builtin:mail", "mail", List.of(
      new Expected("mail_send", "Send message to another agent",
        "{\"type\":\"object\",\"properties\":{\"to_agent_id\":{\"type\":\"string\"},\"subject\":{\"type\":\"string\"},\"content\":{\"type\":\"string\"}},\"required\":[\"to_agent_id\",\"subject\",\"content\"]}"),
      new Expected("mail_inbox", "List received messages",
        "{\"type\":\"object\",\"properties\":{\"limit\":{\"type\":\"integer\"},\"unread_only\":{\"type\":\"boolean\"}}}"),
      new Expected("mail_read", "Read and mark message as read",
        "{\"type\":\"object\",\"properties\":{\"message_id\":{\"type\":\"string\"}},\"required\":[\"message_id\"]}")));
  }

  private static void check(BuiltinPack pack, String packId, String capability, List<Expected> expected) {
    assertThat(pack.packId()).isEqualTo(packId);
    assertThat(pack.capability()).isEqualTo(capability);
    assertThat(pack.tools()).extracting(BuiltinTool::name).containsExactlyElementsOf(expected.stream().map(Expected::name).toList());
    for (int i = 0; i < expected.size(); i++) {
      ToolDefinition d = pack.tools().get(i).definition();
      Expected e = expected.get(i);
      assertThat(d.getDescription()).as(e.name()).isEqualTo(e.description());
      assertThat(new JsonObject(d.getInputSchemaJson())).as(e.name() + " schema").isEqualTo(new JsonObject(e.schema()));
      assertThat(d.getRequiredCapabilitiesList()).as(e.name()).containsExactly(capability);
      assertThat(d.getTimeoutSeconds()).as(e.name()).isZero();
    }
  }
}
