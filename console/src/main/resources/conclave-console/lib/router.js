// Hash routing: #/cluster, #/agents, #/conversation/<agentId>, #/swarm, #/swarm/task/<id>, #/schedules, #/admin.
import { createStore } from './store.js';

export const DEFAULT_ROUTE = '#/cluster';

export function parseHash(hash) {
  const path = (hash || '').replace(/^#\/?/, '');
  const parts = path.split('/');
  const decode = (s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  switch (parts[0]) {
    case 'cluster':
    case 'agents':
    case 'schedules':
    case 'admin':
      return { view: parts[0] };
    case 'conversation':
      return parts[1] ? { view: 'conversation', agentId: decode(parts.slice(1).join('/')) } : { view: 'agents' };
    case 'swarm':
      if (parts[1] === 'task' && parts[2]) return { view: 'task', taskId: decode(parts.slice(2).join('/')) };
      return { view: 'swarm' };
    default:
      return { view: 'cluster' };
  }
}

export const links = {
  cluster: () => '#/cluster',
  agents: () => '#/agents',
  conversation: (agentId) => `#/conversation/${encodeURIComponent(agentId)}`,
  swarm: () => '#/swarm',
  task: (id) => `#/swarm/task/${encodeURIComponent(id)}`,
  schedules: () => '#/schedules',
  admin: () => '#/admin',
};

export const route = createStore(parseHash(typeof location === 'undefined' ? '' : location.hash));

export function startRouter() {
  if (!location.hash || location.hash === '#' || location.hash === '#/') {
    history.replaceState(null, '', DEFAULT_ROUTE);
  }
  route.set(parseHash(location.hash));
  window.addEventListener('hashchange', () => route.set(parseHash(location.hash)));
}
