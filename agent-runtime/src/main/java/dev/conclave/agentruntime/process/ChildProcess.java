package dev.conclave.agentruntime.process;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * A child process (a CLI backend such as {@code claude} or {@code codex}) whose standard output is
 * read line by line on a thread of its own, never on an event loop. Each line goes to a handler
 * whose future the reader waits for before reading the next line, so a slow gateway slows the
 * reading down (and the pipe then holds the child back) instead of lines piling up in memory.
 *
 * <p>Standard input is closed at once (print mode: the prompt is an argument), or, for a CLI that
 * converses over it (JSON-RPC over stdio), kept open for {@link #writeLine} until {@link #closeInput}.
 *
 * <p>Standard error is kept, its last {@value #STDERR_KEEP} characters, for error reports.
 * {@link #kill} ends the child and everything it started: SIGTERM, then SIGKILL once the grace has
 * passed.
 *
 * <p>Where {@code setsid} is on the PATH (any Linux), the child starts as the leader of a process
 * group of its own, and a kill signals the whole group at once. Killing a tree process by process
 * races with the tree itself: a shell that forks after its descendants were listed leaves an orphan
 * behind, which keeps standard output open, so the run would never end. A group takes in every
 * process forked into it, orphans too.
 */
public final class ChildProcess {

  private static final Logger LOG = LoggerFactory.getLogger(ChildProcess.class);
  static final int STDERR_KEEP = 4096;
  /** How long the reader waits for one line's handler before it goes on without it. */
  private static final long HANDLER_WAIT_SECONDS = 60;
  /**
   * How long the exit waits, after the child exited and its standard output ended, for the end of its
   * standard error; only something the child started that still holds it open takes that long.
   */
  private static final long STDERR_END_SECONDS = 10;

  /** {@code setsid}, to start each child in a process group of its own; empty where there is none. */
  private static final Optional<Path> SETSID = Executables.onPath("setsid");
  /** A shell, whose built-in {@code kill} signals a process group (no {@code kill} program needed). */
  private static final Optional<Path> SHELL = Executables.onPath("sh");

  private final Process process;
  private final boolean groupLeader;
  private final Promise<Integer> exit = Promise.promise();
  private final StringBuilder stderr = new StringBuilder();
  /** Completed when standard error was read to its end. */
  private final CompletableFuture<Void> stderrEnded = new CompletableFuture<>();
  private volatile boolean killed;

  private ChildProcess(Process process, boolean groupLeader) {
    this.process = process;
    this.groupLeader = groupLeader;
  }

  /**
   * Starts {@code command} in {@code workdir} with {@code env} added to this process's environment.
   *
   * @param keepInput keep standard input open for {@link #writeLine}
   * @param onLine called with each stdout line, from the reader thread; its future is awaited
   * @throws IOException when the executable cannot be started (not found, not executable)
   */
  public static ChildProcess start(List<String> command, Path workdir, Map<String, String> env, boolean keepInput,
                                   Function<String, Future<?>> onLine) throws IOException {
    boolean group = SETSID.isPresent() && SHELL.isPresent();
    List<String> line = new ArrayList<>();
    if (group) {
      // through setsid a missing program is setsid's exit code 127, not the IOException callers report
      requireExecutable(command.get(0), workdir);
      // setsid execs the command in this same process (a child of the JVM is no group leader), so pid = group id
      line.add(SETSID.get().toString());
    }
    line.addAll(command);
    ProcessBuilder builder = new ProcessBuilder(line).directory(workdir.toFile());
    builder.environment().putAll(env);
    builder.redirectInput(ProcessBuilder.Redirect.PIPE);
    ChildProcess child = new ChildProcess(builder.start(), group);
    if (!keepInput) {
      child.closeInput();
    }
    child.readErr(child.process.getErrorStream());
    child.readOut(child.process.getInputStream(), onLine, command.get(0));
    return child;
  }

  private static void requireExecutable(String program, Path workdir) throws IOException {
    if (Executables.find(program, workdir, System.getenv("PATH")).isEmpty()) {
      throw new IOException("Cannot run program \"" + program + "\": not found or not executable");
    }
  }

  private void readOut(InputStream in, Function<String, Future<?>> onLine, String name) {
    Thread t = new Thread(() -> {
      try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        String line;
        while ((line = reader.readLine()) != null) {
          if (line.isBlank()) {
            continue;
          }
          try {
            onLine.apply(line).toCompletionStage().toCompletableFuture().get(HANDLER_WAIT_SECONDS, TimeUnit.SECONDS);
          } catch (Exception e) {
            // the request ended or the gateway went away: keep draining so the child is not blocked
            LOG.debug("line handler failed pid={} error={}", process.pid(), e.toString());
          }
        }
      } catch (IOException e) {
        LOG.debug("stdout of pid={} closed: {}", process.pid(), e.toString());
      }
      try {
        int code = process.waitFor();
        // the child may exit before its last words on standard error were read: the exit (and
        // stderrTail) waits for them, so a caller deciding on them (a stale session) sees them
        awaitStderrEnd();
        exit.tryComplete(code);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        exit.tryFail(e);
      }
    }, "child-" + Path.of(name).getFileName() + "-" + process.pid());
    t.setDaemon(true);
    t.start();
  }

  private void readErr(InputStream err) {
    Thread t = new Thread(() -> {
      try (BufferedReader reader = new BufferedReader(new InputStreamReader(err, StandardCharsets.UTF_8))) {
        String line;
        while ((line = reader.readLine()) != null) {
          synchronized (stderr) {
            stderr.append(line).append('\n');
            if (stderr.length() > STDERR_KEEP) {
              stderr.delete(0, stderr.length() - STDERR_KEEP);
            }
          }
        }
      } catch (IOException ignored) {
        // the child went away
      } finally {
        stderrEnded.complete(null);
      }
    }, "child-stderr-" + process.pid());
    t.setDaemon(true);
    t.start();
  }

  private void awaitStderrEnd() throws InterruptedException {
    try {
      stderrEnded.get(STDERR_END_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      LOG.warn("standard error of pid={} still open {} s after it exited (held by a process it started); going on without its end",
        process.pid(), STDERR_END_SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      // never completed exceptionally
    }
  }

  /**
   * Writes one line (a JSON-RPC message) to the child's standard input; false when the input is
   * closed or the child is gone. Safe from any thread.
   */
  public boolean writeLine(String line) {
    synchronized (process) {
      try {
        OutputStream in = process.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
        return true;
      } catch (IOException e) {
        LOG.debug("stdin of pid={} closed: {}", process.pid(), e.toString());
        return false;
      }
    }
  }

  /** Closes the child's standard input: a CLI conversing over it takes that as the end. */
  public void closeInput() {
    synchronized (process) {
      try {
        process.getOutputStream().close();
      } catch (IOException ignored) {
        // already gone
      }
    }
  }

  /** Completes with the exit code once the child exited and its output and its standard error were read to the end. */
  public Future<Integer> exit() {
    return exit.future();
  }

  /** The end of what the child wrote to standard error. */
  public String stderrTail() {
    synchronized (stderr) {
      return stderr.toString().strip();
    }
  }

  /** Whether {@link #kill} was called. */
  public boolean killed() {
    return killed;
  }

  public long pid() {
    return process.pid();
  }

  /**
   * Ends the child and everything it started: SIGTERM now; SIGKILL when the child is still alive
   * after {@code grace}, or, for a group, when something the child started outlived it. Completes
   * when the child has exited and its output was read to the end. Does not wait for either.
   */
  public Future<Integer> kill(Duration grace) {
    killed = true;
    if (!exit.future().isComplete()) {
      signal(false);
      process.onExit().orTimeout(grace.toMillis(), TimeUnit.MILLISECONDS).whenComplete((p, err) -> {
        if (err != null) {
          LOG.info("child did not stop on SIGTERM within {} ms; killing pid={}", grace.toMillis(), process.pid());
        }
        // once the leader is gone, what it started may still hold the output open: the group goes too
        if (err != null || (groupLeader && !exit.future().isComplete())) {
          signal(true);
        }
      });
    }
    return exit.future();
  }

  /** SIGTERM (or SIGKILL when {@code force}) to the child's process group, or else to the child and its descendants. */
  private void signal(boolean force) {
    if (groupLeader) {
      try {
        // exits non-zero when the group is already gone, which is what was wanted
        new ProcessBuilder(SHELL.get().toString(), "-c", "kill -s " + (force ? "KILL" : "TERM") + " -- -" + process.pid())
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        return;
      } catch (IOException e) {
        LOG.warn("could not signal the process group of pid={}: {}; signalling the tree instead", process.pid(), e.toString());
      }
    }
    if (force) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    } else {
      process.descendants().forEach(ProcessHandle::destroy);
      process.destroy();
    }
  }
}
