package dev.conclave.swarm.tasks;

import dev.conclave.swarm.quality.QualityMetrics;
import dev.conclave.swarm.validation.JsonFields;
import dev.conclave.swarm.validation.JsonOut;
import dev.conclave.swarm.validation.Limits;
import io.vertx.core.json.JsonObject;

import java.util.List;

/**
 * Normalizes what agents report about a claimed task: PROGRESS and COMPLETE. Checks sizes, id formats
 * and percentComplete's range; swarm.op_progress and swarm.complete_batch check JSON types, required
 * members and the phase's enumeration.
 * These checks stay in Java so that they answer before the signed-agent check and the rate limit
 * (see {@link dev.conclave.swarm.protocol.ProtocolRequests}).
 */
public final class WorkReports {

  private WorkReports() {
  }

  /** PROGRESS: {agentId, taskId, progress: {phase, percentComplete, description, filesModified?}}. */
  public static JsonObject progress(JsonFields body) {
    JsonFields progress = body.nested("progress");
    return JsonOut.object()
      .put("agentId", body.idFormat("agentId"))
      .put("taskId", body.idFormat("taskId"))
      .put("progress", progress == null ? body.raw("progress") : JsonOut.object()
        .put("phase", progress.raw("phase"))
        .put("percentComplete", progress.within("percentComplete", 0, 100))
        .put("description", progress.sized("description", Limits.SHORT_TEXT))
        .put("filesModified", progress.sizedList("filesModified", Limits.PATHS, Limits.PATH)))
      .json();
  }

  /**
   * COMPLETE: {agentId, taskId, result: {filesCreated, filesModified, filesDeleted, summary,
   * learnings?}, qualityMetrics?}. Missing file lists count as empty.
   */
  public static JsonObject complete(JsonFields body) {
    JsonFields result = body.nested("result");
    JsonFields metrics = body.nested("qualityMetrics");
    return JsonOut.object()
      .put("agentId", body.idFormat("agentId"))
      .put("taskId", body.idFormat("taskId"))
      .put("result", result == null ? body.raw("result") : JsonOut.object()
        .put("filesCreated", orEmpty(result, "filesCreated"))
        .put("filesModified", orEmpty(result, "filesModified"))
        .put("filesDeleted", orEmpty(result, "filesDeleted"))
        .put("summary", result.sized("summary", Limits.TEXT))
        .put("learnings", result.sizedList("learnings", Limits.LEARNINGS, Limits.LEARNING)))
      .put("qualityMetrics", metrics == null ? body.raw("qualityMetrics") : QualityMetrics.of(metrics))
      .json();
  }

  private static Object orEmpty(JsonFields result, String key) {
    Object files = result.sizedList(key, Limits.PATHS, Limits.PATH);
    return files == null ? List.of() : files;
  }
}
