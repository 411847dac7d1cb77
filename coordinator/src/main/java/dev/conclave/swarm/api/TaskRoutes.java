package dev.conclave.swarm.api;

import dev.conclave.platform.access.Audience;
import dev.conclave.platform.access.Resource;
import dev.conclave.platform.server.HttpAuthHandler;
import dev.conclave.platform.server.HttpRoutes;
import dev.conclave.swarm.config.SwarmSettings;
import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.store.TaskStore.TaskQuery;
import dev.conclave.swarm.store.TaskStore;
import dev.conclave.swarm.tasks.TaskBulk;
import dev.conclave.swarm.tasks.TaskDrafts;
import dev.conclave.swarm.validation.JsonFields;
import dev.conclave.swarm.validation.Limits;
import dev.conclave.swarm.validation.Vocabulary;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * Task management for operators (admin callers): create one task or many, list with filters, read,
 * cancel, and review tasks that need it.
 */
final class TaskRoutes {

  /** History entries one read returns: a task's lifetime, retries included, stays far below it. */
  static final int HISTORY_LIMIT = 1000;

  private final TaskStore store;
  private final SwarmSettings settings;
  private final Clock clock;
  private final Runnable onStateChange;

  TaskRoutes(TaskStore store, SwarmSettings settings, Clock clock, Runnable onStateChange) {
    this.store = store;
    this.settings = settings;
    this.clock = clock;
    this.onStateChange = onStateChange;
  }

  void bind(HttpRoutes router) {
    router.raw(HttpMethod.POST, "/api/v1/tasks", Audience.ADMINS, Resource.NONE, ctx -> {
      // 201 when the request created a task; 200 when unique tasks that exist already answer all of it
      int[] status = {201};
      admin(ctx, status, true, () -> {
        JsonObject body = Requests.body(ctx, false);
        boolean many = TaskDrafts.isBatch(body);
        return store.create(TaskDrafts.of(body), clock.instant(), settings.defaultMaxRetries(), TaskTraceParents.ofCreation(ctx))
          .map(created -> {
            if (created.stream().allMatch(t -> ((JsonObject) t).getBoolean("existing", false))) {
              status[0] = 200;
            }
            return many ? new JsonObject().put("tasks", created) : created.getJsonObject(0);
          });
      });
    });
    router.raw(HttpMethod.GET, "/api/v1/tasks", Audience.ADMINS, Resource.NONE, ctx -> admin(ctx, 200, false, () -> store.list(query(ctx.queryParams()))));
    router.raw(HttpMethod.GET, "/api/v1/tasks/:id", Audience.ADMINS, Resource.NONE, ctx -> admin(ctx, 200, false, () -> store.get(ctx.pathParam("id"))
      .compose(found -> found.map(Future::succeededFuture)
        .orElseGet(() -> Future.failedFuture(SwarmErrors.taskNotFound(ctx.pathParam("id")))))));
    router.raw(HttpMethod.GET, "/api/v1/tasks/:id/history", Audience.ADMINS, Resource.NONE, ctx -> admin(ctx, 200, false, () ->
      store.get(ctx.pathParam("id")).compose(found -> found.isEmpty()
        ? Future.failedFuture(SwarmErrors.taskNotFound(ctx.pathParam("id")))
        : store.history(ctx.pathParam("id"), HISTORY_LIMIT).map(history -> new JsonObject().put("taskId", ctx.pathParam("id"))
          .put("history", history)))));
    router.raw(HttpMethod.POST, "/api/v1/tasks/:id/cancel", Audience.ADMINS, Resource.NONE, ctx -> admin(ctx, 200, true, () -> {
      JsonFields body = JsonFields.of(Requests.body(ctx, true));
      return store.cancel(ctx.pathParam("id"), body.string("reason", false, Limits.SHORT_TEXT), clock.instant());
    }));
    router.raw(HttpMethod.POST, "/api/v1/tasks/bulk", Audience.ADMINS, Resource.NONE, ctx -> admin(ctx, 200, true, () ->
      store.bulk(TaskBulk.of(Requests.body(ctx, false)), Limits.BULK_TASKS, clock.instant())));
    router.raw(HttpMethod.POST, "/api/v1/tasks/:id/retry", Audience.ADMINS, Resource.NONE, ctx -> admin(ctx, 200, true, () ->
      store.retry(ctx.pathParam("id"), clock.instant())));
    router.raw(HttpMethod.POST, "/api/v1/tasks/:id/review", Audience.ADMINS, Resource.NONE, ctx -> admin(ctx, 200, true, () -> {
      JsonFields body = JsonFields.of(Requests.body(ctx, false));
      String decision = body.oneOf("decision", true, Vocabulary.REVIEW_DECISIONS);
      return store.review(ctx.pathParam("id"), decision, body.string("reason", false, Limits.SHORT_TEXT), clock.instant());
    }));
  }

  private interface Action {
    Future<?> run();
  }

  /** @param changes whether the action changes state (its events wait in the outbox: publish them soon) */
  private void admin(RoutingContext ctx, int status, boolean changes, Action action) {
    admin(ctx, new int[] {status}, changes, action);
  }

  /** Runs an operator's action and answers its result with {@code status[0]}, as the action left it. */
  private void admin(RoutingContext ctx, int[] status, boolean changes, Action action) {
    try {
      action.run().onComplete(ar -> {
        if (ar.succeeded()) {
          if (changes) {
            onStateChange.run();
          }
          Replies.json(ctx, status[0], ar.result());
        } else {
          Replies.problem(ctx, ar.cause());
        }
      });
    } catch (RuntimeException e) {
      Replies.problem(ctx, e);
    }
  }

  /** status, priority, type (each comma-separated), skill (one of the task's requiredSkills), assignedAgent, branch, limit (1-500), after. */
  private static TaskQuery query(MultiMap params) {
    return new TaskQuery(
      listParam(params, "status", Vocabulary.TASK_STATUSES),
      listParam(params, "priority", Vocabulary.PRIORITIES),
      listParam(params, "type", Vocabulary.TASK_TYPES),
      skill(params.get("skill")),
      params.get("assignedAgent"),
      params.get("branch"),
      number(params, "after", 0, Long.MAX_VALUE, 0),
      (int) number(params, "limit", 1, 500, 100));
  }

  private static String skill(String skill) {
    if (skill != null && (skill.isBlank() || skill.length() > MAX_SKILL)) {
      throw SwarmErrors.invalidField("skill", "must be a skill name of 1 to " + MAX_SKILL + " characters");
    }
    return skill;
  }

  static final int MAX_SKILL = 100;

  private static List<String> listParam(MultiMap params, String name, List<String> allowed) {
    List<String> values = params.getAll(name).stream().flatMap(v -> Arrays.stream(v.split(",")))
      .map(String::trim).filter(v -> !v.isEmpty()).toList();
    for (String value : values) {
      if (!allowed.contains(value)) {
        throw SwarmErrors.invalidField(name, "must be one or more of " + String.join(", ", allowed) + ", got '" + value + "'");
      }
    }
    return values.isEmpty() ? null : values;
  }

  private static long number(MultiMap params, String name, long min, long max, long fallback) {
    String text = params.get(name);
    if (text == null || text.isBlank()) {
      return fallback;
    }
    Function<String, RuntimeException> bad = why -> SwarmErrors.invalidField(name, why);
    try {
      long value = Long.parseLong(text.trim());
      if (value < min || value > max) {
        throw bad.apply("must be between " + min + " and " + max);
      }
      return value;
    } catch (NumberFormatException e) {
      throw bad.apply("must be a whole number");
    }
  }
}
