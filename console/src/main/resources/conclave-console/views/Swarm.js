// #/swarm (admins): the task board, one column per status, cards moving live with the swarm's
// events; the operator's forms; the swarm agents.
import { html } from '../lib/html.js';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from '../lib/api.js';
import * as bus from '../lib/bus.js';
import { showError } from '../lib/errors.js';
import { useLiveLoad, useSubscription } from '../lib/live.js';
import { links } from '../lib/router.js';
import { useStore } from '../lib/store.js';
import { agentsState } from '../state/agents.js';
import { throttle } from '../lib/throttle.js';
import { MAX_SELECTED, STATUSES, STATUS_LABELS, applyTaskEvent, columns } from '../model/swarm.js';
import { Empty } from '../components/Empty.js';
import { RelTime } from '../components/RelTime.js';
import { CommandForm, CreateTaskForm } from './SwarmForms.js';
import { BulkBar } from './SwarmBulk.js';

const PAGE = 500;
const MAX_PAGES = 20; // 10,000 tasks
const CARDS_PER_COLUMN = 100;

async function loadAllTasks() {
  const tasks = new Map();
  let after;
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await api.tasks({ limit: PAGE, after });
    for (const t of (res && res.tasks) || []) tasks.set(t.id, t);
    after = res && res.nextCursor;
    if (!after) return { tasks, truncated: false };
  }
  return { tasks, truncated: true };
}

function TaskCard({ task, selected, onToggle }) {
  const pct = task.progress && Number.isFinite(task.progress.percentComplete) ? task.progress.percentComplete : null;
  // a task an agent program works (./conclave agent --swarm) is a conversation too: linked beside the card
  const card = html`<a class="task-card" href=${links.task(task.id)} data-testid="task-card" data-task-id=${task.id}
      data-status=${task.status}>
    <span class="task-title">${task.title || task.id}</span>
    <span class="task-meta">
      <span class=${`pill pill-prio-${task.priority}`}>${task.priority || 'medium'}</span>
      ${task.type ? html`<span class="tag">${task.type}</span>` : null}
      ${task.retryCount ? html`<span class="tag" title="failures so far">retry ${task.retryCount}/${task.maxRetries ?? '?'}</span>` : null}
    </span>
    ${task.assignedAgent ? html`<span class="task-agent small">⚑ <span class="mono">${task.assignedAgent}</span></span>` : null}
    ${pct !== null && task.status === 'in_progress' ? html`<span class="progress" role="progressbar" aria-valuenow=${pct} aria-valuemin="0" aria-valuemax="100"
        title=${`${task.progress.phase || ''} ${pct}%`}><span style=${`width:${Math.max(0, Math.min(100, pct))}%`}></span></span>` : null}
    ${task.status === 'pending_retry' && task.nextRetryAt ? html`<span class="small muted">retries <${RelTime} at=${task.nextRetryAt} /></span>` : null}
  </a>`;
  // selecting is beside the link, not in it: a click on the box never opens the task
  const select = html`<input type="checkbox" class="task-select" checked=${selected} onChange=${() => onToggle(task.id)}
    data-testid="task-select" data-task-id=${task.id} aria-label=${`Select ${task.title || task.id}`} />`;
  return html`<div class="task-card-wrap">${select}${card}${task.conversationKey ? html`<a class="task-convo small" href=${links.conversation(task.conversationKey)}
    data-testid="task-conversation" data-task-id=${task.id}>${task.status === 'in_progress' || task.status === 'claimed' ? 'Live conversation' : 'Conversation'} →</a>` : null}</div>`;
}

/** A swarm agent that is also a gateway agent (one identity: ./conclave agent --swarm) links to its conversation, with its presence. */
function SwarmAgentName({ agent }) {
  const { agents } = useStore(agentsState);
  const gateway = agents.get(agent.id);
  const name = agent.name && agent.name !== agent.id ? html` <span class="muted">${agent.name}</span>` : null;
  if (!gateway) return html`<span class="mono">${agent.id}</span>${name}`;
  return html`<span class=${`status-dot ${gateway.connected ? 'on' : 'off'}`} title=${gateway.connected ? 'connected to the gateway' : 'not connected to the gateway'}
    aria-hidden="true"></span> <a class="mono" href=${links.conversation(agent.id)}>${agent.id}</a>${name}`;
}

export function SwarmBoard() {
  const [state, setState] = useState({ tasks: null, truncated: false, version: 0 });
  const tasksRef = useRef(new Map());
  const lastSeq = useRef(0);
  const [swarmAgents, setSwarmAgents] = useState([]);
  // what a bulk action acts on: cards picked one by one, or a whole column (status)
  const [selection, setSelection] = useState({ ids: new Set(), status: null });
  const toggle = (id) => setSelection((cur) => {
    const ids = new Set(cur.status ? [] : cur.ids);
    if (ids.has(id)) ids.delete(id);
    else if (ids.size < MAX_SELECTED) ids.add(id);
    return { ids, status: null };
  });
  const clearSelection = () => setSelection({ ids: new Set(), status: null });

  const [ops] = useState(() => {
    const publish = () => setState((s) => ({ ...s, tasks: tasksRef.current, version: s.version + 1 }));
    const toFetch = new Set(); // tasks an event named that the board must read
    const held = []; // events that arrive while the board is being read, applied to what is read
    let loading = false;
    const apply = (ev) => {
      const outcome = applyTaskEvent(tasksRef.current, ev);
      if (outcome === 'updated') publish();
      else if (outcome === 'fetch') {
        toFetch.add(ev.id);
        fetchSoon();
      }
    };
    const onTaskEvent = (ev) => (loading ? held.push(ev) : apply(ev));
    const load = async () => {
      loading = true;
      try {
        const { tasks, truncated } = await loadAllTasks();
        tasksRef.current = tasks;
        setState((s) => ({ tasks, truncated, version: s.version + 1 }));
        loading = false;
        held.splice(0).forEach(apply);
      } catch (e) {
        loading = false;
        held.length = 0;
        showError(e, 'Could not load the tasks');
        setState((s) => ({ ...s, tasks: s.tasks || new Map() }));
      }
    };
    const loadAgents = async () => {
      try {
        const res = await api.swarmAgents();
        setSwarmAgents(((res && res.agents) || []).slice().sort((a, b) => String(a.id).localeCompare(String(b.id))));
      } catch (e) {
        showError(e, 'Could not load the swarm agents');
      }
    };
    const fetchTask = async (id) => {
      try {
        const task = await api.task(id);
        if (task && task.id) {
          tasksRef.current.set(task.id, task);
          publish();
        }
      } catch (e) {
        if (e.status === 404) {
          tasksRef.current.delete(id);
          publish();
        } else {
          showError(e, `Could not read task ${id}`);
        }
      }
    };
    // a burst (a batch of created tasks) reads the board once instead of task by task
    const fetchSoon = throttle(() => {
      const ids = [...toFetch];
      toFetch.clear();
      if (ids.length > 20) load();
      else ids.forEach(fetchTask);
    }, 250);
    return { publish, onTaskEvent, load, loadSoon: throttle(load, 3000), loadAgents, agentsSoon: throttle(loadAgents, 5000), fetchSoon };
  });

  useLiveLoad(() => {
    ops.load();
    ops.loadAgents();
  }, []);
  useEffect(() => () => {
    ops.loadSoon.cancel();
    ops.agentsSoon.cancel();
    ops.fetchSoon.cancel();
  }, []);

  useSubscription(bus.ADDRESSES.swarm, (ev) => {
    if (!ev || typeof ev !== 'object') return;
    if (Number.isFinite(ev.seq)) {
      // events are published once, at most: a jump means some were lost, so read the board again
      if (lastSeq.current && ev.seq > lastSeq.current + 1) ops.loadSoon();
      lastSeq.current = Math.max(lastSeq.current, ev.seq);
    }
    if (ev.kind === 'task') {
      ops.onTaskEvent(ev);
    } else if (ev.kind === 'agent' && ev.event !== 'heartbeat') {
      ops.agentsSoon();
    }
  });

  const cols = useMemo(() => (state.tasks ? columns(state.tasks) : null), [state.version]);
  const total = state.tasks ? state.tasks.size : 0;

  return html`<section class="view view-wide" aria-labelledby="swarm-title">
    <div class="view-head">
      <h1 id="swarm-title">Swarm</h1>
      <p class="muted">${state.tasks ? `${total} task${total === 1 ? '' : 's'}${state.truncated ? ' (the first 10,000)' : ''}` : 'Loading…'}${' · '}${swarmAgents.length} swarm agent${swarmAgents.length === 1 ? '' : 's'}</p>
    </div>
    ${selection.status || selection.ids.size > 0 ? html`<${BulkBar} target=${selection} onDone=${() => {}} onClear=${clearSelection} />` : null}
    ${!cols ? html`<p class="muted">Loading tasks…</p>` : html`
      ${total === 0 ? html`<${Empty} title="No tasks yet">Create one below, or POST to /api/v1/tasks.<//>` : null}
      <div class="board" role="region" aria-label="Task board" tabindex="0" data-testid="swarm-board">
        ${STATUSES.map((status) => {
          const list = cols[status] || [];
          return html`<div class="column" key=${status} data-testid="swarm-column" data-status=${status} aria-label=${STATUS_LABELS[status]}>
            <h2 class="column-head"><span>${STATUS_LABELS[status]}</span><span class="count">${list.length}</span>
              ${list.length > 0 ? html`<button type="button" class="btn-link small" data-testid="column-select" data-status=${status}
                aria-pressed=${selection.status === status} onClick=${() => setSelection({ ids: new Set(), status })}
                title=${`act on every ${STATUS_LABELS[status]} task`}>all</button>` : null}</h2>
            <div class="column-body">
              ${list.length === 0 ? html`<p class="column-empty">No tasks</p>` : null}
              ${list.slice(0, CARDS_PER_COLUMN).map((t) => html`<${TaskCard} key=${t.id} task=${t}
                selected=${selection.status === status || selection.ids.has(t.id)} onToggle=${toggle} />`)}
              ${list.length > CARDS_PER_COLUMN ? html`<p class="column-empty">and ${list.length - CARDS_PER_COLUMN} more</p>` : null}
            </div>
          </div>`;
        })}
      </div>`}
    <div class="grid-2">
      <${CreateTaskForm} onCreated=${(t) => { if (t && t.id) { tasksRef.current.set(t.id, t); ops.publish(); } }} />
      <${CommandForm} swarmAgents=${swarmAgents} />
    </div>
    <section class="card" aria-labelledby="swarm-agents-title">
      <h2 id="swarm-agents-title">Swarm agents</h2>
      ${swarmAgents.length === 0 ? html`<p class="muted">No swarm agents registered yet.</p>` : html`<table class="table">
        <thead><tr><th scope="col">Agent</th><th scope="col">Status</th><th scope="col">Current task</th><th scope="col">Last heartbeat</th></tr></thead>
        <tbody>${swarmAgents.slice(0, 500).map((a) => html`<tr key=${a.id}>
          <td><${SwarmAgentName} agent=${a} /></td>
          <td><span class=${`pill pill-agent-${a.status}`}>${a.status || '?'}</span></td>
          <td>${a.currentTask ? html`<a class="mono" href=${links.task(typeof a.currentTask === 'string' ? a.currentTask : a.currentTask.id)}>${typeof a.currentTask === 'string' ? a.currentTask : a.currentTask.id}</a>` : html`<span class="muted">—</span>`}</td>
          <td><${RelTime} at=${a.lastHeartbeatAt} /></td>
        </tr>`)}</tbody>
      </table>`}
    </section>
  </section>`;
}
