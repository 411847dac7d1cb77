package dev.conclave.platform.runtime;

import dev.conclave.platform.access.AgentAccess;
import dev.conclave.platform.auth.PrincipalStore;
import dev.conclave.platform.auth.TokenService;
import dev.conclave.platform.cluster.ClusterMembership;
import dev.conclave.platform.config.ConclaveConfig;
import dev.conclave.platform.health.NodeHealth;
import dev.conclave.platform.packs.PackTools;
import dev.conclave.platform.secrets.Secrets;
import dev.conclave.platform.server.EdgeSecurity;
import dev.conclave.platform.tracing.NodeTracing;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;

import java.time.Clock;

/** What the kernel hands every role when it starts: the shared runtime services of this node. */
public record NodeContext(
  Vertx vertx,
  ConclaveConfig config,
  Pool pool,
  TokenService tokens,
  PrincipalStore principals,
  MeterRegistry metrics,
  NodeHealth health,
  Clock clock,
  ClusterMembership membership,
  PackTools packTools,
  EdgeSecurity edge,
  AgentAccess access,
  Secrets secrets,
  NodeTracing tracing) {

  public String nodeId() {
    return config.nodeId();
  }
}
