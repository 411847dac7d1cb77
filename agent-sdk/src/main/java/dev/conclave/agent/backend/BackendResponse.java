package dev.conclave.agent.backend;

import java.util.List;
import java.util.Optional;

/**
 * What a backend returns for one prompt.
 *
 * @param content the answer, or the raw error text when {@code isError}
 * @param sessionId the backend session used or created, to resume next time
 * @param costUsd what the run cost, when known
 * @param durationMs how long it ran
 * @param numTurns model turns taken; zero on a resumed session means the session was stale
 * @param toolsUsed names of tools used
 * @param isError the run failed
 */
public record BackendResponse(String content, Optional<String> sessionId, double costUsd, long durationMs,
                              int numTurns, List<String> toolsUsed, boolean isError) {

  public BackendResponse {
    content = content == null ? "" : content;
    sessionId = sessionId == null ? Optional.empty() : sessionId;
    toolsUsed = toolsUsed == null ? List.of() : List.copyOf(toolsUsed);
  }

  public static BackendResponse success(String content, String sessionId, int numTurns) {
    return new BackendResponse(content, Optional.ofNullable(sessionId), 0, 0, numTurns, List.of(), false);
  }

  public static BackendResponse error(String rawError) {
    return new BackendResponse(rawError, Optional.empty(), 0, 0, 0, List.of(), true);
  }
}
