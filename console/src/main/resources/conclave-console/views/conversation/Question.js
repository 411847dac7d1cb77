// An agent's ask_user question: pick an option (or several), or answer in your own words; shown
// as answered or expired once it is closed.
import { bindText, html } from '../../lib/html.js';
import { useState } from 'preact/hooks';
import { useNow } from '../../state/clock.js';

const DEFAULT_TIMEOUT_SECONDS = 300;

function expiresAt(question, timestamp) {
  const asked = Date.parse(timestamp || '');
  if (Number.isNaN(asked)) return null;
  return asked + 1000 * (question.timeoutSeconds || DEFAULT_TIMEOUT_SECONDS);
}

export function Question({ question, timestamp, closed, answer, onAnswer }) {
  const now = useNow();
  const [busy, setBusy] = useState(false);
  const [picked, setPicked] = useState([]);
  const [custom, setCustom] = useState('');
  const [note, setNote] = useState('');
  const deadline = expiresAt(question, timestamp);
  const state = closed || (deadline !== null && Math.max(now, Date.now()) > deadline ? 'expired' : 'open');
  const options = question.options || [];
  const id = question.questionId;

  async function send(body) {
    setBusy(true);
    setNote('');
    try {
      const res = await onAnswer(question, body);
      if (res && res.accepted === false) setNote(res.error || 'The question is no longer open.');
    } catch (e) {
      setNote(e.detail || e.message);
    } finally {
      setBusy(false);
    }
  }

  const toggle = (label) => setPicked((p) => (p.includes(label) ? p.filter((l) => l !== label) : [...p, label]));

  return html`<div class=${`question question-${state}`} data-testid="question" data-question-id=${id} data-state=${state}
      role="group" aria-label="Question from the agent">
    ${question.header ? html`<div class="question-header">${question.header}</div>` : null}
    <p class="question-text">${question.question}</p>
    ${state === 'open' ? html`
      ${question.multiSelect
        ? html`<fieldset class="options" disabled=${busy}>
            <legend class="sr-only">Choose one or more</legend>
            ${options.map((o) => html`<label class="option-check" key=${o.label}>
              <input type="checkbox" data-testid="option" data-label=${o.label} checked=${picked.includes(o.label)}
                onChange=${() => toggle(o.label)} />
              <span>${o.label}${o.description ? html` <span class="muted">— ${o.description}</span>` : null}</span>
            </label>`)}
            <button type="button" class="btn btn-primary" data-testid="answer-selected" disabled=${busy || !picked.length}
              onClick=${() => send({ selected: picked })}>Send answer</button>
          </fieldset>`
        : html`<div class="options">
            ${options.map((o) => html`<button type="button" class="btn option" key=${o.label} data-testid="option" data-label=${o.label}
              disabled=${busy} title=${o.description || ''} onClick=${() => send({ selected: [o.label] })}>
              ${o.label}${o.description ? html`<span class="option-desc">${o.description}</span>` : null}</button>`)}
          </div>`}
      <form class="inline-form" onSubmit=${(e) => { e.preventDefault(); if (custom.trim()) send({ customText: custom.trim() }); }}>
        <label class="sr-only" for=${`answer-${id}`}>Your own answer</label>
        <input id=${`answer-${id}`} type="text" data-testid="custom-text" placeholder="Or answer in your own words"
          value=${custom} ...${bindText(setCustom)} disabled=${busy} />
        <button type="submit" class="btn" data-testid="custom-answer" disabled=${busy || !custom.trim()}>Answer</button>
      </form>
      ${deadline ? html`<p class="small muted">Expires at ${new Date(deadline).toLocaleTimeString()}.</p>` : null}`
    : html`<p class="decision" role="status">${state === 'answered'
        ? `✓ Answered${answer ? `: ${answer}` : ''}` : '⌛ Expired without an answer'}</p>`}
    ${note ? html`<p class="form-error" role="alert">${note}</p>` : null}
  </div>`;
}
