// A tool approval: Approve, Deny or Approve all (the rest of the request), decided once. The input is
// shown here unless the tool's own tool_use right above showed the same input already.
import { html } from '../../lib/html.js';
import { useState } from 'preact/hooks';
import { Code } from '../../components/Code.js';

export function Approval({ approval, decided, ended, showInput = true, onDecide }) {
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState('');
  const open = !decided && !ended;

  async function decide(approved, all) {
    setBusy(true);
    setNote('');
    try {
      const res = await onDecide(approval, approved, all);
      if (res && res.accepted === false) setNote(res.error || 'The approval is no longer pending.');
    } catch (e) {
      setNote(e.detail || e.message);
    } finally {
      setBusy(false);
    }
  }

  return html`<div class=${`approval ${decided ? `approval-${decided}` : ''}`} data-testid="approval"
      data-tool-id=${approval.toolId} data-decided=${decided || undefined} role="group"
      aria-label=${`Approval for tool ${approval.toolName || approval.toolId}`}>
    <div class="approval-head">
      <span class="approval-icon" aria-hidden="true">⚠</span>
      <span><strong>${approval.toolName || 'A tool'}</strong> needs approval</span>
      <span class="mono muted small">${approval.toolId}</span>
    </div>
    ${showInput ? html`<${Code} text=${approval.inputJson} label="Input" />`
      : html`<p class="muted small approval-input-above" data-testid="approval-input-above">Input as shown above, with the tool call.</p>`}
    ${open ? html`<div class="actions">
        <button type="button" class="btn btn-primary" data-testid="approve" disabled=${busy} onClick=${() => decide(true, false)}>Approve</button>
        <button type="button" class="btn btn-danger" data-testid="deny" disabled=${busy} onClick=${() => decide(false, false)}>Deny</button>
        <button type="button" class="btn" data-testid="approve-all" disabled=${busy} onClick=${() => decide(true, true)}
          title="Approve this and every further tool of this request">Approve all</button>
      </div>`
      : html`<p class="decision" role="status">${decided === 'approved' ? '✓ Approved' : decided === 'denied' ? '✗ Denied'
        : 'No longer pending: the request ended without a decision.'}</p>`}
    ${note ? html`<p class="form-error" role="alert">${note}</p>` : null}
  </div>`;
}
