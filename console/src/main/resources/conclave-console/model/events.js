// Reading conversation events: ClientStreamEvent as protobuf JSON (camelCase, default values left
// out), wrapped as {seq, event} by the ledger and the bridge. Pure: tested under Node.

/** payload member -> data-kind */
const KINDS = [
  ['text', 'text'],
  ['thinking', 'thinking'],
  ['toolUse', 'tool_use'],
  ['toolResult', 'tool_result'],
  ['toolState', 'tool_state'],
  ['usage', 'usage'],
  ['done', 'done'],
  ['error', 'error'],
  ['event', 'event'],
  ['toolApproval', 'tool_approval'],
  ['userQuestion', 'user_question'],
];

/** The event's kind (text, tool_use, ...), or 'unknown' for a payload this page does not know. */
export function kindOf(event) {
  if (!event || typeof event !== 'object') return 'unknown';
  for (const [member, kind] of KINDS) {
    if (event[member] !== undefined && event[member] !== null) return kind;
  }
  return 'unknown';
}

/** The payload object of the event (its one oneof member). */
export function payloadOf(event) {
  for (const [member] of KINDS) {
    if (event && event[member] !== undefined && event[member] !== null) return event[member];
  }
  return {};
}

const TERMINAL = new Set(['done', 'error']);

/** done and error (cancelled included) end the request in flight. */
export const isTerminal = (kind) => TERMINAL.has(kind);

/** The gateway's record of a human's decision on a tool: "tool <id> approved|denied[ (and every…)]". */
export function parseToolDecision(event) {
  const e = event && event.event;
  if (!e || !e.text) return null;
  if (e.rawTransport && e.rawTransport !== 'tool_decision') return null;
  const m = /^tool (\S+) (approved|denied)( \(and every further tool of this request\))?$/.exec(e.text);
  return m ? { toolId: m[1], decision: m[2], all: Boolean(m[3]) } : null;
}

/** The gateway's record of a closed question: "question <id> answered|expired without an answer". */
export function parseQuestionClosed(event) {
  const e = event && event.event;
  if (!e || !e.text) return null;
  if (e.rawTransport && e.rawTransport !== 'question_closed') return null;
  const m = /^question (\S+) (answered|expired without an answer)$/.exec(e.text);
  return m ? { questionId: m[1], outcome: m[2] === 'answered' ? 'answered' : 'expired' } : null;
}

/** The request id of a history event ("request/<id>" in rawPayloadRef), or null. */
export function requestIdOf(event) {
  const ref = event && event.event && event.event.rawPayloadRef;
  return ref && ref.startsWith('request/') ? ref.slice('request/'.length) : null;
}

/** An inbound message of a client (the history entry the gateway records for it). */
export function isInbound(event) {
  const e = event && event.event;
  return Boolean(e && (e.direction === 'inbound_to_agent' || e.rawTransport === 'inbound'));
}

/**
 * Groups consecutive text chunks (one reply) and consecutive thinking chunks into one item each;
 * every other event is an item of its own. Items keep their events, so each event still has its
 * own element. Returns [{key, kind, entries: [{seq, event}]}].
 */
export function groupItems(entries) {
  const items = [];
  let current = null;
  for (const entry of entries) {
    const kind = kindOf(entry.event);
    if ((kind === 'text' || kind === 'thinking') && current && current.kind === kind
      && current.entries[current.entries.length - 1].seq === entry.seq - 1) {
      current.entries.push(entry);
      continue;
    }
    current = { key: `${kind}-${entry.seq}`, kind, entries: [entry] };
    items.push(current);
  }
  return items;
}

/**
 * What the loaded events say about decisions, closed questions and requests:
 * - decisions: toolId -> 'approved' | 'denied'
 * - closedQuestions: questionId -> 'answered' | 'expired'
 * - endedApprovals: toolIds of approvals whose request ended (done or error) undecided
 * - open: request ids not ended yet, oldest first (the first is the one in flight); requests end
 *   in the order they were sent, since an agent runs one at a time
 * - toolStates: tool id -> its latest state ('running', 'completed', ...)
 * - toolInputs: tool id -> the input its tool_use showed
 * - requestIds: every request id the events name
 */
export function conversationState(entries) {
  const toolStates = new Map();
  const toolInputs = new Map();
  const requestIds = new Set();
  const decisions = new Map();
  const closedQuestions = new Map();
  const endedApprovals = new Set();
  const pendingApprovals = new Set();
  const open = [];
  for (const { event } of entries) {
    const kind = kindOf(event);
    if (kind === 'tool_approval') {
      pendingApprovals.add(event.toolApproval.toolId);
    } else if (kind === 'tool_use') {
      if (event.toolUse.id) toolInputs.set(event.toolUse.id, event.toolUse.inputJson || '');
    } else if (kind === 'tool_state') {
      if (event.toolState.id) toolStates.set(event.toolState.id, toolStateName(event.toolState.state));
    } else if (kind === 'event') {
      const decision = parseToolDecision(event);
      if (decision) {
        decisions.set(decision.toolId, decision.decision);
        pendingApprovals.delete(decision.toolId);
      }
      const closed = parseQuestionClosed(event);
      if (closed) closedQuestions.set(closed.questionId, closed.outcome);
      if (isInbound(event)) {
        const id = requestIdOf(event);
        if (id) requestIds.add(id);
        if (id && !open.includes(id)) open.push(id);
      }
    } else if (isTerminal(kind)) {
      open.shift();
      for (const toolId of pendingApprovals) endedApprovals.add(toolId);
      pendingApprovals.clear();
    }
  }
  return { decisions, closedQuestions, endedApprovals, open, toolStates, toolInputs, requestIds };
}

/** The same input: equal text, or equal JSON (an approval may format the tool_use's input differently). */
function sameInput(a, b) {
  if ((a || '') === (b || '')) return true;
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
  } catch {
    return false;
  }
}

/**
 * Whether an approval shows the tool's input itself: not when the loaded tool_use of the same tool
 * showed that input already (it is right above), but always when there is none (an agent that only
 * asks) or when it asks about other input than the tool_use showed.
 */
export function approvalShowsInput(approval, toolInputs) {
  if (!approval || !toolInputs || !toolInputs.has(approval.toolId)) return true;
  return !sameInput(toolInputs.get(approval.toolId), approval.inputJson);
}

/** ToolState enum names without their prefix: "TOOL_STATE_RUNNING" -> "running". */
export function toolStateName(state) {
  if (state === undefined || state === null) return 'unspecified';
  if (typeof state === 'number') {
    return ['unspecified', 'pending', 'awaiting_approval', 'running', 'completed', 'failed', 'denied', 'timeout', 'cancelled'][state] || String(state);
  }
  return String(state).replace(/^TOOL_STATE_/, '').toLowerCase();
}

/** Pretty JSON for a tool's input or output when it is JSON, else the text itself. */
export function prettyJson(text) {
  if (typeof text !== 'string' || !text.trim()) return text || '';
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return text;
  try {
    return JSON.stringify(JSON.parse(t), null, 2);
  } catch {
    return text;
  }
}
