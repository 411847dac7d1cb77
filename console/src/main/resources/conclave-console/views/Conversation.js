// #/conversation/<agentId>: the agent's conversation (key = agent id), live. At most ~1,000 events
// are kept in the page; older ones load on demand ("Load older", or scrolling to the top).
import { html } from '../lib/html.js';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from '../lib/api.js';
import { showError } from '../lib/errors.js';
import { links } from '../lib/router.js';
import { useStore } from '../lib/store.js';
import { conversationState, groupItems } from '../model/events.js';
import { isReadOnly } from '../lib/session.js';
import { agentsState, setInFlight } from '../state/agents.js';
import { ConversationController } from '../state/conversation.js';
import { Empty } from '../components/Empty.js';
import { Composer } from './conversation/Composer.js';
import { TaskBanner } from './conversation/TaskBanner.js';
import { taskOfConversation } from '../model/swarm.js';
import { EventItem, itemVersion } from './conversation/EventItem.js';

const NEAR_BOTTOM = 80;
const NEAR_TOP = 40;

function useController(agentId) {
  const [, setTick] = useState(0);
  const [controller, setController] = useState(null);
  useEffect(() => {
    const c = new ConversationController(agentId, () => setTick((n) => n + 1));
    setController(c);
    c.start();
    return () => c.stop();
  }, [agentId]);
  return controller && controller.key === agentId ? controller : null;
}

export function Conversation({ agentId }) {
  const c = useController(agentId);
  const { agents } = useStore(agentsState);
  // a swarm task's conversation (swarm:<taskId>) is its agent's: the banner says which agent works it
  const taskId = taskOfConversation(agentId);
  const [taskAgent, setTaskAgent] = useState(null);
  useEffect(() => setTaskAgent(null), [agentId]);
  const agent = agents.get(taskAgent || agentId);
  const agentName = taskId ? `Task ${taskId}` : (agent && agent.name) || agentId;

  // what this page did itself, before (or without) the ledger saying so
  const [local, setLocal] = useState({ sent: [], ended: new Set(), decisions: new Map(), closed: new Map(), answers: new Map() });
  useEffect(() => setLocal({ sent: [], ended: new Set(), decisions: new Map(), closed: new Map(), answers: new Map() }), [agentId]);

  const entries = c ? c.log.entries : [];
  const lastSeq = entries.length ? entries[entries.length - 1].seq : 0;
  const firstSeq = entries.length ? entries[0].seq : 0;
  const derived = useMemo(() => conversationState(entries), [c, firstSeq, lastSeq, entries.length]);
  const items = useMemo(() => groupItems(entries), [c, firstSeq, lastSeq, entries.length]);

  const open = derived.open.filter((id) => !local.ended.has(id));
  for (const id of local.sent) if (!derived.requestIds.has(id) && !local.ended.has(id) && !open.includes(id)) open.push(id);
  const inFlight = open[0] || '';
  useEffect(() => setInFlight(agentId, inFlight), [agentId, inFlight]);
  useEffect(() => () => setInFlight(agentId, ''), [agentId]);

  // stable actions (items do not re-render for new function identities)
  const actions = useRef({});
  actions.current.agentId = agentId;
  const [stable] = useState(() => ({
    decide: async (approval, approved, all) => {
      const id = actions.current.agentId;
      try {
        const res = await api.approve({ agentId: approval.agentId || id, toolId: approval.toolId, approved, approveAll: all });
        if (res && res.accepted !== false) {
          setLocal((l) => ({ ...l, decisions: new Map(l.decisions).set(approval.toolId, approved ? 'approved' : 'denied') }));
        }
        return res;
      } catch (e) {
        showError(e, 'The decision was not accepted');
        throw e;
      }
    },
    answer: async (question, body) => {
      const id = actions.current.agentId;
      try {
        const res = await api.answer(question.questionId, { agentId: question.agentId || id, selected: body.selected || [], ...(body.customText ? { customText: body.customText } : {}) });
        if (res && res.accepted !== false) {
          const text = body.customText || (body.selected || []).join(', ');
          setLocal((l) => ({ ...l, closed: new Map(l.closed).set(question.questionId, 'answered'), answers: new Map(l.answers).set(question.questionId, text) }));
        }
        return res;
      } catch (e) {
        showError(e, 'The answer was not accepted');
        throw e;
      }
    },
  }));

  const ctx = useMemo(() => ({
    decisions: new Map([...local.decisions, ...derived.decisions]),
    closedQuestions: new Map([...local.closed, ...derived.closedQuestions]),
    answers: local.answers,
    endedApprovals: derived.endedApprovals,
    toolInputs: derived.toolInputs,
    decide: stable.decide,
    answer: stable.answer,
  }), [derived, local]);

  // scrolling: follow the end while the reader is there; keep the place when older events load
  const logRef = useRef(null);
  const atBottom = useRef(true);
  const anchor = useRef(null);
  const [unseen, setUnseen] = useState(0);
  const prevLast = useRef(0);

  useLayoutEffect(() => {
    const el = logRef.current;
    if (!el) return;
    if (anchor.current !== null) {
      el.scrollTop = el.scrollHeight - anchor.current;
      anchor.current = null;
    } else if (atBottom.current) {
      el.scrollTop = el.scrollHeight;
    } else if (lastSeq > prevLast.current && prevLast.current > 0) {
      setUnseen((u) => u + (lastSeq - prevLast.current));
    }
    prevLast.current = lastSeq;
  });
  useEffect(() => {
    atBottom.current = true;
    prevLast.current = 0;
    setUnseen(0);
  }, [agentId]);

  async function loadOlder() {
    const el = logRef.current;
    if (!c || !c.log.hasOlder || c.loadingOlder) return;
    if (el) anchor.current = el.scrollHeight - el.scrollTop;
    const added = await c.loadOlder();
    if (!added) anchor.current = null;
  }

  const lastScrollTop = useRef(0);
  function onScroll(e) {
    const el = e.currentTarget;
    const up = el.scrollTop < lastScrollTop.current;
    lastScrollTop.current = el.scrollTop;
    atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_BOTTOM;
    if (atBottom.current && unseen) setUnseen(0);
    // the reader scrolled up to the top: load older events (not when live events merely grow the log)
    if (up && el.scrollTop < NEAR_TOP && c && c.log.hasOlder && !c.loadingOlder && c.status === 'ready') loadOlder();
  }

  function toBottom() {
    const el = logRef.current;
    atBottom.current = true;
    setUnseen(0);
    if (el) el.scrollTop = el.scrollHeight;
  }

  const forbidden = c && (c.rejected || c.status === 'forbidden');
  return html`<section id="conversation" class="view view-fill conversation" data-agent-id=${agentId} aria-labelledby="conversation-title">
    <div class="view-head conversation-head">
      <div>
        <a class="back" href=${links.agents()}>← Agents</a>
        <h1 id="conversation-title">${agentName}</h1>
        <p class="muted small">
          <span class="mono">${agentId}</span>
          ${agent ? html` · <span class=${`status-dot ${agent.connected ? 'on' : 'off'}`} aria-hidden="true"></span>
            ${agent.connected ? `connected on ${agent.node || '?'}` : 'offline'}` : null}
          ${c && c.status === 'ready' ? html` · ${entries.length} event${entries.length === 1 ? '' : 's'} shown` : null}
        </p>
        ${taskId ? html`<${TaskBanner} taskId=${taskId} onAgent=${setTaskAgent} />` : null}
      </div>
    </div>
    ${forbidden ? html`<div class="banner banner-error" data-testid="subscription-error" role="alert">
        <strong>You may not follow this conversation.</strong>
        ${(c.problem && c.problem.detail) || (c.rejected && c.rejected.message && c.rejected.message !== 'rejected' ? c.rejected.message : '')
          ? html` <span>${(c.problem && c.problem.detail) || c.rejected.message}</span>` : null}
      </div>` : null}
    <div class="log" ref=${logRef} onScroll=${onScroll} role="log" aria-live="polite" aria-relevant="additions" aria-label="Conversation events">
      ${c && c.log.hasOlder ? html`<div class="log-older">
          <button id="load-older" type="button" class="btn btn-quiet" onClick=${loadOlder} disabled=${c.loadingOlder}>
            ${c.loadingOlder ? 'Loading…' : 'Load older events'}</button></div>` : null}
      ${!c || c.status === 'loading' ? html`<p class="muted center">Loading the conversation…</p>`
        : c.status === 'error' ? html`<p class="muted center">The conversation could not be loaded: ${c.problem && c.problem.detail}</p>`
        : c.status === 'forbidden' ? null
        : items.length === 0 ? html`<${Empty} title="No messages yet">Send the agent a message below; its answer streams in here.<//>`
        : items.map((item) => html`<${EventItem} key=${item.key} item=${item} ctx=${ctx} agentName=${agentName}
            version=${itemVersion(item, ctx)} />`)}
      ${c && c.log.detached ? html`<div class="log-detached">
          Showing older events${c.newerWhileDetached ? `; ${c.newerWhileDetached} newer not shown` : ''}.
          <button type="button" class="btn btn-quiet" onClick=${() => { atBottom.current = true; c.loadLatest(); }}>Jump to latest</button>
        </div>` : null}
    </div>
    ${unseen > 0 ? html`<button type="button" class="new-events" onClick=${toBottom}>↓ ${unseen} new event${unseen === 1 ? '' : 's'}</button>` : null}
    <${Composer} agentId=${agentId} agent=${agent} inFlight=${inFlight} queued=${Math.max(0, open.length - 1)}
      disabled=${Boolean(forbidden) || isReadOnly()}
      onSent=${(id) => setLocal((l) => ({ ...l, sent: [...l.sent, id] }))}
      onCancelled=${(id) => setLocal((l) => ({ ...l, ended: new Set(l.ended).add(id) }))} />
  </section>`;
}
