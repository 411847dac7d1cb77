package dev.conclave.platform.metrics;

/** Every metric name Conclave registers, defined once. Vert.x and JVM metrics keep their own names. */
public final class MetricNames {

  private MetricNames() {
  }

  public static final String AUTH_REJECTED = "conclave_auth_rejected";
}
