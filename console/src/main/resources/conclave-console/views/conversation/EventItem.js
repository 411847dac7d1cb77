// One item of the conversation: a reply's merged text chunks, merged thinking, or a single event.
// Every event keeps an element of its own ([data-testid=event][data-seq][data-kind]).
import { Component } from 'preact';
import { html } from '../../lib/html.js';
import { absolute } from '../../lib/time.js';
import { approvalShowsInput, isInbound, kindOf, payloadOf, toolStateName } from '../../model/events.js';
import { Code } from '../../components/Code.js';
import { RelTime } from '../../components/RelTime.js';
import { Approval } from './Approval.js';
import { Question } from './Question.js';

const n = (v) => Number(v || 0).toLocaleString();

function Ev({ entry, kind, className = '', children, tag = 'div' }) {
  const at = entry.event.timestamp;
  return html`<${tag} class=${`ev ${className}`} data-testid="event" data-seq=${String(entry.seq)} data-kind=${kind}
    title=${at ? absolute(at) : undefined}>${children}<//>`;
}

/** One streamed chunk; it never changes once shown, so a growing reply re-renders only its new chunks. */
class Chunk extends Component {
  shouldComponentUpdate(next) {
    return next.entry !== this.props.entry;
  }

  render({ entry, kind }) {
    const payload = kind === 'text' ? entry.event.text : entry.event.thinking;
    return html`<${Ev} entry=${entry} kind=${kind} tag="span" className="chunk">${(payload && payload.content) || ''}<//>`;
  }
}

function TextGroup({ item, agentName }) {
  const first = item.entries[0];
  return html`<div class="msg msg-agent">
    <div class="msg-head"><span class="who-agent">${agentName}</span> <${RelTime} at=${first.event.timestamp} /></div>
    <div class="msg-body" data-testid="assistant-text">${item.entries.map((e) => html`<${Chunk} key=${e.seq} entry=${e} kind="text" />`)}</div>
  </div>`;
}

function ThinkingGroup({ item }) {
  return html`<details class="thinking" open>
    <summary>Thinking</summary>
    <div class="thinking-body">${item.entries.map((e) => html`<${Chunk} key=${e.seq} entry=${e} kind="thinking" />`)}</div>
  </details>`;
}

function HistoryEvent({ entry }) {
  const e = entry.event.event || {};
  if (isInbound(entry.event)) {
    return html`<${Ev} entry=${entry} kind="event" className="msg msg-user">
      <div class="msg-head"><span class="who-user">${e.author || 'You'}</span> <${RelTime} at=${e.timestamp || entry.event.timestamp} /></div>
      <div class="msg-body">${e.text || ''}</div>
    <//>`;
  }
  return html`<${Ev} entry=${entry} kind="event" className=${`line line-${e.type || 'system'}`}>
    <span class="line-text">${e.text || e.type || 'event'}</span>
  <//>`;
}

function Single({ entry, kind, ctx }) {
  const p = payloadOf(entry.event);
  switch (kind) {
    case 'tool_use':
      // its states follow as lines of their own (tool_state), one per state: the head does not repeat them
      return html`<${Ev} entry=${entry} kind=${kind} className="tool">
        <div class="tool-head"><span class="tool-icon" aria-hidden="true">⚙</span> <strong>${p.name || 'tool'}</strong>
          <span class="mono muted small">${p.id || ''}</span></div>
        <${Code} text=${p.inputJson} label="Input" />
      <//>`;
    case 'tool_result':
      return html`<${Ev} entry=${entry} kind=${kind} className=${`tool tool-result${p.isError ? ' is-error' : ''}`}>
        <div class="tool-head"><span class="tool-icon" aria-hidden="true">${p.isError ? '✗' : '↳'}</span>
          ${p.isError ? 'Tool failed' : 'Tool result'} <span class="mono muted small">${p.id || ''}</span></div>
        <${Code} text=${p.output} label="Output" error=${Boolean(p.isError)} />
      <//>`;
    case 'tool_state':
      return html`<${Ev} entry=${entry} kind=${kind} className="line line-tool-state">
        <span class="line-text">tool <span class="mono">${p.id || '?'}</span>: <span class=${`pill pill-state-${toolStateName(p.state)}`}>${toolStateName(p.state)}</span>${p.detail ? ` — ${p.detail}` : ''}</span>
      <//>`;
    case 'usage':
      return html`<${Ev} entry=${entry} kind=${kind} className="line line-usage">
        <span class="line-text">Tokens: ${n(p.inputTokens)} in · ${n(p.outputTokens)} out${p.cacheReadTokens ? ` · ${n(p.cacheReadTokens)} cache read` : ''}${p.cacheWriteTokens ? ` · ${n(p.cacheWriteTokens)} cache write` : ''}${p.thinkingTokens ? ` · ${n(p.thinkingTokens)} thinking` : ''}</span>
      <//>`;
    case 'done':
      return html`<${Ev} entry=${entry} kind=${kind} className="line line-done"><span class="line-text">✓ Reply complete</span><//>`;
    case 'error':
      return html`<${Ev} entry=${entry} kind=${kind} className="error-box" >
        <strong>${String(p.message || '').startsWith('cancelled') ? 'Cancelled' : 'Error'}</strong>: ${p.message || 'unknown error'}
        ${p.recoverable ? html` <span class="muted">(sending again may succeed)</span>` : null}
      <//>`;
    case 'event':
      return html`<${HistoryEvent} entry=${entry} />`;
    case 'tool_approval':
      return html`<${Ev} entry=${entry} kind=${kind} className="block">
        <${Approval} approval=${p} decided=${ctx.decisions.get(p.toolId)} ended=${ctx.endedApprovals.has(p.toolId)}
          showInput=${approvalShowsInput(p, ctx.toolInputs)} onDecide=${ctx.decide} />
      <//>`;
    case 'user_question':
      return html`<${Ev} entry=${entry} kind=${kind} className="block">
        <${Question} question=${p} timestamp=${entry.event.timestamp} closed=${ctx.closedQuestions.get(p.questionId)}
          answer=${ctx.answers.get(p.questionId)} onAnswer=${ctx.answer} />
      <//>`;
    default:
      return html`<${Ev} entry=${entry} kind=${kind} className="line"><span class="line-text muted">An event this console does not know</span>
        <${Code} text=${JSON.stringify(entry.event)} /><//>`;
  }
}

/** What decides whether an item must re-render (items are rebuilt on every change). */
export function itemVersion(item, ctx) {
  const last = item.entries[item.entries.length - 1].seq;
  let extra = '';
  if (item.kind === 'tool_approval') {
    const id = item.entries[0].event.toolApproval.toolId;
    extra = `${ctx.decisions.get(id) || ''}|${ctx.endedApprovals.has(id)}|${approvalShowsInput(item.entries[0].event.toolApproval, ctx.toolInputs)}`;
  } else if (item.kind === 'user_question') {
    const id = item.entries[0].event.userQuestion.questionId;
    extra = `${ctx.closedQuestions.get(id) || ''}|${ctx.answers.get(id) || ''}`;
  }
  return `${item.key}|${item.entries.length}|${last}|${extra}`;
}

export class EventItem extends Component {
  shouldComponentUpdate(next) {
    return next.version !== this.props.version || next.agentName !== this.props.agentName;
  }

  render({ item, ctx, agentName }) {
    if (item.kind === 'text') return html`<${TextGroup} item=${item} agentName=${agentName} />`;
    if (item.kind === 'thinking') return html`<${ThinkingGroup} item=${item} />`;
    return html`<${Single} entry=${item.entries[0]} kind=${kindOf(item.entries[0].event)} ctx=${ctx} />`;
  }
}
