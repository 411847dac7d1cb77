package dev.conclave.e2e.swarm;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The plans PostgreSQL ran, with what each step touched ({@code auto_explain}: a sample of the
 * statements, the ones nested in the swarm functions included, explained with ANALYZE, buffers and
 * WAL, written as JSON to PostgreSQL's own log). For a phase: {@link #mark} before, {@link #print}
 * after, which prints one plan per statement, the statements that took the most sampled time first.
 */
final class PgPlans {

  private static final String LOG_FILE = "plans.log";
  private static final Pattern DURATION = Pattern.compile("duration: ([0-9.]+) ms\\s+plan:");

  private PgPlans() {
  }

  /** Server settings (the library itself goes into shared_preload_libraries): sample 1 % of statements. */
  static Map<String, String> settings(Path logDir) {
    Map<String, String> s = new LinkedHashMap<>();
    s.put("logging_collector", "on");
    s.put("log_directory", logDir.toAbsolutePath().toString());
    s.put("log_filename", LOG_FILE);
    s.put("auto_explain.log_min_duration", "0");
    s.put("auto_explain.sample_rate", "0.01");
    s.put("auto_explain.log_analyze", "on");
    s.put("auto_explain.log_buffers", "on");
    s.put("auto_explain.log_wal", "on");
    s.put("auto_explain.log_nested_statements", "on");
    s.put("auto_explain.log_format", "json");
    return s;
  }

  /** Where the log ends now: {@link #print} reads only what comes after. */
  static long mark(Path logDir) throws IOException {
    Path log = logDir.resolve(LOG_FILE);
    return Files.exists(log) ? Files.size(log) : 0;
  }

  private record Sample(double ms, JsonObject plan) {
  }

  private static final class Statement {
    final String text;
    final List<Sample> samples = new ArrayList<>();

    Statement(String text) {
      this.text = text;
    }

    double totalMs() {
      return samples.stream().mapToDouble(Sample::ms).sum();
    }
  }

  static void print(Path logDir, long from, int top) throws IOException {
    Map<String, Statement> statements = new LinkedHashMap<>();
    for (String entry : entries(logDir.resolve(LOG_FILE), from)) {
      Matcher d = DURATION.matcher(entry);
      int json = entry.indexOf('{');
      if (!d.find() || json < 0) {
        continue;
      }
      JsonObject doc = new JsonObject(entry.substring(json));
      String text = doc.getString("Query Text", "").replaceAll("\\s+", " ").trim();
      String key = text.length() > 110 ? text.substring(0, 110) + "…" : text;
      statements.computeIfAbsent(key, Statement::new).samples.add(new Sample(Double.parseDouble(d.group(1)), doc.getJsonObject("Plan")));
    }
    System.out.printf(Locale.ROOT, "  %d statements sampled; the %d with the most sampled time, each with its median sample's plan%n",
      statements.values().stream().mapToInt(s -> s.samples.size()).sum(), Math.min(top, statements.size()));
    statements.values().stream().sorted(Comparator.comparingDouble(Statement::totalMs).reversed()).limit(top).forEach(s -> {
      List<Sample> byTime = s.samples.stream().sorted(Comparator.comparingDouble(Sample::ms)).toList();
      Sample median = byTime.get(byTime.size() / 2);
      System.out.printf(Locale.ROOT, "  %d samples, median %.3f ms: %s%n", byTime.size(), median.ms(), s.text);
      node(median.plan(), "      ");
    });
  }

  /** One line per plan step: what it did and what it touched. */
  private static void node(JsonObject n, String indent) {
    StringBuilder line = new StringBuilder(indent).append(n.getString("Node Type"));
    if (n.containsKey("Index Name")) {
      line.append(" using ").append(n.getString("Index Name"));
    }
    if (n.containsKey("Relation Name")) {
      line.append(" on ").append(n.getString("Relation Name"));
    }
    line.append(String.format(Locale.ROOT, " (rows=%s loops=%s, %.3f ms; buffers hit=%s dirtied=%s; WAL records=%s bytes=%s fpi=%s)",
      n.getValue("Actual Rows"), n.getValue("Actual Loops"), n.getDouble("Actual Total Time", 0.0),
      n.getValue("Shared Hit Blocks"), n.getValue("Shared Dirtied Blocks"),
      n.getValue("WAL Records"), n.getValue("WAL Bytes"), n.getValue("WAL FPI")));
    System.out.println(line);
    JsonArray children = n.getJsonArray("Plans");
    if (children != null) {
      for (int i = 0; i < children.size(); i++) {
        node(children.getJsonObject(i), indent + "  ");
      }
    }
  }

  /** The log's entries from {@code from} on; an entry's further lines start with a tab. */
  private static List<String> entries(Path log, long from) throws IOException {
    List<String> out = new ArrayList<>();
    if (!Files.exists(log)) {
      return out;
    }
    byte[] bytes;
    try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
      f.seek(from);
      bytes = new byte[(int) (f.length() - from)];
      f.readFully(bytes);
    }
    StringBuilder current = null;
    for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n", -1)) {
      if (line.startsWith("\t")) {
        if (current != null) {
          current.append('\n').append(line, 1, line.length());
        }
      } else {
        if (current != null) {
          out.add(current.toString());
        }
        current = new StringBuilder(line);
      }
    }
    if (current != null) {
      out.add(current.toString());
    }
    return out;
  }
}
