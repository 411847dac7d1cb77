package dev.conclave.gateway.sessions;

import dev.conclave.gateway.GatewaySettings;
import dev.conclave.gateway.commit.LedgerWriter;
import dev.conclave.gateway.mailbox.Terminations;
import dev.conclave.gateway.presence.Presence;
import dev.conclave.gateway.routing.AgentRouter;
import dev.conclave.gateway.store.AgentStore;
import dev.conclave.gateway.store.ApprovalStore;
import dev.conclave.gateway.store.InjectionStore;
import dev.conclave.gateway.store.LedgerStore;
import dev.conclave.gateway.store.RequestStore;
import dev.conclave.gateway.store.UsageStore;
import dev.conclave.platform.auth.PrincipalStore;
import dev.conclave.platform.auth.TokenService;
import dev.conclave.platform.packs.PackTools;
import dev.conclave.platform.secrets.Secrets;
import dev.conclave.platform.server.EdgeSecurity;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;

import java.time.Clock;

/** What agent sessions work with; one instance per node. */
public record SessionServices(
  Vertx vertx,
  String nodeId,
  GatewaySettings settings,
  LedgerWriter writer,
  AgentStore agents,
  RequestStore requests,
  LedgerStore ledger,
  ApprovalStore approvals,
  InjectionStore injections,
  UsageStore usage,
  Presence presence,
  AgentRouter router,
  Terminations terminations,
  PrincipalStore principals,
  TokenService tokens,
  PackTools packTools,
  EdgeSecurity edge,
  LocalSessions sessions,
  SessionMetrics metrics,
  MeterRegistry registry,
  Clock clock,
  Secrets secrets,
  dev.conclave.gateway.lifecycle.Lifecycle lifecycle) {
}
