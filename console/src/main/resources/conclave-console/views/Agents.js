// #/agents: every agent the caller may see, connected or not, live from presence events. The list
// is windowed, so a thousand agents stay fast; a row opens the agent's conversation.
import { bindText, html } from '../lib/html.js';
import { useMemo, useState } from 'preact/hooks';
import { links } from '../lib/router.js';
import { useStore } from '../lib/store.js';
import { filterAgents } from '../model/agents.js';
import { agentsState, inFlight } from '../state/agents.js';
import { Empty } from '../components/Empty.js';
import { RelTime } from '../components/RelTime.js';
import { VirtualList } from '../components/VirtualList.js';

const ROW_HEIGHT = 64;
const FILTERS = [['all', 'All'], ['connected', 'Connected'], ['offline', 'Offline']];

function Tags({ values, max = 4 }) {
  if (!values || !values.length) return null;
  const shown = values.slice(0, max);
  return html`<span class="tags">${shown.map((v) => html`<span class="tag" key=${v}>${v}</span>`)}${values.length > max
    ? html`<span class="tag tag-more" title=${values.slice(max).join(', ')}>+${values.length - max}</span>` : null}</span>`;
}

function AgentRow({ agent, request }) {
  return html`<a class="row agent-row" role="listitem" href=${links.conversation(agent.id)} data-testid="agent-row"
      data-agent-id=${agent.id} data-connected=${agent.connected ? 'true' : 'false'}
      aria-label=${`${agent.name} (${agent.connected ? 'connected' : 'offline'}): open the conversation`}>
    <span class=${`status-dot ${agent.connected ? 'on' : 'off'}`} aria-hidden="true"></span>
    <span class="agent-main">
      <span class="agent-name">${agent.name}${agent.name !== agent.id ? html` <span class="mono muted">${agent.id}</span>` : null}</span>
      <span class="agent-meta">
        ${agent.connected
          ? html`<span>on <span class="mono">${agent.node || '?'}</span></span> · <${RelTime} at=${agent.connectedAt} prefix="connected " />`
          : html`<span>offline</span>${agent.lastSeenAt ? html` · <${RelTime} at=${agent.lastSeenAt} prefix="seen " />` : null}`}
        ${agent.backend ? html` · <span>${agent.backend}</span>` : null}
        ${request ? html` · <span class="inflight" title=${`request ${request}`}>working on <span class="mono">${request.slice(0, 8)}</span></span>` : null}
      </span>
    </span>
    <span class="agent-tags">
      <${Tags} values=${agent.capabilities} />
      ${agent.workspaces.length ? html`<span class="ws" title="workspaces"><${Tags} values=${agent.workspaces} max=${2} /></span>` : null}
    </span>
  </a>`;
}

export function Agents() {
  const { agents, loaded, version } = useStore(agentsState);
  const requests = useStore(inFlight);
  const [filter, setFilter] = useState('all');
  const [search, setSearch] = useState('');
  const rows = useMemo(() => filterAgents(agents, filter, search), [version, filter, search]);
  let connected = 0;
  for (const a of agents.values()) if (a.connected) connected++;

  return html`<section class="view view-fill" aria-labelledby="agents-title">
    <div class="view-head">
      <h1 id="agents-title">Agents</h1>
      <p class="muted">${loaded ? `${connected} connected · ${agents.size} known` : 'Loading…'}</p>
    </div>
    <form class="toolbar" role="search" onSubmit=${(e) => e.preventDefault()}>
      <label class="sr-only" for="agent-search">Search agents</label>
      <input id="agent-search" type="search" placeholder="Search by name, id, node, capability, workspace"
        value=${search} ...${bindText(setSearch)} />
      <div class="segmented" role="radiogroup" aria-label="Show">
        ${FILTERS.map(([value, label]) => html`<label key=${value} class=${filter === value ? 'on' : ''}>
          <input type="radio" name="agent-filter" value=${value} checked=${filter === value}
            data-filter=${value} onChange=${() => setFilter(value)} />${label}</label>`)}
      </div>
    </form>
    ${!loaded ? html`<p class="muted">Loading agents…</p>`
      : agents.size === 0 ? html`<${Empty} title="No agents connected yet">Agents appear here when they open their stream to any node.<//>`
      : rows.length === 0 ? html`<${Empty} title=${filter === 'connected' ? 'No agents connected' : filter === 'offline' ? 'No offline agents' : 'No agents match'}>
          ${search ? 'Try another search.' : 'Change the filter to see the others.'}<//>`
      : html`<${VirtualList} items=${rows} rowHeight=${ROW_HEIGHT} label="Agents" className="agents-list"
          renderRow=${(a) => html`<${AgentRow} key=${a.id} agent=${a} request=${a.requestInFlight || requests.get(a.id)} />`} />`}
  </section>`;
}
