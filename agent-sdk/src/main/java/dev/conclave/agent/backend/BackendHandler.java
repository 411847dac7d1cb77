package dev.conclave.agent.backend;

import dev.conclave.agent.AgentHandler;
import dev.conclave.agent.IncomingMessage;
import dev.conclave.agent.ResponseStream;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Adapts an {@link AgentBackend} to the gateway protocol.
 *
 * <ul>
 *   <li><b>Sessions.</b> The backend session id a run returns is remembered per conversation
 *       thread (most recent {@code maxThreads} threads) and offered for resume on the thread's next
 *       message; a new id is reported as {@code session_init}.</li>
 *   <li><b>Stale session.</b> A resumed run that took zero turns means the backend session expired:
 *       the id is forgotten, {@code session_orphaned} is reported and the prompt runs once more
 *       without resume.</li>
 *   <li><b>Transient errors.</b> An error run whose text names overload, rate limiting or a server
 *       error ({@link TransientErrors}) is retried once after {@code retryDelay}. If it still fails
 *       that way, the user gets {@link #FRIENDLY_UNAVAILABLE} instead of the raw API error. Other
 *       errors are reported as they are. At most three runs per message. A run in which a tool
 *       already ran is not retried, since running the prompt again would run its tools again: the
 *       user gets {@link #FRIENDLY_UNAVAILABLE_AFTER_TOOLS}.</li>
 *   <li><b>Cancel and stop.</b> A cancel interrupts the backend; stopping the client shuts it down.</li>
 * </ul>
 */
public final class BackendHandler implements AgentHandler {

  /** What the user sees when the AI service stays unavailable after the retry. */
  public static final String FRIENDLY_UNAVAILABLE = "The AI service is temporarily unavailable. Please try again in a moment.";

  /** What the user sees when the AI service fails transiently after tools of the request had run. */
  public static final String FRIENDLY_UNAVAILABLE_AFTER_TOOLS = "The AI service became temporarily unavailable after"
    + " tools had already run, so the request was not repeated. Please check their results and try again.";

  private static final Logger LOG = LoggerFactory.getLogger(BackendHandler.class);
  private static final int MAX_RUNS = 3;

  private final Vertx vertx;
  private final AgentBackend backend;
  private final Duration retryDelay;
  private final Map<String, String> sessionsByThread;
  private volatile BackendSession running;

  /** Retries transient errors after 2 s and remembers the sessions of the last 1024 threads. */
  public BackendHandler(Vertx vertx, AgentBackend backend) {
    this(vertx, backend, Duration.ofSeconds(2), 1024);
  }

  public BackendHandler(Vertx vertx, AgentBackend backend, Duration retryDelay, int maxThreads) {
    this.vertx = vertx;
    this.backend = backend;
    this.retryDelay = retryDelay;
    this.sessionsByThread = Collections.synchronizedMap(new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
        return size() > maxThreads;
      }
    });
  }

  /** The backend session remembered for a thread. */
  public Optional<String> sessionOf(String threadId) {
    return Optional.ofNullable(sessionsByThread.get(threadId));
  }

  @Override
  public Future<Void> handle(IncomingMessage message, ResponseStream response) {
    String resume = sessionsByThread.get(message.threadId());
    return run(message, response, resume, 1, false, false);
  }

  private Future<Void> run(IncomingMessage message, ResponseStream response, String resume, int runNo,
                           boolean staleRetried, boolean transientRetried) {
    BackendSession session = new BackendSession(message.threadId(), Optional.ofNullable(resume), message);
    running = session;
    StreamCallbacks callbacks = new StreamCallbacks(response);
    return backend.execute(message.content(), session, callbacks).compose(result -> {
      if (response.isEnded()) {
        // cancelled (or the stream went away) while the backend ran
        return Future.succeededFuture();
      }
      if (response.cancellation().isComplete()) {
        // the run stopped because it was asked to: whatever it returned, the request was cancelled
        return response.cancelled(response.cancellation().result());
      }
      if (resume != null && !result.isError() && result.numTurns() == 0 && !staleRetried && runNo < MAX_RUNS) {
        LOG.info("backend session was stale; retrying without resume request={} thread={} session={}",
          message.requestId(), message.threadId(), resume);
        sessionsByThread.remove(message.threadId());
        return response.sessionOrphaned("backend session " + resume + " expired; starting a new one")
          .compose(v -> run(message, response, null, runNo + 1, true, transientRetried));
      }
      if (result.isError() && TransientErrors.retryable(result.content())) {
        if (callbacks.toolRan()) {
          LOG.warn("transient backend error after tools ran; not retried request={} error={}", message.requestId(),
            result.content());
          return response.error(FRIENDLY_UNAVAILABLE_AFTER_TOOLS);
        }
        if (!transientRetried && runNo < MAX_RUNS) {
          LOG.info("transient backend error; retrying in {} ms request={} error={}", retryDelay.toMillis(),
            message.requestId(), result.content());
          return vertx.timer(Math.max(1, retryDelay.toMillis()), TimeUnit.MILLISECONDS)
            .compose(t -> response.isEnded() ? Future.succeededFuture()
              : run(message, response, resume, runNo + 1, staleRetried, true));
        }
        LOG.warn("backend still unavailable after retry request={} error={}", message.requestId(), result.content());
        return response.error(FRIENDLY_UNAVAILABLE);
      }
      if (result.isError()) {
        return response.error(result.content());
      }
      Future<Void> init = Future.succeededFuture();
      if (result.sessionId().isPresent()) {
        String id = result.sessionId().get();
        sessionsByThread.put(message.threadId(), id);
        if (!id.equals(resume)) {
          init = response.sessionInit(id);
        }
      }
      return init.compose(v -> response.done(result.content()));
    });
  }

  @Override
  public Future<Void> onCancel(String requestId, String reason) {
    BackendSession s = running;
    if (s == null || !s.message().requestId().equals(requestId)) {
      return Future.succeededFuture();
    }
    return backend.cancel(s);
  }

  @Override
  public Future<Void> close() {
    return backend.shutdown();
  }
}
