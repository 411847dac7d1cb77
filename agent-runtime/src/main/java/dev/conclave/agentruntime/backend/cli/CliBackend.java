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
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What the CLI backends ({@code claude-cli}, {@code codex-cli}) share: one child process per run,
 * started in the agent's working directory with the gateway's secrets in its environment, its JSON
 * lines mapped by a {@link StreamMapper}; a cancel (or a tool the policy denies) ends the process,
 * SIGTERM then SIGKILL after the grace.
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

  /** The command line of one run. */
  protected abstract List<String> command(String prompt, BackendSession session);

  /** A mapper for one run. */
  protected abstract StreamMapper mapper(BackendSession session, BackendCallbacks callbacks);

  @Override
  public final Future<BackendResponse> execute(String prompt, BackendSession session, BackendCallbacks callbacks) {
    List<String> command = command(context.injections().prefix(prompt), session);
    StreamMapper mapper = mapper(session, callbacks);
    Map<String, String> env = new HashMap<>(context.packTools().secrets());
    String requestId = session.message().requestId();
    // the reader may see a denied tool before start() returns: both sides check, so one of them kills
    AtomicReference<ChildProcess> self = new AtomicReference<>();
    ChildProcess child;
    try {
      child = ChildProcess.start(command, context.workdir(), env, line -> {
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
      return Future.succeededFuture(BackendResponse.error(displayName() + " could not be started ("
        + command.get(0) + "): " + e.getMessage() + ". Install it or point --command at it."));
    }
    self.set(child);
    running.put(requestId, child);
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
      done.complete(mapper.finish(code, child.stderrTail()));
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
