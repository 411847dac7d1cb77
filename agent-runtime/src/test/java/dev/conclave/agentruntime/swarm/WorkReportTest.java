package dev.conclave.agentruntime.swarm;

import dev.conclave.agent.backend.BackendHandler;
import dev.conclave.agentruntime.swarm.TaskEnding.Decision;
import dev.conclave.agentruntime.swarm.TaskEnding.Refusal;
import dev.conclave.agentruntime.swarm.TaskEnding.Stop;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a swarm task's COMPLETE and FAIL say, from what its tool calls and its backend did: the files
 * a call writes, the created/modified/deleted lists, the summary and learnings of the answer, test
 * counts from a quality command's output, and the failure type and whether it is recoverable.
 */
class WorkReportTest {

  @Test
  void theFilesACallWritesAreReadFromItsNameAndInput(@TempDir Path dir) {
    assertThat(WritePaths.of("Write", "{\"file_path\":\"src/A.java\",\"content\":\"x\"}", dir)).containsExactly("src/A.java");
    assertThat(WritePaths.of("Edit", "{\"file_path\":\"" + dir.resolve("docs/../README.md") + "\"}", dir)).containsExactly("README.md");
    assertThat(WritePaths.of("mcp__files__write_file", "{\"path\":\"./b.txt\"}", dir)).containsExactly("b.txt");
    assertThat(WritePaths.of("apply_patch", "{\"changes\":[{\"path\":\"x/y.rs\",\"kind\":\"update\"},{\"path\":\"z.rs\"}]}", dir))
      .containsExactly("x/y.rs", "z.rs");
    assertThat(WritePaths.of("apply_patch", "{\"command\":\"*** Begin Patch\\n*** Add File: new.txt\\n+hi\\n*** Update File: old.txt\\n"
      + "*** Move to: moved.txt\\n*** Delete File: gone.txt\\n*** End Patch\"}", dir)).containsExactly("new.txt", "old.txt", "moved.txt", "gone.txt");
    assertThat(WritePaths.of("Write", "{\"file_path\":\"/etc/passwd\"}", dir)).containsExactly("/etc/passwd");
    assertThat(WritePaths.of("Bash", "{\"command\":\"echo hi > out.txt\"}", dir)).as("a shell command's writes are unknown").isEmpty();
    assertThat(WritePaths.of("Read", "{\"file_path\":\"a.txt\"}", dir)).isEmpty();
  }

  @Test
  void theListsSayWhatTheCallsThatRanDidToEachFile(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("old.txt"), "old");
    Files.writeString(dir.resolve("doomed.txt"), "bye");
    FileChanges changes = new FileChanges(dir);
    changes.announced("t1", "Write", "{\"file_path\":\"new.txt\"}");
    Files.writeString(dir.resolve("new.txt"), "new");
    changes.finished("t1", false);
    changes.announced("t2", "Edit", "{\"file_path\":\"old.txt\"}");
    Files.writeString(dir.resolve("old.txt"), "changed");
    changes.finished("t2", false);
    changes.announced("t3", "delete_file", "{\"path\":\"doomed.txt\"}");
    Files.delete(dir.resolve("doomed.txt"));
    changes.finished("t3", false);
    changes.announced("t4", "Write", "{\"file_path\":\"refused.txt\"}");
    changes.finished("t4", true);
    changes.announced("t5", "Write", "{\"file_path\":\"temp.txt\"}");
    Files.writeString(dir.resolve("temp.txt"), "t");
    changes.finished("t5", false);
    changes.announced("t6", "delete_file", "{\"path\":\"temp.txt\"}");
    Files.delete(dir.resolve("temp.txt"));
    changes.finished("t6", false);

    FileChanges.Lists lists = changes.lists();
    assertThat(lists.created()).containsExactly("new.txt");
    assertThat(lists.modified()).containsExactly("old.txt");
    assertThat(lists.deleted()).containsExactly("doomed.txt");
    JsonObject result = new JsonObject();
    lists.into(result);
    assertThat(result.getJsonArray("filesCreated")).containsExactly("new.txt");
  }

  @Test
  void theAnswerGivesTheSummaryAndTheLearnings() {
    String answer = "Added the login form.\nTests pass.\n\n**Learnings:**\n- the Input needs an id\n* labels are read by tests\nThanks";
    assertThat(Answers.summary(answer)).isEqualTo("Added the login form.\nTests pass.");
    assertThat(Answers.learnings(answer)).containsExactly("the Input needs an id", "labels are read by tests");
    assertThat(Answers.learnings("no heading here\n- not a learning")).isEmpty();
    assertThat(Answers.summary("")).isEqualTo("(the backend gave no summary)");
    assertThat(Answers.summary("x".repeat(30_000))).hasSize(Answers.SUMMARY_MAX);
  }

  @Test
  void testCountsAreReadWhereTheRunnersPrintThem() {
    assertThat(TestCounts.parse("[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 0\n[ERROR] Tests run: 42, Failures: 1, Errors: 1, Skipped: 2"))
      .contains(new TestCounts(40, 38));
    assertThat(TestCounts.parse("Tests:       1 failed, 5 passed, 6 total")).contains(new TestCounts(6, 5));
    assertThat(TestCounts.parse("==== 2 failed, 40 passed, 1 skipped in 2.31s ====")).contains(new TestCounts(42, 40));
    assertThat(TestCounts.parse("test result: ok. 12 passed; 0 failed; 0 ignored\ntest result: FAILED. 3 passed; 1 failed; 0 ignored"))
      .contains(new TestCounts(16, 15));
    assertThat(TestCounts.parse("# tests 6\n# pass 5\n# fail 1\n")).contains(new TestCounts(6, 5));
    assertThat(TestCounts.parse("=== RUN TestA\n--- PASS: TestA (0.00s)\n--- FAIL: TestB (0.01s)\n")).contains(new TestCounts(2, 1));
    assertThat(TestCounts.parse("BUILD SUCCESS")).isEmpty();
    assertThat(QualityCheck.metrics(true, TestCounts.parse("BUILD SUCCESS"))).isEqualTo(new JsonObject().put("testsRan", 0L)
      .put("testsPassed", 0L).put("lintErrors", 0).put("typeErrors", 0).put("buildSuccess", true));
  }

  @Test
  void howARunEndedDecidesTheReport() {
    assertThat(decide(null, null, null, null).completes()).isTrue();
    assertFail(decide(Stop.TIMEOUT, null, null, null), "task_timeout", true);
    assertFail(decide(Stop.RELEASE, null, null, null), "agent_crash", true);
    assertFail(decide(Stop.SHUTDOWN, Refusal.DENIED, "x", null), "agent_crash", true);
    assertFail(decide(Stop.OUTSIDE, null, null, null), "task_error", true);
    assertThat(decide(Stop.TAKEN_AWAY, null, null, null).report()).as("a task taken away is not reported").isFalse();
    assertFail(decide(null, Refusal.LEASE, "busy", "The AI service failed"), "resource_error", true);
    assertFail(decide(null, Refusal.APPROVAL_TIMEOUT, "nobody answered", null), "resource_error", true);
    assertFail(decide(null, Refusal.DENIED, "denied: the user did not approve Write", null), "resource_error", false);
    assertFail(decide(null, null, null, BackendHandler.FRIENDLY_UNAVAILABLE), "task_error", true);
    assertFail(decide(null, null, null, "API Error: 529 overloaded"), "task_error", true);
    assertFail(decide(null, null, null, "Claude Code failed: Invalid API key"), "task_error", false);
    Decision notOpened = TaskEnding.decide(null, null, null, null, null, "gateway_unavailable", 60);
    assertFail(notOpened, "resource_error", true);
    assertThat(TaskEnding.decide(Stop.SHUTDOWN, "shutdown signal", null, null, null, null, 60).failure().orElseThrow()
      .getString("message")).isEqualTo("released: the agent is stopping (shutdown signal)");
  }

  private static Decision decide(Stop stop, Refusal refusal, String refusalReason, String error) {
    return TaskEnding.decide(stop, stop == null ? null : "why", refusal, refusalReason, error, null, 60);
  }

  private static void assertFail(Decision d, String type, boolean recoverable) {
    assertThat(d.report()).isTrue();
    JsonObject failure = d.failure().orElseThrow(() -> new AssertionError("expected a FAIL, got COMPLETE"));
    assertThat(List.of(failure.getString("type"), failure.getBoolean("recoverable"))).containsExactly(type, recoverable);
  }
}
