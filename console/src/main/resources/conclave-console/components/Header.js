// The header: navigation, the live connection's state, who is logged in, logout.
import { html } from '../lib/html.js';
import { connState } from '../lib/bus.js';
import { links } from '../lib/router.js';
import { logout } from '../lib/session.js';
import { useStore } from '../lib/store.js';

const NAV = [
  ['cluster', 'Cluster', links.cluster()],
  ['agents', 'Agents', links.agents()],
  ['swarm', 'Swarm', links.swarm()],
  ['schedules', 'Schedules', links.schedules()],
  ['admin', 'Admin', links.admin()],
];

const STATE_HINT = {
  live: 'Live: following the cluster over the event bus',
  reconnecting: 'The live connection closed; reconnecting (missed events are fetched once it is back)',
  offline: 'Not connected',
};

export function ConnState() {
  const state = useStore(connState);
  return html`<span class=${`conn conn-${state}`} title=${STATE_HINT[state]}>
    <span class="conn-dot" aria-hidden="true"></span><span id="conn-state" role="status" aria-live="polite">${state}</span>
  </span>`;
}

export function Header({ session, active }) {
  const current = active === 'conversation' ? 'agents' : active === 'task' ? 'swarm' : active;
  return html`<header class="topbar">
    <a class="brand" href=${links.cluster()}>Conclave</a>
    ${session ? html`<nav class="nav" aria-label="Main">
      ${NAV.map(([view, label, href]) => html`<a href=${href} data-view=${view}
        class=${current === view ? 'active' : ''} aria-current=${current === view ? 'page' : undefined}>${label}</a>`)}
    </nav>` : html`<span class="nav-spacer"></span>`}
    <div class="topbar-right">
      <${ConnState} />
      ${session ? html`
        <span class="who" title=${`${session.principalId} · ${(session.roles || []).join(', ')} · ${session.purpose} token`}>
          ${session.displayName || session.principalId}${session.admin ? html` <span class="badge">admin</span>` : null}${session.purpose === 'bridge'
            ? html` <span class="badge badge-warn" title="Opened with a bridge token: follows and reads, cannot act">read-only</span>` : null}
        </span>
        <button id="logout" type="button" class="btn btn-quiet" onClick=${() => logout()}>Log out</button>` : null}
    </div>
  </header>`;
}
