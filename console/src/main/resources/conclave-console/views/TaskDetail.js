// #/swarm/task/<id> (admins): one task as GET /api/v1/tasks/:id gives it (status, retries and
// backoff, progress, result, quality gate) and its stored history (GET /api/v1/tasks/:id/history:
// its events, leases and messages), both kept current by the swarm's events.
import { html } from '../lib/html.js';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../lib/api.js';
import * as bus from '../lib/bus.js';
import { showError } from '../lib/errors.js';
import { useLiveLoad, useSubscription } from '../lib/live.js';
import { links } from '../lib/router.js';
import { absolute, duration } from '../lib/time.js';
import { throttle } from '../lib/throttle.js';
import { STATUS_LABELS } from '../model/swarm.js';
import { Code } from '../components/Code.js';
import { Empty } from '../components/Empty.js';
import { RelTime } from '../components/RelTime.js';

const HISTORY_MAX = 1000;

/** Newest first, each event once (the stored history and live events overlap). */
function mergeHistory(a, b) {
  const bySeq = new Map();
  for (const e of [...a, ...b]) bySeq.set(e.seq, e);
  return [...bySeq.values()].sort((x, y) => y.seq - x.seq).slice(0, HISTORY_MAX);
}

function List({ items, mono = true }) {
  if (!items || !items.length) return html`<span class="muted">—</span>`;
  return html`<span class="tags">${items.map((x) => html`<span class=${`tag${mono ? ' mono' : ''}`}>${x}</span>`)}</span>`;
}

function Row({ label, children }) {
  return html`<div class="dl-row"><dt>${label}</dt><dd>${children}</dd></div>`;
}

function describe(ev) {
  const d = ev.data || {};
  const parts = [];
  if (d.agentId) parts.push(`agent ${d.agentId}`);
  if (d.status) parts.push(`→ ${d.status}`);
  if (d.phase) parts.push(`${d.phase}${Number.isFinite(d.percentComplete) ? ` ${d.percentComplete}%` : ''}`);
  if (d.description) parts.push(d.description);
  if (d.failureType) parts.push(d.failureType);
  if (d.message) parts.push(d.message);
  if (d.willRetry !== undefined) parts.push(d.willRetry ? `retry in ${duration(d.retryAfter)}` : 'no retry');
  if (d.reason) parts.push(`reason: ${d.reason}`);
  if (d.filePath) parts.push(d.filePath);
  if (d.expiresAt) parts.push(`until ${absolute(d.expiresAt)}`);
  if (d.from || d.to) parts.push(`${d.from || '?'} → ${d.to || 'everyone'}`);
  if (d.type) parts.push(d.type);
  return parts.join(' · ');
}

export function TaskDetail({ taskId }) {
  const [task, setTask] = useState(null);
  const [missing, setMissing] = useState(null);
  const [history, setHistory] = useState([]);
  const [learnings, setLearnings] = useState([]);
  const [busy, setBusy] = useState(false);

  const [ops] = useState(() => {
    let id = taskId;
    const load = async () => {
      try {
        const [t, h] = await Promise.all([api.task(id), api.taskHistory(id)]);
        setTask(t);
        setHistory((live) => mergeHistory(live, (h && h.history) || []));
        setMissing(null);
      } catch (e) {
        if (e.status === 404) setMissing(e);
        else showError(e, `Could not read task ${id}`);
      }
    };
    return { setId: (v) => { id = v; }, load, loadSoon: throttle(load, 300) };
  });
  ops.setId(taskId);

  useEffect(() => {
    setTask(null);
    setMissing(null);
    setHistory([]);
    setLearnings([]);
  }, [taskId]);
  useLiveLoad(ops.load, [taskId]);
  useEffect(() => () => ops.loadSoon.cancel(), []);

  useEffect(() => {
    if (!task || !task.title) return;
    api.learnings(`${task.title}`, 5).then((r) => setLearnings((r && r.learnings) || [])).catch(() => setLearnings([]));
  }, [task && task.title]);

  useSubscription(bus.ADDRESSES.swarm, (ev) => {
    if (!ev || typeof ev !== 'object') return;
    const d = ev.data || {};
    const agent = task && (task.assignedAgent || (task.previousAgents || []).slice(-1)[0]);
    const mine = (ev.kind === 'task' && ev.id === taskId)
      || (ev.kind === 'lease' && d.taskId === taskId)
      || (ev.kind === 'message' && agent && (d.from === agent || d.to === agent));
    if (!mine) return;
    setHistory((h) => mergeHistory(h, [ev]));
    if (ev.kind === 'task') ops.loadSoon();
  });

  async function act(fn, what) {
    setBusy(true);
    try {
      await fn();
      await ops.load();
    } catch (e) {
      showError(e, what);
    } finally {
      setBusy(false);
    }
  }

  if (missing) {
    return html`<section class="view"><a class="back" href=${links.swarm()}>← Swarm</a>
      <${Empty} title="No such task">${missing.detail}<//></section>`;
  }
  if (!task) return html`<section class="view"><a class="back" href=${links.swarm()}>← Swarm</a><p class="muted">Loading task…</p></section>`;

  const unfinished = !['completed', 'failed', 'cancelled'].includes(task.status);
  const leases = history.filter((e) => e.kind === 'lease');
  const messages = history.filter((e) => e.kind === 'message');
  const result = task.result || {};
  const quality = task.quality || {};
  return html`<section class="view task-detail" data-testid="task-detail" data-task-id=${task.id} data-status=${task.status}
      aria-labelledby="task-title">
    <a class="back" href=${links.swarm()}>← Swarm</a>
    <div class="view-head">
      <h1 id="task-title">${task.title || task.id}</h1>
      <p><span class=${`pill pill-status-${task.status}`} data-testid="task-status">${STATUS_LABELS[task.status] || task.status}</span>
        <span class=${`pill pill-prio-${task.priority}`}>${task.priority}</span> <span class="tag">${task.type}</span>
        <span class="mono muted small">${task.id}</span></p>
    </div>
    <div class="actions">
      ${unfinished ? html`<button type="button" class="btn btn-danger-quiet" disabled=${busy}
        onClick=${() => window.confirm(`Cancel task "${task.title || task.id}"?`) && act(() => api.cancelTask(task.id, 'cancelled from the console'), 'Could not cancel the task')}>Cancel task</button>` : null}
      ${task.status === 'needs_review' ? html`
        <button type="button" class="btn btn-primary" disabled=${busy} onClick=${() => act(() => api.reviewTask(task.id, 'approve', 'approved from the console'), 'Could not approve')}>Approve review</button>
        <button type="button" class="btn btn-danger" disabled=${busy} onClick=${() => act(() => api.reviewTask(task.id, 'reject', 'rejected from the console'), 'Could not reject')}>Reject</button>` : null}
    </div>
    <div class="grid-2">
      <section class="card"><h2>Task</h2><dl class="dl">
        ${task.description ? html`<${Row} label="Description"><div class="prewrap">${task.description}</div><//>` : null}
        <${Row} label="Agent">${task.assignedAgent ? html`<span class="mono">${task.assignedAgent}</span>` : html`<span class="muted">none</span>`}<//>
        ${task.conversationKey ? html`<${Row} label="Conversation"><a class="mono" data-testid="task-conversation-link"
          href=${links.conversation(task.conversationKey)}>${task.conversationKey}</a><//>` : null}
        <${Row} label="Required skills"><${List} items=${task.requiredSkills} mono=${false} /><//>
        <${Row} label="Depends on">${(task.dependencies || []).length ? html`<span class="tags">${task.dependencies.map((d) => html`<a class="tag mono" href=${links.task(d)}>${d}</a>`)}</span>` : html`<span class="muted">—</span>`}<//>
        <${Row} label="Files"><${List} items=${task.files} /><//>
        <${Row} label="Branch">${task.branch ? html`<span class="mono">${task.branch}</span>` : html`<span class="muted">—</span>`}<//>
        <${Row} label="Estimate">${task.estimatedMinutes ? `${task.estimatedMinutes} min` : '—'}<//>
        <${Row} label="Created"><${RelTime} at=${task.createdAt} /><//>
        <${Row} label="Claimed"><${RelTime} at=${task.claimedAt} /><//>
        <${Row} label="Updated"><${RelTime} at=${task.updatedAt} /><//>
        ${task.completedAt ? html`<${Row} label="Completed"><${RelTime} at=${task.completedAt} /><//>` : null}
      </dl></section>
      <section class="card"><h2>Retries</h2><dl class="dl">
        <${Row} label="Failures">${task.retryCount || 0} of ${task.maxRetries ?? '?'} retries used<//>
        <${Row} label="Previous agents"><${List} items=${task.previousAgents} /><//>
        ${task.failureType ? html`<${Row} label="Failure">${task.failureType}<//>` : null}
        ${task.lastError ? html`<${Row} label="Last error"><div class="prewrap">${task.lastError}</div><//>` : null}
        ${task.nextRetryAt ? html`<${Row} label="Next retry"><${RelTime} at=${task.nextRetryAt} /><//>` : null}
        ${task.cancelReason ? html`<${Row} label="Cancelled">${task.cancelReason}<//>` : null}
      </dl>
      <h2>Leases</h2>
      ${leases.length === 0 ? html`<p class="muted small">No leases.</p>`
        : html`<ul class="plain">${leases.map((e) => html`<li><span class="tag">${e.event}</span> ${e.data && e.data.filePath ? html`<span class="mono">${e.data.filePath}</span>` : null} ${describe(e)} · <${RelTime} at=${e.at} /></li>`)}</ul>`}
      </section>
    </div>
    <div class="grid-2">
      <section class="card"><h2>Progress and work report</h2>
        ${task.progress ? html`<p>${task.progress.phase || ''} ${Number.isFinite(task.progress.percentComplete) ? `${task.progress.percentComplete}%` : ''}
          ${task.progress.description ? html`<span class="muted"> — ${task.progress.description}</span>` : null}</p>` : html`<p class="muted small">No progress reported.</p>`}
        ${task.result ? html`<dl class="dl">
          ${result.summary ? html`<${Row} label="Summary"><div class="prewrap">${result.summary}</div><//>` : null}
          <${Row} label="Created"><${List} items=${result.filesCreated} /><//>
          <${Row} label="Modified"><${List} items=${result.filesModified} /><//>
          <${Row} label="Deleted"><${List} items=${result.filesDeleted} /><//>
          ${(result.learnings || []).length ? html`<${Row} label="Learnings"><ul class="plain">${result.learnings.map((l) => html`<li>${l}</li>`)}</ul><//>` : null}
        </dl>` : null}
        ${task.quality ? html`<h3>Quality gate</h3>
          <p>${quality.qualityGatePassed ? '✓ passed' : '✗ not passed'}${quality.nextAction ? ` · next: ${quality.nextAction}` : ''}</p>
          ${(quality.regressions || []).length ? html`<table class="table"><thead><tr><th>Metric</th><th>Baseline</th><th>Now</th><th>Severity</th></tr></thead>
            <tbody>${quality.regressions.map((r) => html`<tr><td>${r.metric}</td><td>${r.baseline}</td><td>${r.current}</td><td>${r.severity}</td></tr>`)}</tbody></table>` : null}` : null}
      </section>
      <section class="card"><h2>History</h2>
        ${history.filter((e) => e.kind === 'task').length === 0 ? html`<p class="muted small">No events yet; they appear here live.</p>`
          : html`<ol class="timeline">${history.filter((e) => e.kind === 'task').map((e) => html`<li key=${`${e.seq}-${e.event}`}>
              <span class="tag">${e.event}</span> ${describe(e)} · <${RelTime} at=${e.at} /></li>`)}</ol>`}
        <h3>Messages about it</h3>
        ${messages.length === 0 ? html`<p class="muted small">None (message contents stay with the agents).</p>`
          : html`<ul class="plain">${messages.map((e) => html`<li><span class="tag">${e.event}</span> ${describe(e)} · <${RelTime} at=${e.at} /></li>`)}</ul>`}
        ${learnings.length ? html`<h3>Related learnings</h3><ul class="plain">${learnings.map((l) => html`<li>${l.learning}
          <span class="muted small"> — ${l.agentId}, task <a class="mono" href=${links.task(l.taskId)}>${l.taskId}</a></span></li>`)}</ul>` : null}
      </section>
    </div>
    <details class="card"><summary>Raw task JSON</summary><${Code} text=${JSON.stringify(task)} open=${true} /></details>
  </section>`;
}
