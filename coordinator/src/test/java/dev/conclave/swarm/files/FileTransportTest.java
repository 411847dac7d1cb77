package dev.conclave.swarm.files;

import dev.conclave.swarm.support.SwarmApi;
import dev.conclave.swarm.support.SwarmNode;
import dev.conclave.swarm.support.Waits;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

import static dev.conclave.swarm.support.SwarmApi.v1;
import static org.assertj.core.api.Assertions.assertThat;

/** The file-based transport: request files in, response files out, the same protocol as HTTP. */
class FileTransportTest {

  private static SwarmNode swarm;
  private static Path dir;

  @BeforeAll
  static void start() {
    swarm = SwarmNode.start();
    dir = swarm.node().dataDir().resolve("swarm").resolve("protocol");
  }

  @AfterAll
  static void stop() {
    swarm.close();
  }

  /** Writes a request the way an agent should: a temp name first, then a rename into requests/. */
  static void request(Path dir, String name, String content) {
    try {
      Path temp = dir.resolve(".tmp-" + UUID.randomUUID());
      Files.writeString(temp, content, StandardCharsets.UTF_8);
      Files.move(temp, dir.resolve("requests").resolve(name), StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonObject response(Path dir, String requestName) {
    Path file = dir.resolve("responses").resolve(requestName.replace(".json", "-response.json"));
    Waits.until(() -> Files.exists(file), Duration.ofSeconds(10), "response " + file.getFileName());
    try {
      return new JsonObject(Files.readString(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JsonObject roundTrip(String name, JsonObject request) {
    request(dir, name, request.encode());
    return response(dir, name);
  }

  @Test
  void theProtocolWorksThroughFiles() {
    String id = "file-agent-" + UUID.randomUUID().toString().substring(0, 6);
    String skill = "files-" + id;
    swarm.api().createTasks(new JsonArray().add(new JsonObject().put("id", "task-" + id).put("title", "via files")
      .put("requiredSkills", new JsonArray().add(skill))));

    JsonObject registered = roundTrip(id + "-register.json", v1().put("operation", "REGISTER")
      .put("agent", SwarmApi.agentSpec(id, List.of(skill))));
    assertThat(registered.getBoolean("success")).as(registered.encode()).isTrue();
    assertThat(registered.containsKey("agentSecret")).as("no HMAC secret through files").isFalse();

    JsonObject claimed = roundTrip(id + "-claim.json", v1().put("operation", "CLAIM").put("agentId", id));
    assertThat(claimed.getJsonObject("task").getString("id")).isEqualTo("task-" + id);

    JsonObject completed = roundTrip(id + "-complete.json", v1().put("operation", "COMPLETE").put("agentId", id)
      .put("taskId", "task-" + id).put("result", SwarmApi.result("done by file")));
    assertThat(completed.getBoolean("qualityGatePassed")).isTrue();
    assertThat(swarm.api().task("task-" + id).getString("status")).isEqualTo("completed");

    JsonObject heartbeat = roundTrip(id + "-heartbeat.json", v1().put("operation", "HEARTBEAT").put("agentId", id).put("status", "idle"));
    assertThat(heartbeat.getBoolean("success")).isTrue();
    assertThat(processingAndTemps()).isEmpty();
  }

  @Test
  void badRequestFilesGetErrorResponses() {
    String prefix = "bad-" + UUID.randomUUID().toString().substring(0, 6);
    request(dir, prefix + "-garbage.json", "{not json");
    request(dir, prefix + "-array.json", "[1,2]");
    request(dir, prefix + "-version.json", new JsonObject().put("protocolVersion", "2.0").put("operation", "CLAIM").encode());
    request(dir, prefix + "-operation.json", v1().put("operation", "TELEPORT").encode());
    request(dir, prefix + "-field.json", v1().put("operation", "CLAIM").encode());
    request(dir, prefix + "-unknown.json", v1().put("operation", "HEARTBEAT").put("agentId", "nobody-" + prefix).put("status", "idle").encode());

    assertThat(response(dir, prefix + "-garbage.json").getString("code")).isEqualTo("invalid_operation");
    assertThat(response(dir, prefix + "-array.json").getString("code")).isEqualTo("invalid_operation");
    assertThat(response(dir, prefix + "-version.json").getString("code")).isEqualTo("unsupported_protocol_version");
    JsonObject operation = response(dir, prefix + "-operation.json");
    assertThat(operation.getBoolean("success")).isFalse();
    assertThat(operation.getString("field")).isEqualTo("operation");
    assertThat(response(dir, prefix + "-field.json").getString("field")).isEqualTo("agentId");
    JsonObject unknown = response(dir, prefix + "-unknown.json");
    assertThat(unknown.getString("code")).isEqualTo("agent_not_registered");
    assertThat(unknown.getInteger("status")).isEqualTo(404);
    assertThat(unknown.getString("error")).contains("not registered");
  }

  @Test
  void otherFilesAreLeftAlone() throws IOException {
    Path notes = dir.resolve("requests").resolve("notes.txt");
    Files.writeString(notes, "hello");
    String name = "after-" + UUID.randomUUID().toString().substring(0, 6) + ".json";
    request(dir, name, v1().put("operation", "CLAIM").put("agentId", "x").encode());

    response(dir, name);

    assertThat(notes).exists();
  }

  @Test
  void linksPlantedWhereResponsesAreWrittenAreNeverFollowed() throws Exception {
    String base = "links-" + UUID.randomUUID().toString().substring(0, 6);
    Path victim = Files.createTempFile("conclave-victim", ".txt");
    Files.writeString(victim, "precious");
    // at the temp name the transport used to write first, and at the response's own name
    Path oldTemp = dir.resolve("responses").resolve("." + base + "-response.json." + swarm.node().runtime().context().nodeId() + ".tmp");
    Files.createSymbolicLink(oldTemp, victim);
    Files.createSymbolicLink(dir.resolve("responses").resolve(base + "-response.json"), victim);

    request(dir, base + ".json", v1().put("operation", "CLAIM").put("agentId", "x").encode());
    Path response = dir.resolve("responses").resolve(base + "-response.json");
    Waits.until(() -> !Files.isSymbolicLink(response) && Files.exists(response), Duration.ofSeconds(10), "the response replacing the link");

    assertThat(Files.readString(victim)).isEqualTo("precious");
    assertThat(new JsonObject(Files.readString(response)).getBoolean("success")).isFalse();
    Files.delete(oldTemp);
  }

  @Test
  void aFifoOrALinkNamedLikeARequestIsRefusedAndStallsNothing() throws Exception {
    String base = "hostile-" + UUID.randomUUID().toString().substring(0, 6);
    Path fifo = dir.resolve("requests").resolve(base + "-fifo.json");
    assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
    Path secret = Files.createTempFile("conclave-secret", ".json");
    Files.writeString(secret, v1().put("operation", "CLAIM").put("agentId", "x").encode());
    Files.createSymbolicLink(dir.resolve("requests").resolve(base + "-link.json"), secret);
    // a request after them is still answered: nothing waits on the FIFO
    JsonObject after = roundTrip(base + "-zz-after.json", v1().put("operation", "CLAIM").put("agentId", "x"));
    assertThat(after.containsKey("success")).isTrue();

    assertThat(response(dir, base + "-fifo.json").getString("error")).contains("regular file");
    assertThat(response(dir, base + "-link.json").getString("error")).contains("regular file");
    assertThat(secret).exists();
  }

  private static List<Path> processingAndTemps() {
    try (Stream<Path> processing = Files.list(dir.resolve("processing"));
         Stream<Path> responses = Files.list(dir.resolve("responses"))) {
      return Stream.concat(processing, responses.filter(p -> p.getFileName().toString().startsWith("."))).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
