package dev.conclave.swarm.tasks;

import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.validation.JsonFields;
import dev.conclave.swarm.validation.JsonOut;
import dev.conclave.swarm.validation.Limits;
import dev.conclave.swarm.validation.Vocabulary;
import io.vertx.core.json.JsonObject;

import java.util.List;

/**
 * A bulk action on tasks, checked: {@code {action: retry|cancel|reprioritize, filter: {status?, skill?,
 * agent?, olderThanMinutes?, ids?}, priority? (reprioritize), reason? (cancel)}}. The filter must
 * name at least one criterion, so that no request acts on every task by accident; swarm.bulk_tasks
 * applies it in one transaction.
 */
public record TaskBulk(String action, JsonObject filter, String priority, String reason) {

  public static final List<String> ACTIONS = List.of("retry", "cancel", "reprioritize");

  public static TaskBulk of(JsonObject body) {
    JsonFields fields = JsonFields.of(body);
    String action = fields.oneOf("action", true, ACTIONS);
    if (!(body.getValue("filter") instanceof JsonObject given)) {
      throw SwarmErrors.invalidField("filter", "must be an object naming at least one of status, skill, agent, olderThanMinutes, ids");
    }
    JsonFields f = JsonFields.of(given, "filter.");
    JsonObject filter = JsonOut.object()
      .put("status", statuses(f))
      .put("skill", f.string("skill", false, Limits.SKILL))
      .put("agent", f.id("agent", false))
      .put("olderThanMinutes", f.integer("olderThanMinutes", false, 0, Limits.UNIQUE_WINDOW_MINUTES))
      .put("ids", f.ids("ids", false, Limits.TASKS_PER_REQUEST))
      .json();
    if (filter.isEmpty()) {
      throw SwarmErrors.invalidField("filter", "must name at least one of status, skill, agent, olderThanMinutes, ids");
    }
    String priority = fields.oneOf("priority", action.equals("reprioritize"), Vocabulary.PRIORITIES);
    String reason = fields.string("reason", false, Limits.SHORT_TEXT);
    return new TaskBulk(action, filter, priority, reason);
  }

  private static List<String> statuses(JsonFields f) {
    List<String> statuses = f.strings("status", false, Vocabulary.TASK_STATUSES.size(), 64);
    if (statuses != null) {
      for (int i = 0; i < statuses.size(); i++) {
        if (!Vocabulary.TASK_STATUSES.contains(statuses.get(i))) {
          throw SwarmErrors.invalidField(f.path("status") + "[" + i + "]",
            "must be one of " + String.join(", ", Vocabulary.TASK_STATUSES) + ", got '" + statuses.get(i) + "'");
        }
      }
    }
    return statuses;
  }
}
