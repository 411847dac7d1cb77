package dev.conclave.swarm.quality;

import dev.conclave.swarm.errors.SwarmErrors;
import dev.conclave.swarm.validation.JsonFields;
import dev.conclave.swarm.validation.JsonOut;
import dev.conclave.swarm.validation.Limits;
import io.vertx.core.json.JsonObject;

/**
 * Validates the quality snapshot of a COMPLETE: {testsRan, testsPassed, lintErrors, typeErrors,
 * buildSuccess}, all required when the snapshot is sent. Regression detection itself runs in the
 * database (swarm._quality_gate) so that every transport gets the same gate.
 */
public final class QualityMetrics {

  private QualityMetrics() {
  }

  public static JsonObject of(JsonFields metrics) {
    long ran = metrics.integer("testsRan", true, 0, Limits.COUNT);
    long passed = metrics.integer("testsPassed", true, 0, Limits.COUNT);
    if (passed > ran) {
      throw SwarmErrors.invalidField(metrics.path("testsPassed"), "must not exceed testsRan (" + ran + ")");
    }
    return JsonOut.object()
      .put("testsRan", ran)
      .put("testsPassed", passed)
      .put("lintErrors", metrics.integer("lintErrors", true, 0, Limits.COUNT))
      .put("typeErrors", metrics.integer("typeErrors", true, 0, Limits.COUNT))
      .put("buildSuccess", metrics.bool("buildSuccess", true))
      .json();
  }
}
