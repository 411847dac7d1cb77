package dev.conclave.gateway.clientsession;

import dev.conclave.gateway.control.Approvals;
import dev.conclave.gateway.control.Cancellation;
import dev.conclave.gateway.directory.ConversationAccess;
import dev.conclave.gateway.lifecycle.Lifecycle;
import dev.conclave.gateway.mailbox.Mailbox;
import dev.conclave.gateway.registry.AgentRegistry;
import dev.conclave.gateway.store.ClientSessionStore;
import dev.conclave.gateway.store.LedgerStore;
import dev.conclave.gateway.store.RegistryStore;
import dev.conclave.gateway.store.RequestStore;
import io.vertx.core.Vertx;

/** What client sessions work with: the gateway's own services, nothing of their own. One per node. */
public record SessionDeps(
  Vertx vertx,
  Mailbox mailbox,
  Cancellation cancellation,
  Approvals approvals,
  RequestStore requests,
  LedgerStore ledger,
  ConversationAccess conversations,
  AgentRegistry registry,
  RegistryStore registryStore,
  Lifecycle lifecycle,
  ClientSessionStore sessions) {
}
