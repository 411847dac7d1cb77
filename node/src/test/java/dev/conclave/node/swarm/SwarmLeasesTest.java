package dev.conclave.node.swarm;

import dev.conclave.agentruntime.config.AgentSettings;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two swarm agents whose backend (a stand-in Claude Code, fake-cli/claude-swarm) writes files
 * through its tools: before a write runs, the tool gate holds the file's lease for the task, so two
 * tasks writing the same file take turns, the second waiting; COMPLETE lists the files the calls
 * created, modified and deleted.
 */
class SwarmLeasesTest {

  private static SwarmFixture f;
  private static Path claude;

  @BeforeAll
  static void start() {
    f = new SwarmFixture();
    claude = SwarmFixture.standInClaude();
  }

  @AfterAll
  static void stop() {
    if (f != null) {
      f.close();
    }
  }

  @Test
  void twoTasksWritingOneFileTakeTurnsAndEachCompletesWithItsFiles() throws Exception {
    Path log = Files.createTempFile("claude-swarm", ".log");
    Map<dev.conclave.settings.Setting<?>, String> flags = Map.of(AgentSettings.BACKEND, "claude-cli",
      AgentSettings.COMMAND, claude.toString(), AgentSettings.MODE, "auto", AgentSettings.SKILLS, "files");
    SwarmFixture.Program a = f.start("lease-a", flags, UnaryOperator.identity());
    SwarmFixture.Program b = f.start("lease-b", flags, UnaryOperator.identity());
    Files.writeString(a.workdir().resolve("old.txt"), "old\n");
    Files.writeString(b.workdir().resolve("old.txt"), "old\n");
    String steps1 = "step: write shared.txt one\nstep: append old.txt more\nstep: sleep 4\nstep: delete old.txt\nstep: learn shared.txt is busy";
    String steps2 = "step: write shared.txt two\nstep: write own.txt mine";
    f.createTask(new JsonObject().put("tasks", new JsonArray()
      .add(new JsonObject().put("id", "lease-1").put("title", "first writer").put("description", steps1)
        .put("requiredSkills", new JsonArray().add("files")))
      .add(new JsonObject().put("id", "lease-2").put("title", "second writer").put("description", steps2)
        .put("requiredSkills", new JsonArray().add("files")))));

    JsonObject t1 = f.awaitTask("lease-1", t -> t.getString("status").equals("completed"), Duration.ofSeconds(120));
    JsonObject t2 = f.awaitTask("lease-2", t -> t.getString("status").equals("completed"), Duration.ofSeconds(120));
    assertThat(t1.getString("assignedAgent")).isNotEqualTo(t2.getString("assignedAgent"));

    JsonObject r1 = t1.getJsonObject("result");
    assertThat(r1.getJsonArray("filesCreated")).containsExactly("shared.txt");
    assertThat(r1.getJsonArray("filesModified")).isEmpty();
    assertThat(r1.getJsonArray("filesDeleted")).containsExactly("old.txt");
    assertThat(r1.getJsonArray("learnings")).containsExactly("shared.txt is busy");
    JsonObject r2 = t2.getJsonObject("result");
    assertThat(r2.getJsonArray("filesCreated")).containsExactlyInAnyOrder("shared.txt", "own.txt");

    // the lease on shared.txt: each task held it in turn, never both at once
    Interval i1 = leaseOf("lease-1", "shared.txt");
    Interval i2 = leaseOf("lease-2", "shared.txt");
    assertThat(i1.end().isAfter(i2.start()) && i2.end().isAfter(i1.start())).as("held at once: %s and %s", i1, i2).isFalse();
    assertThat(f.conversation("swarm:lease-1").encode()).contains("Write").contains("shared.txt");

    assertThat(a.stopAndWait("test over")).isZero();
    assertThat(b.stopAndWait("test over")).isZero();
  }

  private record Interval(Instant start, Instant end) {
  }

  /** When the task held the file's lease: from 'acquired' to 'released' in its history. */
  private static Interval leaseOf(String task, String file) {
    List<JsonObject> leases = f.history(task).stream().map(JsonObject.class::cast)
      .filter(e -> e.getString("kind").equals("lease") && file.equals(e.getJsonObject("data").getString("filePath"))).toList();
    Instant start = leases.stream().filter(e -> e.getString("event").equals("acquired")).map(e -> Instant.parse(e.getString("at")))
      .findFirst().orElseThrow(() -> new AssertionError("no lease acquired in " + leases));
    Instant end = leases.stream().filter(e -> e.getString("event").equals("released")).map(e -> Instant.parse(e.getString("at")))
      .findFirst().orElseThrow(() -> new AssertionError("no lease released in " + leases));
    return new Interval(start, end);
  }
}
