// #/cluster: the gateway nodes with their status and agent counts, refreshed on presence events.
import { html } from '../lib/html.js';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../lib/api.js';
import { showError } from '../lib/errors.js';
import { useLiveLoad } from '../lib/live.js';
import { links } from '../lib/router.js';
import { useStore } from '../lib/store.js';
import { throttle } from '../lib/throttle.js';
import { agentsState, presenceTick } from '../state/agents.js';
import { Empty } from '../components/Empty.js';
import { RelTime } from '../components/RelTime.js';

export function Cluster() {
  const [nodes, setNodes] = useState(null);
  const { agents, loaded } = useStore(agentsState);
  const tick = useStore(presenceTick);

  const [load] = useState(() => {
    const fn = async () => {
      try {
        const res = await api.nodes();
        setNodes(((res && res.nodes) || []).slice().sort((a, b) => String(a.node).localeCompare(String(b.node))));
      } catch (e) {
        showError(e, 'Could not load the nodes');
        setNodes((n) => n || []);
      }
    };
    return { fn, soon: throttle(fn, 500) };
  });

  useLiveLoad(load.fn, []);
  useEffect(() => {
    if (tick) load.soon();
  }, [tick]);
  useEffect(() => () => load.soon.cancel(), []);

  let connected = 0;
  for (const a of agents.values()) if (a.connected) connected++;

  return html`<section class="view" aria-labelledby="cluster-title">
    <div class="view-head">
      <h1 id="cluster-title">Cluster</h1>
      <p class="muted">${nodes ? `${nodes.length} node${nodes.length === 1 ? '' : 's'}` : 'Loading…'}
        ${loaded ? html` · <a href=${links.agents()}>${connected} of ${agents.size} agents connected</a>` : null}</p>
    </div>
    ${nodes === null ? html`<p class="muted">Loading nodes…</p>`
      : nodes.length === 0 ? html`<${Empty} title="No nodes reported yet">Nodes appear here once their gateway role is up.<//>`
      : html`<table class="table">
        <thead><tr><th scope="col">Node</th><th scope="col">Status</th><th scope="col" class="num">Agents</th><th scope="col">Started</th></tr></thead>
        <tbody>
          ${nodes.map((n) => html`<tr key=${n.node} data-testid="node-row" data-node=${n.node} data-agents=${String(n.agents ?? 0)}>
            <td class="mono">${n.node}</td>
            <td><span class=${`pill pill-${n.status === 'up' ? 'ok' : 'warn'}`}>${n.status || 'unknown'}</span></td>
            <td class="num">${n.agents ?? 0}</td>
            <td>${n.startedAt ? html`<${RelTime} at=${n.startedAt} />` : html`<span class="muted">—</span>`}</td>
          </tr>`)}
        </tbody>
      </table>`}
  </section>`;
}
