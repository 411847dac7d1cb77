package dev.conclave.e2e.docs;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * One bash for one page, as a reader's terminal: the page's examples run in it in order, so what one
 * block sets (a variable, a job started with {@code &}) is there for the next. Every command that
 * fails is recorded (an ERR trap, with {@code pipefail}), not only the block's last; a block's
 * standard input is {@code /dev/null}, its output goes to files.
 *
 * <p>A block that runs until Ctrl-C runs in a process group of its own ({@code setsid}), and is
 * stopped the way Ctrl-C stops it in a terminal: SIGINT to its group.
 */
final class PageShell implements AutoCloseable {

  private static final String DONE = "__DOCS_DONE__ ";
  private static final String STARTED = "__DOCS_BG__ ";

  /** What a block did: its status, the commands that failed, its output, how long it took. */
  record Run(int status, String failures, List<String> stdout, List<String> stderr, Duration took) {
    boolean ok() {
      return status == 0 && failures.isBlank();
    }
  }

  /** A block running in the background. */
  record Background(int index, long pid, Path out, Path err, Path fails) {
  }

  private final Process bash;
  private final Writer in;
  private final BlockingQueue<String> said = new LinkedBlockingQueue<>();
  private final Path dir;
  private final List<Background> running = new ArrayList<>();
  private int blocks;

  PageShell(Path cwd, Map<String, String> env, Path dir) {
    this.dir = dir;
    try {
      Files.createDirectories(dir);
      ProcessBuilder builder = new ProcessBuilder("bash", "--noprofile", "--norc").directory(cwd.toFile())
        .redirectError(dir.resolve("shell.err").toFile());
      builder.environment().keySet().removeIf(k -> k.startsWith("CONCLAVE_"));
      builder.environment().putAll(env);
      bash = builder.start();
      in = new java.io.OutputStreamWriter(bash.getOutputStream(), StandardCharsets.UTF_8);
      Thread reader = new Thread(() -> {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(bash.getInputStream(), StandardCharsets.UTF_8))) {
          String line;
          while ((line = out.readLine()) != null) {
            said.add(line);
          }
        } catch (IOException ignored) {
          // the shell ended
        }
        said.add(DONE + "shell-ended");
      }, "docs-shell-reader");
      reader.setDaemon(true);
      reader.start();
      send("set -E -o pipefail\n"
        + "trap 'printf \"exit %s: %s\\n\" \"$?\" \"$BASH_COMMAND\" >> \"$DOCS_FAILS\"' ERR\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Runs a block to its end (at most {@code limit}). */
  Run run(List<String> lines, Duration limit) {
    int n = ++blocks;
    Path script = write(n, lines);
    Path out = dir.resolve("block-" + n + ".out");
    Path err = dir.resolve("block-" + n + ".err");
    Path fails = dir.resolve("block-" + n + ".fails");
    long start = System.nanoTime();
    send("DOCS_FAILS=" + fails + "; source " + script + " < /dev/null > " + out + " 2> " + err
      + "; printf '\\n" + DONE + "%s\\n' \"$?\"\n");
    String status = awaitDone(limit);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    if (status == null) {
      return new Run(-1, "did not end within " + limit.toSeconds() + " s", lines(out), lines(err), took);
    }
    return new Run(parse(status), text(fails), lines(out), lines(err), took);
  }

  /**
   * Starts a block that runs until Ctrl-C, then waits (at most {@code limit}) until {@code up} holds
   * for its standard output or standard error. Empty when it is up; else why not.
   */
  Optional<String> start(List<String> lines, Predicate<List<String>> up, Duration limit, List<Background> started) {
    int n = ++blocks;
    Path script = write(n, lines);
    Path out = dir.resolve("block-" + n + ".out");
    Path err = dir.resolve("block-" + n + ".err");
    Path fails = dir.resolve("block-" + n + ".fails");
    Path run = dir.resolve("block-" + n + ".run");
    write(run, "set -E -o pipefail\n"
      + "trap 'printf \"exit %s: %s\\n\" \"$?\" \"$BASH_COMMAND\" >> " + fails + "' ERR\n"
      + "source " + script + "\n");
    // a job started with '&' by a shell without job control ignores SIGINT, and so would everything it
    // starts (the JVM keeps an ignored SIGINT ignored): give the block the default, as a terminal does
    send("setsid env --default-signal=INT bash --noprofile --norc " + run + " < /dev/null > " + out + " 2> " + err + " &\n"
      + "printf '" + STARTED + "%s\\n' \"$!\"\n");
    String pid = await(STARTED, Duration.ofSeconds(60));
    if (pid == null) {
      return Optional.of("the shell did not start it");
    }
    Background bg = new Background(n, Long.parseLong(pid.strip()), out, err, fails);
    running.add(bg);
    started.add(bg);
    long deadline = System.nanoTime() + limit.toNanos();
    while (System.nanoTime() < deadline) {
      if (up.test(lines(out)) || up.test(lines(err))) {
        return Optional.empty();
      }
      if (ProcessHandle.of(bg.pid()).map(ProcessHandle::isAlive).orElse(false) == false) {
        return Optional.of("it ended before it showed its output; stdout:\n" + String.join("\n", lines(out))
          + "\nstderr:\n" + String.join("\n", tail(lines(err), 40)) + "\nfailed: " + text(fails));
      }
      sleep(250);
    }
    return Optional.of("its output did not show within " + limit.toSeconds() + " s; stdout:\n" + String.join("\n", lines(out))
      + "\nstderr:\n" + String.join("\n", tail(lines(err), 40)));
  }

  /** Stops a block started by {@link #start} as Ctrl-C would (SIGINT to its process group) and waits for its end. */
  Run interrupt(Background bg, Duration limit) {
    long start = System.nanoTime();
    signalGroup(bg.pid(), "INT");
    send("DOCS_FAILS=/dev/null; wait " + bg.pid() + "; printf '\\n" + DONE + "%s\\n' \"$?\"\n");
    String status = awaitDone(limit);
    running.remove(bg);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    if (status == null) {
      signalGroup(bg.pid(), "KILL");
      return new Run(-1, "still running " + limit.toSeconds() + " s after Ctrl-C (SIGINT)", lines(bg.out()), lines(bg.err()), took);
    }
    return new Run(parse(status), text(bg.fails()), lines(bg.out()), lines(bg.err()), took);
  }

  /** Ends what the page left running ({@code &} jobs it did not stop), then the shell. */
  @Override
  public void close() {
    for (Background bg : List.copyOf(running)) {
      interrupt(bg, Duration.ofMinutes(1));   // Ctrl-C first: a node stops its PostgreSQL; then SIGKILL if need be
    }
    List<ProcessHandle> left = bash.descendants().toList();
    left.forEach(ProcessHandle::destroy);
    left.forEach(p -> p.onExit().completeOnTimeout(p, 30, TimeUnit.SECONDS).join());
    left.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    try {
      in.close();
    } catch (IOException ignored) {
      // the shell is gone already
    }
    try {
      if (!bash.waitFor(30, TimeUnit.SECONDS)) {
        bash.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Processes the page left running when it ended (its {@code &} jobs), as "pid command" lines. */
  List<String> leftRunning() {
    return bash.descendants().map(p -> p.pid() + " " + p.info().commandLine().orElse("?")).toList();
  }

  private void send(String text) {
    try {
      in.write(text);
      in.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("the page's shell is gone", e);
    }
  }

  private String awaitDone(Duration limit) {
    return await(DONE, limit);
  }

  private String await(String prefix, Duration limit) {
    long deadline = System.nanoTime() + limit.toNanos();
    try {
      while (true) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return null;
        }
        String line = said.poll(left, TimeUnit.NANOSECONDS);
        if (line == null) {
          return null;
        }
        if (line.startsWith(DONE + "shell-ended")) {
          said.add(line);
          return prefix.equals(DONE) ? "shell-ended" : null;
        }
        if (line.startsWith(prefix)) {
          return line.substring(prefix.length());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  private static int parse(String status) {
    try {
      return Integer.parseInt(status.strip());
    } catch (NumberFormatException e) {
      return -2;   // the shell itself ended: a block ran 'exit'
    }
  }

  private Path write(int n, List<String> lines) {
    Path script = dir.resolve("block-" + n + ".sh");
    write(script, String.join("\n", lines) + "\n");
    return script;
  }

  private static void write(Path file, String text) {
    try {
      Files.writeString(file, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<String> lines(Path file) {
    try {
      return Files.exists(file) ? new String(Files.readAllBytes(file), StandardCharsets.UTF_8).lines().toList() : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String text(Path file) {
    return String.join("\n", lines(file));
  }

  static List<String> tail(List<String> lines, int n) {
    return lines.subList(Math.max(0, lines.size() - n), lines.size());
  }

  private static void signalGroup(long pid, String signal) {
    try {
      new ProcessBuilder("kill", "-" + signal, "--", "-" + pid).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(10, TimeUnit.SECONDS);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
