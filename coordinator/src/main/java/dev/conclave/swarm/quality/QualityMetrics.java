package dev.conclave.swarm.quality;

import dev.conclave.swarm.validation.JsonFields;
import dev.conclave.swarm.validation.JsonOut;
import dev.conclave.swarm.validation.Limits;
import io.vertx.core.json.JsonObject;

/**
 * Normalizes the quality snapshot of a COMPLETE: {testsRan, testsPassed, lintErrors, typeErrors,
 * buildSuccess}. Checks only the counts' upper limit; the members' types, that all are sent, that
 * none is negative and that testsPassed does not exceed testsRan are checked by the database
 * (swarm._quality_metrics), where regression detection (swarm._quality_gate) runs too, so that every
 * transport gets the same gate.
 * These checks stay in Java so that they answer before the signed-agent check and the rate limit
 * (see {@link dev.conclave.swarm.protocol.ProtocolRequests}).
 */
public final class QualityMetrics {

  private QualityMetrics() {
  }

  public static JsonObject of(JsonFields metrics) {
    return JsonOut.object()
      .put("testsRan", metrics.atMost("testsRan", Limits.COUNT))
      .put("testsPassed", metrics.atMost("testsPassed", Limits.COUNT))
      .put("lintErrors", metrics.atMost("lintErrors", Limits.COUNT))
      .put("typeErrors", metrics.atMost("typeErrors", Limits.COUNT))
      .put("buildSuccess", metrics.raw("buildSuccess"))
      .json();
  }
}
