package dev.conclave.e2e.cluster;

import dev.conclave.e2e.bench.ProcCpu;
import dev.conclave.e2e.support.NodeProcess;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Samples some nodes while a storm runs, every {@value #PERIOD_MS} ms on a thread of its own: the
 * resident memory ({@code VmRSS}), the heap in use and the PostgreSQL pool's wait queue (requests
 * waiting for a connection, {@code vertx_pool_queue_pending}, and the time they waited,
 * {@code vertx_pool_queue_time_seconds}) from each node's {@code /metrics}; with {@link ProcCpu},
 * each node's CPU and its split by thread between {@link #start} and {@link #stop}.
 */
final class NodeGauges {

  static final long PERIOD_MS = 500;
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
    .connectTimeout(Duration.ofSeconds(2)).build();

  /** One node's peaks and totals over the sampled window. */
  static final class Peaks {
    long rssBytes;
    double heapBytes;
    double poolPending;
    double poolWaitsStart = Double.NaN;
    double poolWaitSecondsStart = Double.NaN;
    double poolWaits;
    double poolWaitSeconds;
    double poolWaitMaxSeconds;
    int samples;

    @Override
    public String toString() {
      double meanMs = poolWaits - poolWaitsStart > 0 ? (poolWaitSeconds - poolWaitSecondsStart) * 1000 / (poolWaits - poolWaitsStart) : 0;
      return String.format("RSS peak %.0f MiB, heap in use peak %.0f MiB; PostgreSQL pool: %.0f waiting at most, %.0f acquisitions, "
          + "mean wait %.2f ms, longest %.0f ms (%d samples)", rssBytes / 1048576.0, heapBytes / 1048576.0, poolPending,
        poolWaits - poolWaitsStart, meanMs, poolWaitMaxSeconds * 1000, samples);
    }
  }

  private final Map<String, NodeProcess> nodes;
  private final Map<String, Peaks> peaks = new LinkedHashMap<>();
  private final ProcCpu cpu = new ProcCpu();
  private volatile boolean running;
  private Thread sampler;
  private ProcCpu.Sample cpuStart;
  private ProcCpu.Sample cpuEnd;

  /** @param nodes name → node process; {@code postgres} the embedded database's postmaster, when known */
  NodeGauges(Map<String, NodeProcess> nodes, long postgres, long self) {
    this.nodes = nodes;
    nodes.forEach((name, p) -> {
      peaks.put(name, new Peaks());
      cpu.processByThread(name, p.pid());
    });
    if (postgres > 0) {
      cpu.processTree("postgresql", postgres);
    }
    cpu.processByThread("bench (agents, clients)", self);
  }

  void start() {
    cpuStart = cpu.sample();
    running = true;
    sampler = new Thread(() -> {
      while (running) {
        nodes.forEach((name, p) -> sample(peaks.get(name), p));
        try {
          Thread.sleep(PERIOD_MS);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "node-gauges");
    sampler.setDaemon(true);
    sampler.start();
  }

  void stop() {
    cpuEnd = cpu.sample();
    running = false;
    sampler.interrupt();
  }

  Map<String, Peaks> peaks() {
    return peaks;
  }

  /** Cores each part kept busy over the window. */
  Map<String, Double> cores() {
    double wall = cpuEnd.wallNanos() - cpuStart.wallNanos();
    Map<String, Double> out = new LinkedHashMap<>();
    cpuEnd.cpuNanos().forEach((part, nanos) -> out.put(part, (nanos - cpuStart.cpuNanos().getOrDefault(part, 0L)) / wall));
    return out;
  }

  Map<String, Map<String, Double>> threadSplit() {
    return cpuEnd.threadSplitSince(cpuStart);
  }

  double seconds() {
    return (cpuEnd.wallNanos() - cpuStart.wallNanos()) / 1e9;
  }

  private static void sample(Peaks p, NodeProcess node) {
    p.rssBytes = Math.max(p.rssBytes, rss(node.pid()));
    String text = scrape(node);
    if (text.isEmpty()) {
      return;
    }
    p.samples++;
    p.heapBytes = Math.max(p.heapBytes, sum(text, "jvm_memory_used_bytes", "area=\"heap\""));
    p.poolPending = Math.max(p.poolPending, sum(text, "vertx_pool_queue_pending", "pool_type=\"sql\""));
    double waits = sum(text, "vertx_pool_queue_time_seconds_count", "pool_type=\"sql\"");
    double waited = sum(text, "vertx_pool_queue_time_seconds_sum", "pool_type=\"sql\"");
    if (Double.isNaN(p.poolWaitsStart)) {
      p.poolWaitsStart = waits;
      p.poolWaitSecondsStart = waited;
    }
    p.poolWaits = waits;
    p.poolWaitSeconds = waited;
    p.poolWaitMaxSeconds = Math.max(p.poolWaitMaxSeconds, sum(text, "vertx_pool_queue_time_seconds_max", "pool_type=\"sql\""));
  }

  /** The sum of a metric's samples whose labels contain {@code label} (Prometheus text format). */
  static double sum(String text, String metric, String label) {
    double total = 0;
    for (String line : text.split("\n")) {
      if (line.startsWith(metric + "{") && line.contains(label)) {
        try {
          total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        } catch (NumberFormatException ignored) {
          // NaN and the like
        }
      }
    }
    return total;
  }

  private static String scrape(NodeProcess node) {
    try {
      HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://" + node.host() + ":" + node.httpPort() + "/metrics"))
        .timeout(Duration.ofSeconds(3)).build(), HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? r.body() : "";
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  /** Resident memory of a process, in bytes (0 when gone). */
  static long rss(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      // gone
    }
    return 0;
  }

  /** The embedded PostgreSQL's postmaster among this JVM's children, or 0. */
  static long postmaster() {
    return ProcessHandle.current().children()
      .filter(p -> p.info().command().map(c -> c.endsWith("/postgres") || c.endsWith("postgres")).orElse(false))
      .mapToLong(ProcessHandle::pid).findFirst().orElse(0);
  }
}
