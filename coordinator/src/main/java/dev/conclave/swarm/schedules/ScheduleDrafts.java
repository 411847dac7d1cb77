package dev.conclave.swarm.schedules;

import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.store.ScheduleStore.Draft;
import dev.conclave.swarm.tasks.TaskDrafts;
import dev.conclave.swarm.validation.JsonFields;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.util.List;

/**
 * Validates a schedule to create: {name, cron | every, timezone?, task}. The task is a template as
 * POST /api/v1/tasks takes one, checked by the same rules, less the members a schedule sets or that
 * would make its second run fail: {@code id} (each run is a new task), {@code uniqueKey} and
 * {@code uniqueWindowMinutes} (the schedule's own key makes each slot one task), {@code dependencies}
 * (a run must not wait on, or fail for, a task that is gone by then).
 */
public final class ScheduleDrafts {

  private static final List<String> NOT_IN_TEMPLATE = List.of("id", "uniqueKey", "uniqueWindowMinutes", "dependencies");

  private ScheduleDrafts() {
  }

  public static Draft of(JsonObject body, Instant now) {
    JsonFields fields = JsonFields.of(body);
    String name = fields.id("name", true);
    ScheduleRule rule = ScheduleRule.of(fields.string("cron", false, 200), fields.string("every", false, 100),
      fields.string("timezone", false, 100));
    if (!(body.getValue("task") instanceof JsonObject template)) {
      throw SwarmErrors.invalidField("task", "must be a task object, as POST /api/v1/tasks takes one");
    }
    for (String member : NOT_IN_TEMPLATE) {
      if (template.getValue(member) != null) {
        throw SwarmErrors.invalidField("task." + member, "is not allowed in a schedule's task: "
          + ("id".equals(member) ? "each run makes a new task" : "dependencies".equals(member)
            ? "a run may not wait on another task" : "the schedule gives each slot's task its own key"));
      }
    }
    JsonObject task = TaskDrafts.one(template, "task.");
    return new Draft(name, rule.cron(), rule.every(), rule.timezone(), task, rule.firstAfter(now));
  }
}
