package dev.conclave.cli.output;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class RenderingTest {

  private static final JsonObject DOC = new JsonObject().put("agents", new JsonArray()
    .add(new JsonObject().put("agentId", "echo-1").put("name", "Echo one").put("connected", true).put("node", "node-a")
      .put("capabilities", new JsonArray().add("chat").add("notes")))
    .add(new JsonObject().put("agentId", "a-much-longer-id").put("name", "two\nlines").put("connected", false)
      .put("capabilities", new JsonArray())));
  private static final List<Column> COLUMNS = List.of(Column.field("ID", "agentId"), Column.field("NAME", "name"),
    new Column("STATE", r -> r.getBoolean("connected") ? "connected" : "disconnected"), Column.field("NODE", "node"),
    Column.field("CAPS", "capabilities"));

  private static List<JsonObject> rows() {
    return DOC.getJsonArray("agents").stream().map(JsonObject.class::cast).toList();
  }

  private static String print(Format format) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Rendering.print(new PrintStream(bytes, true, StandardCharsets.UTF_8), format, DOC, rows(), COLUMNS);
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aTableHasAHeaderAndOneAlignedLinePerRowWithDashesForNothing() {
    assertThat(print(Format.table)).isEqualTo("""
      ID                NAME       STATE         NODE    CAPS
      echo-1            Echo one   connected     node-a  chat,notes
      a-much-longer-id  two lines  disconnected  -       -
      """);
  }

  @Test
  void jsonIsTheApisDocumentWithItsFieldNames() {
    JsonObject printed = new JsonObject(print(Format.json));
    assertThat(printed).isEqualTo(DOC);
    assertThat(printed.getJsonArray("agents").getJsonObject(0).fieldNames()).containsExactly("agentId", "name", "connected", "node", "capabilities");
  }

  @Test
  void yamlIsTheSameDocumentInBlockStyle() {
    String yaml = print(Format.yaml);
    assertThat(yaml).startsWith("agents:\n- agentId: echo-1\n");
    Map<String, Object> read = new Yaml().load(yaml);
    assertThat(new JsonObject(read)).isEqualTo(DOC);
  }

  @Test
  void anEmptyListingIsItsHeaderOnly() {
    assertThat(Rendering.table(List.of(), COLUMNS)).isEqualTo("ID  NAME  STATE  NODE  CAPS\n");
  }
}
