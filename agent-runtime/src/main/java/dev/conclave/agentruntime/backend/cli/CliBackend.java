package dev.conclave.agentruntime.backend.cli;

import dev.conclave.agent.backend.AgentBackend;
import dev.conclave.agent.backend.BackendCallbacks;
import dev.conclave.agent.backend.BackendResponse;
import dev.conclave.agent.backend.BackendSession;
import dev.conclave.agentruntime.backend.BackendContext;
import dev.conclave.agentruntime.process.ChildProcess;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What the CLI backends ({@code claude-cli}, {@code codex-cli}) share: one child process per run,
 * started in the agent's working directory with the gateway's secrets in its environment, its JSON
 * lines read by the run's {@link StreamMapper}; a cancel (or a tool the policy denies that ran
 * without being asked about) ends the process, SIGTERM then SIGKILL after the grace. What the run
 * opened (a permission bridge) is released once the process exited.
 */
public abstract class CliBackend implements AgentBackend {

  private static final Logger LOG = LoggerFactory.getLogger(CliBackend.class);

  protected final BackendContext context;
  protected final CliSettings settings;
  private final Map<String, ChildProcess> running = new ConcurrentHashMap<>();

  protected CliBackend(BackendContext context, CliSettings settings) {
    this.context = context;
    this.settings = settings;
  }

  /** A name for messages, such as "Claude Code". */
  protected abstract String displayName();

  /** Prepares one run: its command line, its mapper and what it opened. */
  protected abstract Future<CliRun> prepare(String prompt, BackendSession session, BackendCallbacks callbacks);

  @Override
  public final Future<BackendResponse> execute(String prompt, BackendSession session, BackendCallbacks callbacks) {
    return prepare(context.injections().prefix(prompt), session, callbacks).transform(ar -> ar.succeeded()
      ? launch(ar.result(), session, callbacks)
      : Future.succeededFuture(BackendResponse.error(displayName() + " could not be prepared: " + ar.cause().getMessage())));
  }

  private Future<BackendResponse> launch(CliRun run, BackendSession session, BackendCallbacks callbacks) {
    StreamMapper mapper = run.mapper();
    Map<String, String> env = new HashMap<>(context.packTools().secrets());
    env.putAll(run.env());
    // the request's trace context, as OpenTelemetry carries it into a child process: an instrumented
    // CLI's spans join the request's trace
    env.putAll(session.message().traceContext().environment());
    String requestId = session.message().requestId();
    // the reader may see a reason to stop before start() returns: both sides check, so one of them kills
    AtomicReference<ChildProcess> self = new AtomicReference<>();
    ChildProcess child;
    try {
      child = ChildProcess.start(run.command(), context.workdir(), env, run.conversational(), line -> {
        JsonObject event;
        try {
          event = new JsonObject(line);
        } catch (DecodeException e) {
          return mapper.onText(line);
        }
        return mapper.onEvent(event).eventually(() -> {
          String stop = mapper.stopReason();
          ChildProcess c = self.get();
          if (stop != null && c != null && !c.killed()) {
            LOG.info("stopping {} run request={} reason={}", displayName(), requestId, stop);
            c.kill(context.cancelGrace());
          }
          return Future.succeededFuture();
        });
      });
    } catch (IOException e) {
      return run.release().get().transform(x -> Future.succeededFuture(BackendResponse.error(displayName()
        + " could not be started (" + run.command().get(0) + "): " + e.getMessage() + ". Install it or point --command at it.")));
    }
    self.set(child);
    running.put(requestId, child);
    mapper.started(child);
    if (mapper.stopReason() != null && !child.killed()) {
      child.kill(context.cancelGrace());
    }
    LOG.info("{} started pid={} request={} resume={}", displayName(), child.pid(), requestId,
      session.resumeSessionId().orElse("-"));
    callbacks.cancellation().onComplete(r -> child.kill(context.cancelGrace()));
    Promise<BackendResponse> done = Promise.promise();
    child.exit().onComplete(ar -> {
      running.remove(requestId, child);
      int code = ar.succeeded() ? ar.result() : -1;
      LOG.info("{} exited pid={} code={} request={}", displayName(), child.pid(), code, requestId);
      run.release().get().onComplete(x -> done.complete(mapper.finish(code, child.stderrTail())));
    });
    return done.future();
  }

  @Override
  public Future<Void> cancel(BackendSession session) {
    ChildProcess child = running.get(session.message().requestId());
    return child == null ? Future.succeededFuture() : child.kill(context.cancelGrace()).mapEmpty();
  }

  @Override
  public Future<Void> shutdown() {
    return Future.all(running.values().stream().map(c -> c.kill(context.cancelGrace())).toList()).mapEmpty();
  }
}
