package dev.conclave.packs.conformance;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.conclave.packs.support.PackHost;
import dev.conclave.packs.support.RawPack;
import dev.conclave.proto.coven.ExecuteToolRequest;
import dev.conclave.proto.coven.PackManifest;
import dev.conclave.proto.coven.PackToolResult;
import dev.conclave.proto.coven.ToolDefinition;
import io.vertx.grpc.common.GrpcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A tool's input schema is compiled and checked when its pack registers, so that what registers
 * works on every call: only local references ({@code #/…}), valid regular expressions, a known
 * dialect. A schema that breaks a rule refuses the registration naming the tool and the problem;
 * no answer, at registration or on a call, names a Java class. Reserved pack ids are refused
 * whatever their case.
 */
class ManifestSchemasTest {

  /** What a Java class name or an exception looks like in a message. */
  private static final Pattern JAVA = Pattern.compile("\\b(java|javax|com|org|io|tools)\\.[a-z]+\\.|Exception\\b|Error:");

  private static PackHost host;
  private static String token;
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

  @BeforeAll
  static void start() {
    host = PackHost.start();
    token = host.packToken("schemas");
  }

  @AfterAll
  static void stop() {
    host.close();
  }

  @BeforeEach
  void watchTheLog() {
    lines.start();
    root.addAppender(lines);
  }

  @AfterEach
  void nothingAtErrorOrWithAStack() {
    root.detachAppender(lines);
    assertThat(lines.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR) || e.getThrowableProxy() != null)
      .map(e -> e.getLevel() + " " + e.getLoggerName() + " " + e.getFormattedMessage())).isEmpty();
  }

  @Test
  void aReferenceOutsideTheSchemaIsRefusedAtRegistration() {
    for (String ref : new String[] {"http://127.0.0.1:9/schema.json", "https://example.com/s.json#/$defs/a", "file:///etc/passwd",
      "other.json", "urn:example:thing", "//example.com/x", "classpath:draft/2020-12/schema", "#/$defs/a/../../b", "#/$defs/missing"}) {
      refused(schema("{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":" + quote(ref) + "}}}"), "$ref");
    }
    refused(schema("{\"type\":\"object\",\"$defs\":{\"d\":{\"$dynamicRef\":\"http://example.com/d\"}}}"), "$dynamicRef");
    refused(schema("{\"$schema\":\"http://example.com/my-dialect\",\"type\":\"object\"}"), "$schema");
    // a local reference into a part of the schema the walk does not read is still compiled and refused
    refused(schema("{\"type\":\"object\",\"x-parts\":{\"s\":{\"$ref\":\"http://example.com/x\"}},"
      + "\"properties\":{\"a\":{\"$ref\":\"#/x-parts/s\"}}}"), "outside the schema");
  }

  @Test
  void anInvalidPatternIsRefusedAtRegistration() {
    refused(schema("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"pattern\":\"[\"}}}"), "pattern");
    refused(schema("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"pattern\":\"(?<\"}}}"), "pattern");
    refused(schema("{\"type\":\"object\",\"patternProperties\":{\"(\":{\"type\":\"string\"}}}"), "patternProperties");
  }

  @Test
  void whatRegistersWorksOnEveryCallAndNoAnswerNamesAJavaClass() {
    String schema = "{\"type\":\"object\",\"required\":[\"code\"],\"properties\":{\"code\":{\"$ref\":\"#/$defs/code\"},"
      + "\"n\":{\"type\":\"integer\",\"maximum\":10}},\"$defs\":{\"code\":{\"type\":\"string\",\"pattern\":\"^[A-Z]{3}$\"}}}";
    try (RawPack pack = host.registerPack(token, RawPack.manifest("schemas", ToolDefinition.newBuilder().setName("coded_tool")
        .setDescription("d").setInputSchemaJson(schema).build()));
         PackHost.ToolAgent agent = host.agent("schema-caller")) {
      assertThat(pack.welcome().getRejectedToolsList()).isEmpty();
      for (String bad : new String[] {"{\"code\":\"abc\"}", "{}", "{\"code\":\"ABC\",\"n\":\"x\"}", "{\"code\":\"ABC\",\"n\":11}",
        "{\"code\":\"ABC\",\"n\":1e400}", "{\"code\":[\"ABC\"]}"}) {
        PackToolResult r = agent.run("bad-" + bad.hashCode(), "coded_tool", bad);
        assertThat(r.getError()).as(bad).startsWith("invalid input for tool 'coded_tool': ");
        assertThat(JAVA.matcher(r.getError()).find()).as(r.getError()).isFalse();
      }
      agent.call("good", "coded_tool", "{\"code\":\"ABC\",\"n\":3}");
      ExecuteToolRequest call = pack.nextCall();
      pack.answer(call.getRequestId(), "{\"ok\":true}");
      assertThat(agent.result().getOutputJson()).isEqualTo("{\"ok\":true}");
    }
  }

  @Test
  void reservedPackIdsAreRefusedWhateverTheirCase() {
    for (String id : new String[] {"builtin", "BUILTIN", "Builtin", "builtin:notes", "BUILTIN:evil", "BuiltIn:x"}) {
      RawPack.End end = host.openPack(token, RawPack.manifest(id, RawPack.tool("reserved_tool"))).awaitEnd();
      assertThat(end.status()).as(id).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
      assertThat(end.message()).as(id).startsWith("manifest_invalid: pack_id").contains("reserved");
    }
    // a pack id that merely starts with the letters is fine
    try (RawPack ok = host.registerPack(token, RawPack.manifest("builtins-fan", RawPack.tool("fan_tool")))) {
      assertThat(ok.welcome().getPackId()).isEqualTo("builtins-fan");
    }
  }

  private static PackManifest schema(String inputSchema) {
    return RawPack.manifest("schemas", ToolDefinition.newBuilder().setName("schema_tool").setDescription("d")
      .setInputSchemaJson(inputSchema).build());
  }

  private static void refused(PackManifest manifest, String problem) {
    RawPack.End end = host.openPack(token, manifest).awaitEnd();
    String schema = manifest.getTools(0).getInputSchemaJson();
    assertThat(end.status()).as(schema).isEqualTo(GrpcStatus.INVALID_ARGUMENT);
    assertThat(end.message()).as(schema).startsWith("manifest_invalid: tools[0].input_schema_json (tool 'schema_tool') ").contains(problem);
    assertThat(JAVA.matcher(end.message()).find()).as(end.message()).isFalse();
  }

  private static String quote(String s) {
    return io.vertx.core.json.Json.encode(s);
  }
}
