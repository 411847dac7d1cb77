package dev.conclave.e2e.swarm;

import dev.conclave.e2e.support.NodeProcess;
import dev.conclave.platform.testing.FreePorts;
import dev.conclave.platform.testing.TestDatabase;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/swarm-agents.md's walkthrough, run as it is written: its {@code sh} blocks between the
 * walkthrough markers, in order, as one bash script, with a stand-in {@code claude} first on the PATH
 * (agent-runtime's fake-cli/claude-swarm) and free ports. The script must end with exit code 0, every
 * task completed by one of its agents, in its conversation, with the file its step wrote.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class SwarmAgentsDocIT {

  private static final Pattern BLOCK = Pattern.compile("(?s)```sh\\n(.*?)```");

  @Test
  void theWalkthroughRunsAsWritten() throws Exception {
    String doc = Files.readString(Path.of("..", "docs", "swarm-agents.md"));
    int begin = doc.indexOf("<!-- walkthrough:begin -->");
    int end = doc.indexOf("<!-- walkthrough:end -->");
    assertThat(begin).as("the walkthrough's markers").isNotNegative().isLessThan(end);
    Matcher m = BLOCK.matcher(doc.substring(begin, end));
    List<String> blocks = new ArrayList<>();
    while (m.find()) {
      blocks.add(m.group(1));
    }
    assertThat(blocks).as("the walkthrough's steps").hasSize(6);

    Path root = Files.createTempDirectory("conclave-swarm-doc");
    try {
      // ./conclave in the walkthrough is the launcher beside the repository's node jar: here, that jar
      Path launcher = root.resolve("conclave");
      Files.writeString(launcher, "#!/usr/bin/env bash\nexec \"" + Path.of(System.getProperty("java.home"), "bin", "java")
        + "\" -Xmx256m -XX:+UseSerialGC -jar \"" + NodeProcess.jar() + "\" \"$@\"\n");
      Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
      Path bin = root.resolve("bin");
      AgentProgram.installStandIn(bin);
      Path script = root.resolve("walkthrough.sh");
      Files.writeString(script, "set -euo pipefail\n" + String.join("\n", blocks));
      Path out = root.resolve("walkthrough.out");
      ProcessBuilder pb = new ProcessBuilder("bash", script.toString()).directory(root.toFile()).redirectErrorStream(true)
        .redirectOutput(out.toFile());
      pb.environment().keySet().removeIf(k -> k.startsWith("CONCLAVE_"));
      pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
      pb.environment().put("CONCLAVE_HTTP_PORT", Integer.toString(FreePorts.next()));
      pb.environment().put("CONCLAVE_GRPC_PORT", Integer.toString(FreePorts.next()));
      Process p = pb.start();
      boolean ended = p.waitFor(6, TimeUnit.MINUTES);
      if (!ended) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
      }
      String output = Files.readString(out);
      assertThat(ended).as("the walkthrough ended; its output:\n%s", output).isTrue();
      assertThat(p.exitValue()).as("the walkthrough's exit code; its output:\n%s", output).isZero();

      // step 5: every task completed by an agent with its skill, in its own conversation, with its file
      List<JsonObject> tasks = output.lines().filter(l -> l.startsWith("{\"id\":")).map(JsonObject::new).toList();
      assertThat(tasks).extracting(t -> t.getString("id"))
        .containsExactlyInAnyOrder("orders-table", "orders-api", "orders-page", "orders-style", "orders-docs");
      for (JsonObject t : tasks) {
        assertThat(t.getString("conversation")).isEqualTo("swarm:" + t.getString("id"));
        assertThat(t.getJsonArray("created")).as("files created by %s", t.getString("id")).hasSize(1);
      }
      assertThat(tasks.stream().filter(t -> t.getString("id").equals("orders-table")).findFirst().orElseThrow().getString("by"))
        .isEqualTo("backend");
      assertThat(tasks.stream().filter(t -> t.getString("id").equals("orders-api")).findFirst().orElseThrow()
        .getJsonArray("learnings")).containsExactly("the orders API pages by id");
      assertThat(Files.readString(root.resolve("swarm-demo/work-backend/db/V1__orders.sql"))).contains("CREATE TABLE orders");
      assertThat(output).as("the conversation's events").contains("toolUse").contains("done");
    } finally {
      TestDatabase.deleteTree(root);
    }
  }
}
