package dev.conclave.e2e.sessions;

import dev.conclave.e2e.support.TestJvm;
import dev.conclave.e2e.support.NodeProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@code conclave-node.jar session …} as a real process, driven the way a script drives it: NDJSON
 * submissions written to its stdin, NDJSON events read from its stdout.
 */
final class NdjsonClient implements AutoCloseable {

  private final Process process;
  private final Writer stdin;
  private final BlockingQueue<JsonObject> events = new LinkedBlockingQueue<>();
  final List<JsonObject> transcript = new ArrayList<>();

  NdjsonClient(String token, String... args) {
    try {
      List<String> cmd = new ArrayList<>(TestJvm.command("256m", "-jar", NodeProcess.jar().toString(), "session"));
      cmd.addAll(List.of(args));
      ProcessBuilder builder = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT);
      builder.environment().keySet().removeIf(k -> k.startsWith("CONCLAVE_"));
      builder.environment().put("CONCLAVE_TOKEN", token);
      process = builder.start();
      stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Thread reader = new Thread(() -> {
      try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = out.readLine()) != null) {
          events.add(new JsonObject(line));
        }
      } catch (IOException ignored) {
        // the process ended
      }
    }, "ndjson-client-reader");
    reader.setDaemon(true);
    reader.start();
  }

  void submit(String id, JsonObject op) {
    try {
      stdin.write(new JsonObject().put("id", id).put("op", op).encode() + "\n");
      stdin.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonObject op(String type) {
    return new JsonObject().put("type", type);
  }

  static JsonObject userInput(String text) {
    return op("user_input").put("items", new JsonArray().add(new JsonObject().put("type", "text").put("text", text)));
  }

  JsonObject next() {
    try {
      JsonObject e = events.poll(30, TimeUnit.SECONDS);
      if (e == null) {
        throw new AssertionError("no event on the client's stdout within 30 s; so far: " + transcript);
      }
      transcript.add(e);
      return e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Events up to and including the first of {@code type}. */
  List<JsonObject> until(String type) {
    List<JsonObject> out = new ArrayList<>();
    while (true) {
      JsonObject e = next();
      out.add(e);
      if (type.equals(e.getJsonObject("msg").getString("type"))) {
        return out;
      }
    }
  }

  static List<String> types(List<JsonObject> events) {
    return events.stream().map(e -> e.getJsonObject("msg").getString("type")).toList();
  }

  /** Closes stdin: the client lingers, then exits by itself. */
  int finish() throws InterruptedException {
    try {
      stdin.close();
    } catch (IOException ignored) {
      // already gone
    }
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the session client did not exit after its stdin closed");
    }
    return process.exitValue();
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
  }
}
