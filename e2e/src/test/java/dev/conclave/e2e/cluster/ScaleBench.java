package dev.conclave.e2e.cluster;

import dev.conclave.e2e.support.BenchMain;
import ch.qos.logback.classic.Level;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Benchmark, not a test: a node lost at scale (issue 45). 3 real node processes over one
 * PostgreSQL, {@code bench.agents} agents of the agent SDK, each on its own HTTP/2 connection from
 * its own loopback source address range, spread evenly over the nodes; {@code bench.clients}
 * clients in a closed loop sending to random agents through the whole run; then kill -9 of node-1,
 * which holds a third of the agents. It reports how long until every moved agent was registered on
 * a survivor and had served a request, the requests lost or duplicated (from the ledger), the
 * survivors' CPU, memory and pool waits during the storm, and the clients' round trips before and
 * during it. Its last line:
 * {@code scale: N agents, moved M: registered in X ms, serving in Y ms, lost L, duplicated D, storm p99 P ms}.
 * A phase that fails or passes its limit ends the run with its error and exit code 1; a watchdog
 * ends it with exit code 2 if the run as a whole does not end.
 *
 * <pre>mvn -B -ntp -q -pl e2e -am package -DskipTests exec:java -Dexec.mainClass=dev.conclave.e2e.cluster.ScaleBench \
 *   [-Dbench.agents=10000] [-Dbench.clients=24] [-Dbench.before.seconds=10] [-Dbench.phase.seconds=300] [-Dbench.pool=8]</pre>
 */
public final class ScaleBench {

  private ScaleBench() {
  }

  public static void main(String[] args) {
    // its error, its leftover processes and a hang end the program (BenchMain), as for every benchmark
    BenchMain.run(ScaleBench.class, () -> runBench(args));
  }

  private static void runBench(String[] args) {
    int agents = Integer.getInteger("bench.agents", 10_000);
    int clients = Integer.getInteger("bench.clients", 24);
    Duration before = Duration.ofSeconds(Integer.getInteger("bench.before.seconds", 10));
    Duration phase = Duration.ofSeconds(Integer.getInteger("bench.phase.seconds", 300));
    Map<String, String> env = new HashMap<>();
    if (System.getProperty("bench.pool") != null) {
      env.put("CONCLAVE_PG_POOL_SIZE", System.getProperty("bench.pool"));
    }
    watchdog(phase.multipliedBy(4).plusMinutes(10));
    // the SDK logs every connection of every agent: only errors, or the storm drowns the report
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger("dev.conclave.agent")).setLevel(Level.ERROR);
    int code = 0;
    try {
      raiseFileLimit(agents + agents / 3 + 4096);
      System.out.printf("scale bench: 3 nodes, %d agents (each on its own connection), %d clients, kill -9 of node-1; load %s%n",
        agents, clients, loadAverage());
      StormRun.Result r = new StormRun(new StormRun.Settings(agents, clients, before, phase, env), System.out).run();
      System.out.printf("machine load after the run: %s%n", loadAverage());
      System.out.println(r.lastLine());
      BenchMain.requireCompleted("agents moved by the kill", r.moved());
      BenchMain.requireCompleted("client round trips without an error",
        r.before().requests() - r.before().errors() + r.storm().requests() - r.storm().errors());
    } catch (Throwable t) {
      System.out.flush();
      System.err.println("scale bench failed: " + t);
      t.printStackTrace();
      code = 1;
    }
    System.out.flush();
    System.exit(code);
  }

  /** If the run does not end by {@code limit}: kills the nodes and the database this JVM started, and ends it with exit code 2. */
  private static void watchdog(Duration limit) {
    Thread t = new Thread(() -> {
      try {
        Thread.sleep(limit.toMillis());
      } catch (InterruptedException e) {
        return;
      }
      System.err.println("scale bench: no end after " + limit.toMinutes() + " min; stopping");
      ProcessHandle.current().descendants().forEach(ProcessHandle::destroyForcibly);
      Runtime.getRuntime().halt(2);
    }, "scale-bench-watchdog");
    t.setDaemon(true);
    t.start();
  }

  /**
   * Each agent holds a socket in this JVM, and a moved agent (a third of them) briefly another while it
   * reconnects, with room for the JVM's own files on top (twice the agents asked for 24,096 at 10,000,
   * above this machine's hard limit of 20,000, which even root cannot raise here): raises this
   * process's open-file limit (which the nodes it starts inherit) with {@code prlimit} when it is
   * lower than {@code needed}, or says why it cannot.
   */
  static void raiseFileLimit(long needed) throws IOException, InterruptedException {
    long soft = fileLimit();
    if (soft >= needed) {
      return;
    }
    long pid = ProcessHandle.current().pid();
    Process p = new ProcessBuilder("prlimit", "--pid", Long.toString(pid), "--nofile=" + needed + ":" + needed).inheritIO().start();
    if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0 || fileLimit() < needed) {
      throw new IllegalStateException("open files limit " + soft + " is below the " + needed + " this run needs, and prlimit could not "
        + "raise it; run as root or raise it first (ulimit -n)");
    }
    System.out.printf("open files limit raised from %d to %d%n", soft, needed);
  }

  private static long fileLimit() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
      if (line.startsWith("Max open files")) {
        return Long.parseLong(line.substring("Max open files".length()).trim().split("\\s+")[0]);
      }
    }
    return Long.MAX_VALUE;
  }

  static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }
}
