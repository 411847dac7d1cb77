// The operator's forms on the swarm board: create a task, queue a command for a swarm agent.
import { bindText, html } from '../lib/html.js';
import { useState } from 'preact/hooks';
import { api } from '../lib/api.js';
import { showError } from '../lib/errors.js';
import { links } from '../lib/router.js';
import { PRIORITIES, TYPES, commandFromForm, taskFromForm } from '../model/swarm.js';

const EMPTY_TASK = { id: '', title: '', description: '', priority: 'medium', type: 'code', requiredSkills: '', dependencies: '', files: '', estimatedMinutes: '', branch: '', maxRetries: '' };

function Field({ id, label, hint, children }) {
  return html`<div class="field">
    <label for=${id}>${label}</label>
    ${children}
    ${hint ? html`<span class="hint">${hint}</span>` : null}
  </div>`;
}

export function CreateTaskForm({ onCreated }) {
  const [f, setF] = useState(EMPTY_TASK);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(null);
  const bind = (name) => ({ id: `task-${name}`, name, value: f[name], ...bindText((v) => setF((cur) => ({ ...cur, [name]: v }))) });

  async function submit(e) {
    e.preventDefault();
    if (!f.title.trim()) {
      showError({ detail: 'A task needs a title.' }, 'The task was not created');
      return;
    }
    setBusy(true);
    setDone(null);
    try {
      const task = await api.createTask(taskFromForm(f));
      setF(EMPTY_TASK);
      setDone(task);
      if (onCreated) onCreated(task);
    } catch (err) {
      showError(err, 'The task was not created');
    } finally {
      setBusy(false);
    }
  }

  return html`<form id="task-create-form" class="card form" onSubmit=${submit}>
    <h2>Create a task</h2>
    <${Field} id="task-title" label="Title (required)"><input ...${bind('title')} required maxlength="500" /><//>
    <${Field} id="task-description" label="Description"><textarea ...${bind('description')} rows="3"></textarea><//>
    <div class="field-row">
      <${Field} id="task-priority" label="Priority">
        <select ...${bind('priority')}>
          ${PRIORITIES.map((p) => html`<option value=${p}>${p}</option>`)}</select><//>
      <${Field} id="task-type" label="Type">
        <select ...${bind('type')}>
          ${TYPES.map((t) => html`<option value=${t}>${t}</option>`)}</select><//>
    </div>
    <${Field} id="task-requiredSkills" label="Required skills" hint="comma-separated"><input ...${bind('requiredSkills')} /><//>
    <${Field} id="task-dependencies" label="Depends on tasks" hint="task ids, comma-separated"><input ...${bind('dependencies')} /><//>
    <${Field} id="task-files" label="Files" hint="comma-separated"><input ...${bind('files')} /><//>
    <div class="field-row">
      <${Field} id="task-estimatedMinutes" label="Estimate (min)"><input ...${bind('estimatedMinutes')} type="number" min="1" /><//>
      <${Field} id="task-maxRetries" label="Max retries"><input ...${bind('maxRetries')} type="number" min="0" /><//>
    </div>
    <div class="field-row">
      <${Field} id="task-branch" label="Branch"><input ...${bind('branch')} /><//>
      <${Field} id="task-id" label="Id" hint="optional; a UUID by default"><input ...${bind('id')} /><//>
    </div>
    <div class="actions">
      <button type="submit" class="btn btn-primary" disabled=${busy}>${busy ? 'Creating…' : 'Create task'}</button>
      <span role="status" class="small">${done ? html`Created <a href=${links.task(done.id)}>${done.title || done.id}</a> (${done.status}).` : null}</span>
    </div>
  </form>`;
}

export function CommandForm({ swarmAgents }) {
  const [f, setF] = useState({ agentId: '', type: 'PING', taskId: '', reason: '' });
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState('');
  const set = (name) => bindText((v) => setF((cur) => ({ ...cur, [name]: v })));

  async function submit(e) {
    e.preventDefault();
    if (!f.agentId.trim()) {
      showError({ detail: 'Name the swarm agent the command is for.' }, 'The command was not queued');
      return;
    }
    if (f.type === 'RELEASE_TASK' && !f.taskId.trim()) {
      showError({ detail: 'RELEASE_TASK needs the id of the task to release.' }, 'The command was not queued');
      return;
    }
    setBusy(true);
    setDone('');
    try {
      const res = await api.command(f.agentId.trim(), commandFromForm(f));
      setDone(`Queued ${f.type} for ${(res && res.agentId) || f.agentId}; it is delivered with the agent's next heartbeat.`);
      setF({ ...f, taskId: '', reason: '' });
    } catch (err) {
      showError(err, 'The command was not queued');
    } finally {
      setBusy(false);
    }
  }

  return html`<form id="command-form" class="card form" onSubmit=${submit}>
    <h2>Send an operator command</h2>
    <${Field} id="command-agent" label="Swarm agent">
      <input id="command-agent" name="agentId" list="swarm-agent-ids" value=${f.agentId} ...${set('agentId')} required autocomplete="off" />
      <datalist id="swarm-agent-ids">${(swarmAgents || []).map((a) => html`<option value=${a.id}>${a.name || ''}</option>`)}</datalist><//>
    <${Field} id="command-type" label="Command">
      <select id="command-type" name="type" value=${f.type} ...${set('type')}>
        <option value="PING">PING</option>
        <option value="RELEASE_TASK">RELEASE_TASK</option>
        <option value="SHUTDOWN">SHUTDOWN</option>
      </select><//>
    ${f.type === 'RELEASE_TASK' ? html`<${Field} id="command-task" label="Task to release">
      <input id="command-task" name="taskId" value=${f.taskId} ...${set('taskId')} required /><//>` : null}
    ${f.type !== 'PING' ? html`<${Field} id="command-reason" label="Reason">
      <input id="command-reason" name="reason" value=${f.reason} ...${set('reason')} /><//>` : null}
    <div class="actions">
      <button type="submit" class="btn btn-primary" disabled=${busy}>${busy ? 'Queuing…' : 'Queue command'}</button>
      <span role="status" class="small">${done}</span>
    </div>
  </form>`;
}
