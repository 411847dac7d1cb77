// The agents the caller may see, shared by the cluster and agents views: loaded over HTTP on every
// (re)open of the live connection, kept current by presence events in between.
import { api } from '../lib/api.js';
import * as bus from '../lib/bus.js';
import { showError } from '../lib/errors.js';
import { createStore } from '../lib/store.js';
import { throttle } from '../lib/throttle.js';
import { applyPresence, fromListing } from '../model/agents.js';

/** {agents: Map id -> agent, loaded, version}; `version` changes with every change. */
export const agentsState = createStore({ agents: new Map(), loaded: false, version: 0 });
/** Presence events as they arrive, for views that react to them (the cluster's node counts). */
export const presenceTick = createStore(0);
/** agentId -> request id in flight, as far as this page knows (from its own sends and the ledger). */
export const inFlight = createStore(new Map());

let admin = false;
let stop = null;

export async function loadAgents() {
  try {
    const res = await api.agents();
    const agents = new Map();
    for (const a of (res && res.agents) || []) agents.set(a.agentId, fromListing(a));
    agentsState.set((s) => ({ agents, loaded: true, version: s.version + 1 }));
  } catch (e) {
    showError(e, 'Could not load the agents');
  }
}

const reloadSoon = throttle(loadAgents, 1000);

function onPresence(p) {
  const { agents } = agentsState.get();
  if (!agents.has(p.agentId) && !admin) {
    // a member sees only the agents it may act on: ask the server which
    reloadSoon();
  } else if (applyPresence(agents, p) !== 'stale') {
    agentsState.set((s) => ({ ...s, version: s.version + 1 }));
  }
  presenceTick.set((n) => n + 1);
}

export function setInFlight(agentId, requestId) {
  const map = inFlight.get();
  if ((map.get(agentId) || '') === (requestId || '')) return;
  const next = new Map(map);
  if (requestId) next.set(agentId, requestId);
  else next.delete(agentId);
  inFlight.set(next);
}

/** Follows presence while logged in; returns the function that stops it. */
export function startAgents(isAdmin) {
  admin = isAdmin;
  stopAgents();
  const unsubscribe = bus.subscribe(bus.ADDRESSES.presence, onPresence);
  const offOpen = bus.onOpen(loadAgents);
  loadAgents();
  stop = () => {
    unsubscribe();
    offOpen();
    reloadSoon.cancel();
  };
  return stop;
}

export function stopAgents() {
  if (stop) stop();
  stop = null;
  agentsState.set({ agents: new Map(), loaded: false, version: 0 });
  inFlight.set(new Map());
}
