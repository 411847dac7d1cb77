// Agents as the console shows them: the list from GET /api/v1/gateway/agents, kept current by
// presence events ({agentId, connected, node, epoch, name, capabilities, features, workspaces, at}).
// Pure: tested under Node.

const list = (v) => (Array.isArray(v) ? v : []);

/** An agent of GET …/agents ({agentId, name, …}) in the console's shape ({id, name, …}). */
export function fromListing(a) {
  return {
    id: a.agentId,
    name: a.name || a.agentId,
    backend: a.backend || '',
    workingDir: a.workingDir || '',
    connected: Boolean(a.connected),
    node: a.node || '',
    capabilities: list(a.capabilities),
    features: list(a.features),
    workspaces: list(a.workspaces),
    connectedAt: a.connectedAt || '',
    lastSeenAt: a.lastSeenAt || a.disconnectedAt || '',
    epoch: Number.isFinite(a.epoch) ? a.epoch : -1,
    // the request in flight, when the server names it (any of these members)
    requestInFlight: a.requestInFlight || a.currentRequestId || a.inFlightRequestId || '',
  };
}

/**
 * Applies a presence event to a Map id -> agent; returns 'added', 'updated' or 'stale' (an event
 * of an older connection epoch than the one already known, arriving late).
 */
export function applyPresence(agents, p) {
  if (!p || !p.agentId) return 'stale';
  const known = agents.get(p.agentId);
  const epoch = Number.isFinite(p.epoch) ? p.epoch : -1;
  if (known && epoch >= 0 && known.epoch >= 0 && epoch < known.epoch) return 'stale';
  if (known && epoch >= 0 && epoch === known.epoch && known.connected === false && p.connected) return 'stale';
  const base = known || fromListing({ agentId: p.agentId });
  const next = {
    ...base,
    name: p.name || base.name,
    connected: Boolean(p.connected),
    node: p.node || (p.connected ? '' : base.node),
    capabilities: p.capabilities ? list(p.capabilities) : base.capabilities,
    features: p.features ? list(p.features) : base.features,
    workspaces: p.workspaces ? list(p.workspaces) : base.workspaces,
    epoch: epoch >= 0 ? epoch : base.epoch,
  };
  if (p.connected) {
    next.connectedAt = p.at || base.connectedAt;
  } else {
    next.lastSeenAt = p.at || base.lastSeenAt;
    next.requestInFlight = '';
  }
  agents.set(p.agentId, next);
  return known ? 'updated' : 'added';
}

/** Agents matching the filter ('all' | 'connected' | 'offline') and the search text, sorted. */
export function filterAgents(agents, filter, search) {
  const q = (search || '').trim().toLowerCase();
  const out = [];
  for (const a of agents.values()) {
    if (filter === 'connected' && !a.connected) continue;
    if (filter === 'offline' && a.connected) continue;
    if (q) {
      const hay = [a.id, a.name, a.node, a.backend, ...a.capabilities, ...a.workspaces].join('\n').toLowerCase();
      if (!hay.includes(q)) continue;
    }
    out.push(a);
  }
  out.sort((x, y) => (x.connected === y.connected ? 0 : x.connected ? -1 : 1)
    || x.name.localeCompare(y.name) || x.id.localeCompare(y.id));
  return out;
}
