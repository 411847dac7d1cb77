package dev.conclave.agentruntime.swarm;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** What the program tells the coordinator about itself: its REGISTER's {@code agent}, its heartbeat's {@code metrics}. */
final class Registration {

  private Registration() {
  }

  static JsonObject agent(SwarmConfig config, String agentId, String name) {
    String host = hostname();
    return new JsonObject().put("id", agentId).put("name", name).put("type", config.agentType())
      .put("capabilities", new JsonObject().put("skills", new JsonArray(config.skills())).put("maxTaskMinutes", config.maxTaskMinutes())
        // the program does not fix regressions itself: a quality gate that fails goes to an operator's review
        .put("canRunTests", false).put("canRunBuild", false).put("canAccessBrowser", false))
      .put("machine", new JsonObject().put("id", host).put("hostname", host).put("pid", ProcessHandle.current().pid()));
  }

  static JsonObject metrics(int tasksCompleted) {
    long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    return new JsonObject().put("memoryUsedMB", Math.max(0, used / (1024 * 1024))).put("tasksCompletedSession", tasksCompleted);
  }

  private static String hostname() {
    String h = System.getenv("HOSTNAME");
    if (h != null && !h.isBlank()) {
      return h;
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
