// #/schedules (admins): the coordinator's schedules (periodic tasks, docs/swarm.md "Schedules"):
// each one's rule, next and last run and missed runs; a form to create one and a button to delete
// one. Schedules publish no events, so the list is read on mount, after every change, on every
// (re)open of the live connection and every 15 s (next and last runs move on by themselves).
import { bindText, html } from '../lib/html.js';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../lib/api.js';
import { showError } from '../lib/errors.js';
import { useLiveLoad } from '../lib/live.js';
import { links } from '../lib/router.js';
import { PRIORITIES } from '../model/swarm.js';
import { EMPTY_SCHEDULE, ruleText, scheduleFromForm, sortSchedules } from '../model/schedules.js';
import { Empty } from '../components/Empty.js';
import { RelTime } from '../components/RelTime.js';

const REFRESH_MS = 15000;

function Field({ id, label, hint, children }) {
  return html`<div class="field">
    <label for=${id}>${label}</label>
    ${children}
    ${hint ? html`<span class="hint">${hint}</span>` : null}
  </div>`;
}

function CreateScheduleForm({ onCreated }) {
  const [f, setF] = useState(EMPTY_SCHEDULE);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState('');
  const bind = (name) => ({ id: `schedule-${name}`, name, value: f[name], ...bindText((v) => setF((cur) => ({ ...cur, [name]: v }))) });

  async function submit(e) {
    e.preventDefault();
    let body;
    try {
      body = scheduleFromForm(f);
    } catch (err) {
      showError({ detail: err.message }, 'The schedule was not created');
      return;
    }
    setBusy(true);
    setDone('');
    try {
      const made = await api.createSchedule(body);
      setF(EMPTY_SCHEDULE);
      setDone(`Created ${made.name}.`);
      onCreated(made);
    } catch (err) {
      showError(err, 'The schedule was not created');
    } finally {
      setBusy(false);
    }
  }

  const every = f.kind === 'every';
  return html`<form id="schedule-create-form" class="card form" onSubmit=${submit}>
    <h2>Create a schedule</h2>
    <${Field} id="schedule-name" label="Name (required)" hint="letters, digits, . _ : @ -"><input ...${bind('name')} required maxlength="128" /><//>
    <div class="field-row">
      <${Field} id="schedule-kind" label="Rule">
        <select ...${bind('kind')}>
          <option value="cron">cron</option>
          <option value="every">every</option>
        </select><//>
      <${Field} id="schedule-rule" label=${every ? 'Period (required)' : 'Cron expression (required)'}
        hint=${every ? 'ISO-8601, PT30S to P366D: PT1H, P1D' : '5 fields: minute hour day month weekday, e.g. 0 2 * * *'}>
        <input ...${bind('rule')} required autocomplete="off" /><//>
      <${Field} id="schedule-timezone" label="Timezone" hint=${every ? 'not used by every: its slots count from 1970 UTC' : 'an IANA id, e.g. Europe/Berlin'}>
        <input ...${bind('timezone')} autocomplete="off" /><//>
    </div>
    <${Field} id="schedule-title" label="Task title (required)"><input ...${bind('title')} required maxlength="500" /><//>
    <${Field} id="schedule-description" label="Task description"><textarea ...${bind('description')} rows="2"></textarea><//>
    <div class="field-row">
      <${Field} id="schedule-requiredSkills" label="Required skills" hint="comma-separated"><input ...${bind('requiredSkills')} /><//>
      <${Field} id="schedule-priority" label="Priority">
        <select ...${bind('priority')}>
          ${PRIORITIES.map((p) => html`<option value=${p}>${p}</option>`)}</select><//>
    </div>
    <div class="actions">
      <button type="submit" class="btn btn-primary" disabled=${busy} data-testid="schedule-create">${busy ? 'Creating…' : 'Create schedule'}</button>
      <span role="status" class="small" data-testid="schedule-created">${done}</span>
    </div>
  </form>`;
}

export function Schedules() {
  const [schedules, setSchedules] = useState(null);
  const [busy, setBusy] = useState('');
  const load = async () => {
    try {
      const res = await api.schedules();
      setSchedules(sortSchedules((res && res.schedules) || []));
    } catch (e) {
      showError(e, 'Could not load the schedules');
      setSchedules((s) => s || []);
    }
  };
  useLiveLoad(load, []);
  useEffect(() => {
    const timer = setInterval(load, REFRESH_MS);
    return () => clearInterval(timer);
  }, []);

  async function remove(s) {
    if (!window.confirm(`Delete schedule ${s.name}? It makes no more tasks; the tasks it made stay.`)) return;
    setBusy(s.name);
    try {
      await api.deleteSchedule(s.name);
      setSchedules((list) => list.filter((x) => x.name !== s.name));
      load();
    } catch (e) {
      showError(e, `Could not delete ${s.name}`);
    } finally {
      setBusy('');
    }
  }

  return html`<section class="view" aria-labelledby="schedules-title">
    <div class="view-head"><h1 id="schedules-title">Schedules</h1>
      <p class="muted">${schedules ? `${schedules.length} schedule${schedules.length === 1 ? '' : 's'}` : 'Loading…'}; each makes a swarm task at every slot of its rule, once across the cluster</p></div>
    <section class="card" aria-label="The schedules">
      ${schedules === null ? html`<p class="muted">Loading…</p>`
        : schedules.length === 0 ? html`<${Empty} title="No schedules yet">A schedule makes a swarm task at every slot of its rule.<//>`
        : html`<table class="table" data-testid="schedules">
          <thead><tr><th scope="col">Name</th><th scope="col">Rule</th><th scope="col">Task</th><th scope="col">Next run</th>
            <th scope="col">Last run</th><th scope="col">Runs</th><th scope="col">Missed</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>${schedules.map((s) => html`<tr key=${s.name} data-testid="schedule-row" data-schedule=${s.name}>
            <td class="mono">${s.name}</td>
            <td class="mono" data-testid="schedule-rule">${ruleText(s)}</td>
            <td>${(s.task && s.task.title) || html`<span class="muted">—</span>`}
              ${s.task && s.task.priority ? html` <span class="pill">${s.task.priority}</span>` : null}</td>
            <td data-testid="schedule-next"><${RelTime} at=${s.nextRunAt} /></td>
            <td><${RelTime} at=${s.lastRunAt} />${s.lastTaskId ? html`<div class="small"><a class="mono" href=${links.task(s.lastTaskId)}>${s.lastTaskId}</a></div>` : null}
              ${s.lastError ? html`<div class="small form-error" title="why the last slot made no task">${s.lastError}</div>` : null}</td>
            <td>${s.runs || 0}</td>
            <td data-testid="schedule-missed">${s.missedRuns ? html`<span class="pill pill-warn">${s.missedRuns}</span>` : 0}</td>
            <td class="actions-cell"><button type="button" class="btn btn-small btn-danger-quiet" data-testid="schedule-delete"
              disabled=${busy === s.name} onClick=${() => remove(s)}>Delete</button></td>
          </tr>`)}</tbody>
        </table>`}
    </section>
    <${CreateScheduleForm} onCreated=${(made) => { setSchedules((list) => sortSchedules([...(list || []).filter((x) => x.name !== made.name), made])); load(); }} />
  </section>`;
}
