package dev.conclave.swarm.tasks;

import dev.conclave.swarm.quality.QualityMetrics;
import dev.conclave.swarm.validation.JsonFields;
import dev.conclave.swarm.validation.JsonOut;
import dev.conclave.swarm.validation.Limits;
import dev.conclave.swarm.validation.Vocabulary;
import io.vertx.core.json.JsonObject;

/** Validates and normalizes what agents report about a claimed task: PROGRESS and COMPLETE. */
public final class WorkReports {

  private WorkReports() {
  }

  /** PROGRESS: {agentId, taskId, progress: {phase, percentComplete, description, filesModified?}}. */
  public static JsonObject progress(JsonFields body) {
    JsonFields progress = body.object("progress", true);
    return JsonOut.object()
      .put("agentId", body.id("agentId", true))
      .put("taskId", body.id("taskId", true))
      .put("progress", JsonOut.object()
        .put("phase", progress.oneOf("phase", true, Vocabulary.PHASES))
        .put("percentComplete", progress.number("percentComplete", true, 0, 100))
        .put("description", progress.string("description", true, Limits.SHORT_TEXT))
        .put("filesModified", progress.strings("filesModified", false, Limits.PATHS, Limits.PATH)))
      .json();
  }

  /**
   * COMPLETE: {agentId, taskId, result: {filesCreated, filesModified, filesDeleted, summary,
   * learnings?}, qualityMetrics?}. Missing file lists count as empty.
   */
  public static JsonObject complete(JsonFields body) {
    JsonFields result = body.object("result", true);
    JsonFields metrics = body.object("qualityMetrics", false);
    JsonOut out = JsonOut.object()
      .put("agentId", body.id("agentId", true))
      .put("taskId", body.id("taskId", true))
      .put("result", JsonOut.object()
        .put("filesCreated", orEmpty(result, "filesCreated"))
        .put("filesModified", orEmpty(result, "filesModified"))
        .put("filesDeleted", orEmpty(result, "filesDeleted"))
        .put("summary", result.string("summary", true, Limits.TEXT))
        .put("learnings", result.strings("learnings", false, Limits.LEARNINGS, Limits.LEARNING)));
    if (metrics != null) {
      out.put("qualityMetrics", QualityMetrics.of(metrics));
    }
    return out.json();
  }

  private static java.util.List<String> orEmpty(JsonFields result, String key) {
    java.util.List<String> files = result.strings(key, false, Limits.PATHS, Limits.PATH);
    return files == null ? java.util.List.of() : files;
  }
}
