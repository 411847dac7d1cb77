package dev.conclave.agentruntime.backend.echo;

import dev.conclave.agent.TokenUsage;
import dev.conclave.agent.backend.AgentBackend;
import dev.conclave.agent.backend.BackendCallbacks;
import dev.conclave.agent.backend.BackendResponse;
import dev.conclave.agent.backend.BackendSession;
import dev.conclave.agentruntime.backend.InjectionQueue;
import io.vertx.core.Future;

import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The echo backend, for tests and demos: answers with the prompt, preceded by any context injected
 * since the last turn, reports one token per word and keeps a session per thread (a session it does
 * not know, after a restart, is reported stale with zero turns, as a real backend's would be).
 */
public final class EchoBackend implements AgentBackend {

  private final InjectionQueue injections;
  private final Set<String> sessions = Collections.newSetFromMap(new ConcurrentHashMap<>());

  public EchoBackend(InjectionQueue injections) {
    this.injections = injections;
  }

  @Override
  public Future<BackendResponse> execute(String prompt, BackendSession session, BackendCallbacks callbacks) {
    if (session.resumeSessionId().isPresent() && !sessions.contains(session.resumeSessionId().get())) {
      return Future.succeededFuture(BackendResponse.success("", session.resumeSessionId().get(), 0));
    }
    String id = session.resumeSessionId().orElse("echo-" + session.threadId());
    sessions.add(id);
    String answer = injections.prefix("echo: " + prompt);
    int words = words(prompt);
    return callbacks.textChunk(answer)
      .compose(v -> callbacks.usage(TokenUsage.of(words, words)))
      .map(v -> new BackendResponse(answer, Optional.of(id), 0, 0, 1, List.of(), false));
  }

  @Override
  public Future<Void> cancel(BackendSession session) {
    return Future.succeededFuture();
  }

  @Override
  public Future<Void> shutdown() {
    return Future.succeededFuture();
  }

  static int words(String s) {
    String t = s.strip();
    return t.isEmpty() ? 0 : t.split("\\s+").length;
  }
}
