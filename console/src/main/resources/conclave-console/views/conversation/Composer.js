// Below the conversation: send a message (Enter sends, Shift+Enter starts a new line), cancel the
// request in flight, inject context into the running agent.
import { bindText, html } from '../../lib/html.js';
import { useState } from 'preact/hooks';
import { api } from '../../lib/api.js';
import { showError } from '../../lib/errors.js';

const newKey = () => (crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(16).slice(2)}`);

export function Composer({ agentId, agent, inFlight, queued, onSent, onCancelled, disabled }) {
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [status, setStatus] = useState('');
  const [cancelling, setCancelling] = useState(false);
  const [inject, setInject] = useState('');
  const [priority, setPriority] = useState('normal');
  const [injecting, setInjecting] = useState(false);
  const [injectStatus, setInjectStatus] = useState('');

  async function send(e) {
    if (e) e.preventDefault();
    const content = text.trim();
    if (!content || sending) return;
    setSending(true);
    setStatus('');
    try {
      const res = await api.sendMessage(agentId, { content, idempotencyKey: newKey() });
      setText('');
      if (res && res.requestId) onSent(res.requestId);
      setStatus(res && res.status === 'duplicate' ? 'Already sent.'
        : agent && !agent.connected ? 'Queued: the agent is offline and gets it when it connects.' : 'Sent.');
    } catch (err) {
      setStatus('');
      showError(err, 'The message was not sent');
    } finally {
      setSending(false);
    }
  }

  async function cancel() {
    if (!inFlight || cancelling) return;
    setCancelling(true);
    try {
      const res = await api.cancelRequest(inFlight, 'cancelled from the console');
      setStatus(res && res.state === 'cancelling' ? 'Cancelling: the agent was asked to stop.' : 'Cancelled.');
      if (res && res.state === 'cancelled') onCancelled(inFlight);
    } catch (err) {
      if (err.code === 'request_finished' || err.code === 'request_not_found') onCancelled(inFlight);
      showError(err, 'Could not cancel the request');
    } finally {
      setCancelling(false);
    }
  }

  async function sendInjection(e) {
    e.preventDefault();
    const content = inject.trim();
    if (!content || injecting) return;
    setInjecting(true);
    setInjectStatus('');
    try {
      const res = await api.inject(agentId, { content, priority, source: 'console' });
      setInject('');
      setInjectStatus(`Injected (${(res && res.state) || 'sent'}).`);
    } catch (err) {
      showError(err, 'Could not inject');
    } finally {
      setInjecting(false);
    }
  }

  const onKeyDown = (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) send(e);
  };

  return html`<div class="composer">
    <form class="composer-row" onSubmit=${send}>
      <label class="sr-only" for="message-input">Message to ${agentId}</label>
      <textarea id="message-input" rows="2" placeholder="Message the agent (Enter sends, Shift+Enter for a new line)"
        value=${text} ...${bindText(setText)} onKeyDown=${onKeyDown} disabled=${disabled}></textarea>
      <div class="composer-actions">
        <button id="message-send" type="submit" class="btn btn-primary" disabled=${disabled || sending || !text.trim()}>
          ${sending ? 'Sending…' : 'Send'}</button>
        <button id="cancel-request" type="button" class="btn btn-danger-quiet" onClick=${cancel}
          disabled=${disabled || !inFlight || cancelling}
          title=${inFlight ? `Cancel request ${inFlight}` : 'No request in flight'}>${cancelling ? 'Cancelling…' : 'Cancel'}</button>
      </div>
    </form>
    <div class="composer-status small" role="status" aria-live="polite">
      ${inFlight ? html`<span>Request <span class="mono">${inFlight.slice(0, 8)}</span> in flight${queued > 0 ? `, ${queued} queued` : ''}. </span>` : null}
      ${status}
    </div>
    <div class="inject">
      <form class="inline-form" onSubmit=${sendInjection}>
        <label class="inject-label" for="inject-input">Inject</label>
        <input id="inject-input" type="text" placeholder="Context for the agent, taken in while it works"
          value=${inject} ...${bindText(setInject)} disabled=${disabled} />
        <label class="sr-only" for="inject-priority">Priority</label>
        <select id="inject-priority" value=${priority} ...${bindText(setPriority)} disabled=${disabled}>
          <option value="immediate">immediate</option>
          <option value="normal">normal</option>
          <option value="deferred">deferred</option>
        </select>
        <button id="inject-send" type="submit" class="btn" disabled=${disabled || injecting || !inject.trim()}>Inject</button>
      </form>
      <div class="small muted" role="status">${injectStatus}</div>
    </div>
  </div>`;
}
