package dev.conclave.agentruntime.backend.openai;

import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The message histories of the conversations this agent holds with a stateless Chat Completions
 * server, by the session id the runtime made up for each. Bounded in both directions: the most
 * recent {@code maxSessions} sessions, each cut to its last {@code maxMessages} messages (a cut
 * never starts on a tool answer, whose call would be missing). A session that is not here any more
 * (evicted, or the agent restarted) is stale: the next message starts afresh.
 */
final class Conversations {

  private final int maxMessages;
  private final Map<String, List<JsonObject>> sessions;

  Conversations(int maxSessions, int maxMessages) {
    this.maxMessages = maxMessages;
    this.sessions = Collections.synchronizedMap(new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, List<JsonObject>> eldest) {
        return size() > maxSessions;
      }
    });
  }

  Optional<List<JsonObject>> history(String sessionId) {
    List<JsonObject> h = sessions.get(sessionId);
    return h == null ? Optional.empty() : Optional.of(new ArrayList<>(h));
  }

  void save(String sessionId, List<JsonObject> messages) {
    List<JsonObject> kept = new ArrayList<>(messages);
    while (kept.size() > maxMessages || (!kept.isEmpty() && "tool".equals(kept.get(0).getString("role")))) {
      kept.remove(0);
    }
    sessions.put(sessionId, kept);
  }
}
