package dev.conclave.gateway.sessions;

import dev.conclave.gateway.commit.LedgerWriter;
import dev.conclave.gateway.store.AgentStore;
import dev.conclave.gateway.store.ApprovalStore;
import dev.conclave.gateway.store.InjectionStore;
import dev.conclave.gateway.store.LedgerStore;
import dev.conclave.gateway.store.RequestStore;
import dev.conclave.gateway.store.UsageStore;
import dev.conclave.platform.auth.PrincipalStore;

/**
 * The stores agent sessions read and write: principals and agents (registration), requests (dispatch
 * and their ends), the ledger writer and the event details (usage, approvals), the ledger's size limit,
 * injection answers. {@link AgentSessions} hands each part of a session only the ones it uses.
 */
public record SessionStores(
  PrincipalStore principals,
  AgentStore agents,
  RequestStore requests,
  LedgerWriter ledgerWriter,
  LedgerStore ledger,
  ApprovalStore approvals,
  UsageStore usage,
  InjectionStore injections) {
}
