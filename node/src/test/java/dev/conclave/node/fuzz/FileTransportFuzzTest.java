package dev.conclave.node.fuzz;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.GenerationMode;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterProperty;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The swarm coordinator's file transport (docs/swarm.md, "File transport"): hostile request files
 * dropped into {@code swarm/protocol/requests/} the way an agent does (written under a hidden name,
 * renamed into place): mutations of every operation's request, malformed JSON, non-objects, files
 * over the size limit, and things that are not regular files (a directory, a link, a FIFO). Each
 * must be answered with a response file holding a JSON object; a failure must be below 500 and not
 * {@code internal}; no response may name a Java class; nothing may be logged with a stack trace or at ERROR.
 */
class FileTransportFuzzTest {

  private static final String SURFACE = "file-transport";
  private static final AtomicInteger NAMES = new AtomicInteger();

  private final FuzzNode f = FuzzNode.get();
  private final Strays strays = new Strays();
  private final Path dir = f.node.dataDir().resolve("swarm").resolve("protocol");

  enum Kind { FILE, DIRECTORY, LINK, FIFO }

  /** One generated request file. */
  record FileCase(Kind kind, byte[] content) {
    @Override
    public String toString() {
      return kind == Kind.FILE ? "request file " + Hostile.show(content) : "a " + kind.name().toLowerCase() + " as request file";
    }
  }

  @Property(tries = 1000, seed = FuzzSeeds.SEED, shrinking = ShrinkingMode.BOUNDED, generation = GenerationMode.RANDOMIZED)
  void everyRequestFileIsAnsweredPrecisely(@ForAll("files") FileCase c) throws IOException {
    strays.collect(f.logs);
    String name = "fz-" + NAMES.incrementAndGet();
    Path requests = dir.resolve("requests");
    Path temp = requests.resolve("." + name + ".tmp");
    switch (c.kind()) {
      case FILE -> Files.write(temp, c.content());
      case DIRECTORY -> Files.createDirectory(temp);
      case LINK -> Files.createSymbolicLink(temp, Path.of("/etc/hostname"));
      case FIFO -> {
        try {
          if (new ProcessBuilder("mkfifo", temp.toString()).start().waitFor() != 0) {
            return;
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
    Files.move(temp, requests.resolve(name + ".json"), StandardCopyOption.ATOMIC_MOVE);
    Path response = dir.resolve("responses").resolve(name + "-response.json");
    long deadline = System.nanoTime() + 15_000_000_000L;
    while (!Files.exists(response) && System.nanoTime() < deadline) {
      FuzzNode.sleep(5);
    }
    String operation = operation(c.content());
    Findings found = new Findings(SURFACE, operation == null ? "(no operation)" : operation, c);
    if (!Files.exists(response)) {
      found.add("no response file within 15 s", "request " + name + ".json still "
        + (Files.exists(requests.resolve(name + ".json")) ? "waiting in requests/" : "taken, never answered"));
    } else {
      String text = Files.readString(response, StandardCharsets.UTF_8);
      Files.deleteIfExists(response);
      JsonObject answer = null;
      try {
        answer = new JsonObject(text);
      } catch (RuntimeException e) {
        found.add("the response is not a JSON object", Findings.abbreviate(text, 400));
      }
      // an error answer carries code and status (a refusal such as task_not_assigned is a protocol answer, not an error)
      if (answer != null && Boolean.FALSE.equals(answer.getValue("success")) && answer.containsKey("code")) {
        Object status = answer.getValue("status");
        if (!(status instanceof Number n) || n.intValue() >= 500 || "internal".equals(answer.getValue("code"))) {
          found.add("failed with status " + status + " code " + answer.getValue("code"), Findings.abbreviate(text, 600));
        }
      }
      found.leaks("response", text);
    }
    found.logs(f.logs.drain());
    found.close();
  }

  private static String operation(byte[] content) {
    if (content == null) {
      return null;
    }
    try {
      Object op = new JsonObject(new String(content, StandardCharsets.UTF_8)).getValue("operation");
      return op instanceof String s && s.matches("[A-Z_]{1,20}") ? s : null;
    } catch (RuntimeException e) {
      return null;
    }
  }

  @AfterProperty
  void nodeIsStillWell() {
    strays.endOfProperty(SURFACE, f);
  }

  // ---- generation ------------------------------------------------------------------------------

  @Provide
  Arbitrary<FileCase> files() {
    Arbitrary<byte[]> mutated = Combinators.combine(Arbitraries.of(templates().values().stream().toList()), Hostile.mutations())
      .as((t, ms) -> Hostile.mutate(t, ms).getBytes(StandardCharsets.UTF_8));
    Arbitrary<byte[]> content = Arbitraries.frequencyOf(
      Tuple.of(12, mutated),
      Tuple.of(3, Hostile.malformedDocuments()),
      Tuple.of(1, Arbitraries.integers().between(FuzzNode.FILE_MAX_BYTES - 64, FuzzNode.FILE_MAX_BYTES + 64)
        .map(n -> ("{\"protocolVersion\":\"1.0\",\"operation\":\"CLAIM\",\"agentId\":\"" + "a".repeat(Math.max(0, n - 64)) + "\"}")
          .getBytes(StandardCharsets.UTF_8))));
    Arbitrary<FileCase> files = content.map(b -> new FileCase(Kind.FILE, b));
    return Arbitraries.frequencyOf(Tuple.of(40, files),
      Tuple.of(1, Arbitraries.of(Kind.DIRECTORY, Kind.LINK, Kind.FIFO).map(k -> new FileCase(k, null))));
  }

  private static Map<String, JsonObject> templates() {
    String agent = FuzzNode.SWARM_AGENT;
    String task = FuzzNode.TASK_ID;
    Map<String, JsonObject> t = new LinkedHashMap<>();
    t.put("REGISTER", op("REGISTER").put("agent", new JsonObject().put("id", "fz-file-agent").put("name", "fuzz").put("type", "claude-code")
      .put("capabilities", new JsonObject().put("skills", new JsonArray().add("fuzzing")).put("maxTaskMinutes", 60).put("canRunTests", true)
        .put("canRunBuild", true).put("canAccessBrowser", false))).put("machine", new JsonObject().put("id", "m1").put("hostname", "h")
      .put("pid", 1)));
    t.put("HEARTBEAT", op("HEARTBEAT").put("agentId", agent).put("status", "idle").put("currentTask", task));
    t.put("CLAIM", op("CLAIM").put("agentId", agent).put("filter", new JsonObject().put("priorities", new JsonArray().add("high"))));
    t.put("PROGRESS", op("PROGRESS").put("agentId", agent).put("taskId", task).put("progress", new JsonObject().put("phase", "implementing")
      .put("percentComplete", 10).put("description", "working")));
    t.put("COMPLETE", op("COMPLETE").put("agentId", agent).put("taskId", task).put("result", new JsonObject()
      .put("filesCreated", new JsonArray()).put("filesModified", new JsonArray().add("src/a.ts")).put("filesDeleted", new JsonArray())
      .put("summary", "done").put("learnings", new JsonArray().add("x"))).put("qualityMetrics", new JsonObject().put("testsRan", 1)
      .put("testsPassed", 1).put("lintErrors", 0).put("typeErrors", 0).put("buildSuccess", true)));
    t.put("FAIL", op("FAIL").put("agentId", agent).put("taskId", task).put("failure", new JsonObject().put("type", "task_error")
      .put("message", "broke").put("details", "").put("recoverable", true)));
    t.put("SEND_MESSAGE", op("SEND_MESSAGE").put("agentId", agent).put("message", new JsonObject().put("to", agent)
      .put("type", "info.discovery").put("payload", new JsonObject().put("n", 1)).put("ackRequired", true)));
    t.put("RECEIVE_MESSAGES", op("RECEIVE_MESSAGES").put("agentId", agent).put("limit", 10));
    t.put("ACQUIRE_LEASE", op("ACQUIRE_LEASE").put("agentId", agent).put("taskId", task).put("filePath", "src/a.ts").put("durationMs", 60_000));
    t.put("RELEASE_LEASE", op("RELEASE_LEASE").put("agentId", agent).put("filePath", "src/a.ts"));
    t.put("ACK_MESSAGE", op("ACK_MESSAGE").put("agentId", agent).put("messageId", "00000000-0000-0000-0000-000000000000"));
    return t;
  }

  private static JsonObject op(String operation) {
    return new JsonObject().put("protocolVersion", "1.0").put("operation", operation);
  }

}
