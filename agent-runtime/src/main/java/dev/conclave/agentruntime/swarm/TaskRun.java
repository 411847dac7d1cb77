package dev.conclave.agentruntime.swarm;

import dev.conclave.agent.ToolState;
import dev.conclave.agentruntime.swarm.TaskEnding.Decision;
import dev.conclave.agentruntime.swarm.TaskEnding.Refusal;
import dev.conclave.agentruntime.swarm.TaskEnding.Stop;
import dev.conclave.agentruntime.swarm.TaskProgress.Phase;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One claimed task, from its claim to its COMPLETE or FAIL. The task is handed to the gateway as the
 * conversation {@code swarm:<taskId>} (the coordinator writes the prompt); the message that arrives in
 * it is worked like any other, through a {@link TaskResponse} that lets this run see every event:
 * the files written ({@link FileChanges}), the progress ({@link TaskProgress}), refused tools, the
 * answer. The tool gate takes the leases of the files a call writes ({@link TaskLeases}, through
 * {@link LeaseGuard}). When the request is over, the quality command runs if there is one, and
 * {@link TaskEnding} decides what the coordinator is told. A run the program stops (past its
 * deadline, released, stopping) cancels the backend, then reports.
 *
 * <p>Called from several threads (the SDK's, the gate's, timers): state changes are synchronized;
 * nothing blocks.
 */
final class TaskRun {

  private static final Logger LOG = LoggerFactory.getLogger(TaskRun.class);

  private enum State { OPENING, WAITING, WORKING, CHECKING, REPORTING, ENDED }

  private final Vertx vertx;
  private final SwarmClient client;
  private final SwarmConfig config;
  private final String agentId;
  private final Path workdir;
  private final JsonObject task;
  private final String taskId;
  private final Clock clock;
  private final Instant deadline;
  private final FileChanges files;
  private final TaskLeases leases;
  private final TaskProgress progress;
  private final Promise<String> cancel = Promise.promise();
  private final Promise<Void> ended = Promise.promise();
  private final Promise<String> checkStop = Promise.promise();
  private final Map<String, Refusal> refusedTools = new HashMap<>();
  private final StringBuilder text = new StringBuilder();
  private State state = State.OPENING;
  private long deadlineTimer = -1;
  private Consumer<String> canceller;
  private String answer;
  private String error;
  private String openFailure;
  private Stop stop;
  private String stopReason;
  private Refusal refusal;
  private String refusalReason;

  TaskRun(Vertx vertx, SwarmClient client, SwarmConfig config, String agentId, Path workdir, JsonObject task, Clock clock) {
    this.vertx = vertx;
    this.client = client;
    this.config = config;
    this.agentId = agentId;
    this.workdir = workdir;
    this.task = task;
    this.taskId = task.getString("id");
    this.clock = clock;
    this.deadline = clock.instant().plus(config.maxTaskTime());
    this.files = new FileChanges(workdir);
    this.leases = new TaskLeases(vertx, client, agentId, taskId, deadline, config.leaseWait(), clock);
    this.progress = new TaskProgress(vertx, client, agentId, taskId, config.progressInterval(), reason -> stop(Stop.TAKEN_AWAY, reason));
  }

  String taskId() {
    return taskId;
  }

  String conversationKey() {
    return "swarm:" + taskId;
  }

  TaskLeases leases() {
    return leases;
  }

  /** Completes once the coordinator was told (or there was nothing to tell). */
  Future<Void> ended() {
    return ended.future();
  }

  /** The heartbeat's {@code currentTask}. */
  JsonObject current() {
    return progress.current();
  }

  /** Asks the coordinator to hand the task to the gateway; the deadline starts now. */
  void start() {
    synchronized (this) {
      deadlineTimer = vertx.setTimer(Math.max(1, config.maxTaskTime().toMillis()), t -> stop(Stop.TIMEOUT, "past maxTaskMinutes"));
    }
    LOG.info("task claimed task={} title={}", taskId, task.getString("title"));
    Retries.transientErrors(vertx, 6, () -> client.openConversation(agentId, taskId)).onComplete(ar -> {
      synchronized (this) {
        if (state != State.OPENING) {
          return;
        }
        if (ar.failed()) {
          openFailure = ar.cause().getMessage();
          LOG.warn("task conversation not opened task={} error={}", taskId, openFailure);
        } else {
          LOG.info("task conversation opened task={} key={} request={}", taskId, ar.result().getString("conversationKey"),
            ar.result().getString("requestId", "(repeat)"));
          state = State.WAITING;
          return;
        }
      }
      report();
    });
  }

  /** Whether the message of {@code threadId} from {@code sender} is this task's, arriving now. */
  synchronized boolean takes(String threadId, String sender) {
    return (state == State.OPENING || state == State.WAITING) && conversationKey().equals(threadId)
      && SwarmHandler.SENDER.equals(sender);
  }

  /** The task's message arrived: its request runs now; {@code canceller} stops the backend. */
  synchronized void begin(String requestId, Consumer<String> canceller) {
    this.canceller = canceller;
    state = State.WORKING;
    LOG.info("task work started task={} request={}", taskId, requestId);
    progress.update(Phase.ANALYZING, 5, "working in conversation " + conversationKey());
  }

  synchronized boolean working() {
    return state == State.WORKING;
  }

  /** What the backend sees as its request's cancellation: the gateway's, or this run's own stop. */
  Future<String> cancellation() {
    return cancel.future();
  }

  // ---- what the backend does (TaskResponse) -------------------------------------------------

  void thinking() {
    progress.update(Phase.ANALYZING, 10, "thinking");
  }

  synchronized void text(String chunk) {
    if (text.length() < Answers.SUMMARY_MAX * 2) {
      text.append(chunk);
    }
    if (progress.phase() == Phase.ANALYZING) {
      progress.update(Phase.PLANNING, 15, "writing");
    }
  }

  void toolAnnounced(String toolId, String tool, String inputJson) {
    files.announced(toolId, tool, inputJson);
    if (WritePaths.writes(tool)) {
      progress.update(Phase.IMPLEMENTING, 30 + Math.min(50, 10 * files.writtenCount()), "editing with " + tool);
    } else if (inputJson != null && inputJson.toLowerCase(Locale.ROOT).contains("test")) {
      progress.update(Phase.TESTING, 80, "running " + tool);
    } else {
      progress.update(progress.phase(), 0, "running " + tool);
    }
  }

  void toolFinished(String toolId, boolean isError) {
    files.finished(toolId, isError);
  }

  /** The gate's guard refused a call: its lease was not free in time. */
  synchronized void leaseRefused(String toolId, String reason) {
    refusedTools.put(toolId, Refusal.LEASE);
    refused(Refusal.LEASE, reason);
  }

  /** A call ended {@code DENIED} or {@code TIMEOUT}. */
  synchronized void toolRefused(String toolId, ToolState state, String detail) {
    if (refusedTools.containsKey(toolId)) {
      return;
    }
    Refusal kind = state == ToolState.TIMEOUT ? Refusal.APPROVAL_TIMEOUT : Refusal.DENIED;
    refusedTools.put(toolId, kind);
    refused(kind, detail == null ? state.name().toLowerCase(Locale.ROOT) : detail);
  }

  private void refused(Refusal kind, String reason) {
    if (refusal == null) {
      refusal = kind;
      refusalReason = reason;
    }
  }

  synchronized void answered(String fullResponse) {
    answer = fullResponse == null || fullResponse.isEmpty() ? text.toString() : fullResponse;
  }

  synchronized void failed(String message) {
    error = message;
  }

  /** The request was cancelled from outside this run (a person, the stream dropping). */
  synchronized void cancelledFromOutside(String reason) {
    if (stop == null && state == State.WORKING) {
      stop = Stop.OUTSIDE;
      stopReason = reason;
    }
    cancel.tryComplete(reason);
  }

  // ---- stopping and the end ----------------------------------------------------------------

  /** Stops the run for {@code why}: a waiting run reports at once, a working one cancels its backend first. */
  void stop(Stop why, String reason) {
    Consumer<String> toCancel = null;
    boolean reportNow = false;
    synchronized (this) {
      if (stop != null || state == State.REPORTING || state == State.ENDED) {
        return;
      }
      stop = why;
      stopReason = reason;
      LOG.info("task stopped task={} why={} reason={}", taskId, why, reason);
      switch (state) {
        case OPENING, WAITING -> reportNow = true;
        case WORKING -> toCancel = canceller;
        case CHECKING -> checkStop.tryComplete(reason);
        default -> { }
      }
    }
    cancel.tryComplete(reason);
    if (toCancel != null) {
      toCancel.accept(reason);
    }
    if (reportNow) {
      report();
    }
  }

  /** The task's request is over (its handler's future completed). */
  void requestEnded(Throwable failure) {
    boolean check;
    synchronized (this) {
      if (state != State.WORKING) {
        return;
      }
      if (failure != null && error == null && answer == null && stop == null) {
        error = failure.getMessage();
      }
      if (answer == null && error == null && stop == null) {
        answer = text.toString();   // the SDK ended it with the text chunks
      }
      check = stop == null && refusal == null && error == null && config.qualityCommand().isPresent();
      state = check ? State.CHECKING : state;
    }
    if (!check) {
      report();
      return;
    }
    progress.update(Phase.TESTING, 90, "running the quality command");
    QualityCheck.run(vertx, config.qualityCommand().get(), workdir, remaining(), checkStop.future())
      .onComplete(ar -> report(ar.succeeded() ? ar.result() : null));
  }

  private void report() {
    report(null);
  }

  private void report(JsonObject qualityMetrics) {
    Decision decision;
    String finalAnswer;
    synchronized (this) {
      if (state == State.REPORTING || state == State.ENDED) {
        return;
      }
      state = State.REPORTING;
      if (deadlineTimer >= 0) {
        vertx.cancelTimer(deadlineTimer);
      }
      decision = TaskEnding.decide(stop, stopReason, refusal, refusalReason, error, openFailure, config.maxTaskMinutes());
      finalAnswer = answer;
    }
    progress.close();
    leases.close();
    cancel.tryComplete("the task ended");
    checkStop.tryComplete("the task ended");
    TaskReport.send(vertx, client, agentId, taskId, decision, finalAnswer, files, qualityMetrics).onComplete(ar -> end());
  }

  private void end() {
    synchronized (this) {
      state = State.ENDED;
    }
    ended.tryComplete();
  }

  /** Until the deadline (whose timer stops the check), and a second at least. */
  private Duration remaining() {
    Duration left = Duration.between(clock.instant(), deadline);
    return left.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : left;
  }
}
