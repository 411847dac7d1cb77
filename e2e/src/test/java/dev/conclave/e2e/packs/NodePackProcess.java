package dev.conclave.e2e.packs;

import io.vertx.core.json.JsonObject;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The Node.js tool pack ({@code e2e/interop/coven-pack.js}) running as a real OS process. Its event
 * lines on stdout ({@code WELCOME {...}}, {@code CALL {...}}, {@code END {...}}) are collected so a
 * test can wait for what the pack saw; its diagnostics on stderr are kept for failure messages.
 */
final class NodePackProcess implements AutoCloseable {

  /** One event line of the pack. */
  record Event(String name, JsonObject fields) {
  }

  private final Process process;
  private final List<String> output = new ArrayList<>();
  private final List<Event> events = new ArrayList<>();

  private NodePackProcess(Process process) {
    this.process = process;
    read(process.getInputStream(), true);
    read(process.getErrorStream(), false);
  }

  /** Starts {@code node coven-pack.js} against a node's gRPC port on 127.0.0.1. */
  static NodePackProcess start(int grpcPort, String token, String packId) {
    List<String> command = List.of("node", NodeScripts.interopDir().resolve("coven-pack.js").toString(),
      "--address", "127.0.0.1:" + grpcPort,
      "--proto", NodeScripts.covenProto().toString(),
      "--pack-id", packId,
      "--capability", "chat",
      "--timeout-seconds", "10");
    ProcessBuilder builder = new ProcessBuilder(command).directory(NodeScripts.interopDir().toFile());
    // the token goes through the environment, not the command line other users can read
    builder.environment().put("COVEN_PACK_TOKEN", token);
    try {
      return new NodePackProcess(builder.start());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void read(InputStream stream, boolean eventLines) {
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
        String text;
        while ((text = in.readLine()) != null) {
          synchronized (this) {
            output.add(text);
            int space = text.indexOf(' ');
            if (eventLines && space > 0 && text.startsWith("{", space + 1)) {
              events.add(new Event(text.substring(0, space), new JsonObject(text.substring(space + 1))));
            }
            notifyAll();
          }
        }
      } catch (IOException e) {
        // the process is gone; what it printed is kept
      }
    }, "node-pack-output");
    reader.setDaemon(true);
    reader.start();
  }

  /** Waits for the first event of this name that matches; fails with the pack's output. */
  Event await(String name, Predicate<JsonObject> matching, Duration limit) {
    long deadline = System.nanoTime() + limit.toNanos();
    synchronized (this) {
      while (true) {
        for (Event e : events) {
          if (e.name().equals(name) && matching.test(e.fields())) {
            return e;
          }
        }
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
          throw new AssertionError("the Node pack did not report " + name + " within " + limit.toSeconds() + " s; its output:\n" + output());
        }
        try {
          wait(Math.min(left, 200));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError(e);
        }
      }
    }
  }

  Event await(String name, Duration limit) {
    return await(name, fields -> true, limit);
  }

  /** Waits for the process to exit on its own; returns its exit code. */
  int awaitExit(Duration limit) {
    try {
      if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError("the Node pack still ran after " + limit.toSeconds() + " s; its output:\n" + output());
      }
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  synchronized String output() {
    return String.join("\n", output);
  }

  boolean alive() {
    return process.isAlive();
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
