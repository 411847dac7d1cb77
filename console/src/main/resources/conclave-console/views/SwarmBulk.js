// The swarm board's bulk actions: what is selected (cards, or a whole column) and one action on it
// all at once (POST /api/v1/tasks/bulk, one transaction on the server). The cards move by
// themselves afterwards, with the events the action publishes.
import { html } from '../lib/html.js';
import { useState } from 'preact/hooks';
import { api } from '../lib/api.js';
import { showError } from '../lib/errors.js';
import { PRIORITIES, STATUS_LABELS, bulkBody, bulkOutcome } from '../model/swarm.js';

/**
 * The bar above the board while something is selected. target: {ids: Set} for selected cards, or
 * {status} for a whole column (every task in that status on the server, not only the cards shown).
 */
export function BulkBar({ target, onDone, onClear }) {
  const [priority, setPriority] = useState('');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState('');
  const what = target.status
    ? `every ${STATUS_LABELS[target.status]} task`
    : `${target.ids.size} selected task${target.ids.size === 1 ? '' : 's'}`;

  async function act(action) {
    let body;
    try {
      body = bulkBody(action, target.status ? { status: target.status } : { ids: target.ids }, priority);
    } catch (e) {
      showError({ detail: e.message }, 'Nothing was changed');
      return;
    }
    setBusy(true);
    try {
      const res = await api.bulkTasks(body);
      setOutcome(bulkOutcome(res));
      onDone();
    } catch (e) {
      showError(e, 'Nothing was changed');
    } finally {
      setBusy(false);
    }
  }

  return html`<div class="bulk-bar card" role="toolbar" aria-label="Act on the selected tasks" data-testid="bulk-bar">
    <strong data-testid="bulk-target">${what}</strong>
    <button type="button" class="btn" disabled=${busy} onClick=${() => act('retry')} data-testid="bulk-retry"
      title="failed and cancelled tasks go back in line">Retry</button>
    <button type="button" class="btn btn-danger" disabled=${busy} onClick=${() => act('cancel')} data-testid="bulk-cancel"
      title="unfinished tasks are cancelled">Cancel</button>
    <label class="small">Priority
      <select value=${priority} onChange=${(e) => setPriority(e.currentTarget.value)} data-testid="bulk-priority">
        <option value="">—</option>
        ${PRIORITIES.map((p) => html`<option value=${p}>${p}</option>`)}
      </select></label>
    <button type="button" class="btn" disabled=${busy || !priority} onClick=${() => act('reprioritize')} data-testid="bulk-reprioritize">Set priority</button>
    <button type="button" class="btn btn-link" onClick=${onClear} data-testid="bulk-clear">Clear selection</button>
    <span role="status" class="small" data-testid="bulk-outcome">${outcome}</span>
  </div>`;
}
