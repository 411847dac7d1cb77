// Reading ClientStreamEvent JSON: kinds, merging chunks, decisions, closed questions, requests.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  approvalShowsInput, conversationState, groupItems, kindOf, parseQuestionClosed, parseToolDecision, prettyJson, requestIdOf,
  toolStateName,
} from '../src/main/resources/conclave-console/model/events.js';

const at = (seq, event) => ({ seq, event });
const text = (s) => ({ text: { content: s } });
const inbound = (id, t = 'hi') => ({ event: { direction: 'inbound_to_agent', type: 'message', text: t, rawTransport: 'inbound', rawPayloadRef: `request/${id}` } });
const system = (t, raw) => ({ event: { type: 'system', text: t, rawTransport: raw } });

test('kinds follow the payload member', () => {
  assert.equal(kindOf(text('a')), 'text');
  assert.equal(kindOf({ thinking: { content: 'x' } }), 'thinking');
  assert.equal(kindOf({ toolUse: { id: '1' } }), 'tool_use');
  assert.equal(kindOf({ toolResult: {} }), 'tool_result');
  assert.equal(kindOf({ toolState: { id: '1', state: 'TOOL_STATE_RUNNING' } }), 'tool_state');
  assert.equal(kindOf({ usage: {} }), 'usage');
  assert.equal(kindOf({ done: {} }), 'done');
  assert.equal(kindOf({ error: { message: 'x' } }), 'error');
  assert.equal(kindOf(inbound('r')), 'event');
  assert.equal(kindOf({ toolApproval: { toolId: 't' } }), 'tool_approval');
  assert.equal(kindOf({ userQuestion: { questionId: 'q' } }), 'user_question');
  assert.equal(kindOf({ conversationKey: 'k', timestamp: 'x' }), 'unknown');
});

test('consecutive text chunks form one reply; anything between splits it', () => {
  const items = groupItems([at(1, inbound('r1')), at(2, text('Hel')), at(3, text('lo')), at(4, { toolUse: { id: 't' } }),
    at(5, text('again')), at(6, { thinking: { content: 'a' } }), at(7, { thinking: { content: 'b' } })]);
  assert.deepEqual(items.map((i) => [i.kind, i.entries.map((e) => e.seq)]),
    [['event', [1]], ['text', [2, 3]], ['tool_use', [4]], ['text', [5]], ['thinking', [6, 7]]]);
});

test('a gap in seq starts a new text item', () => {
  const items = groupItems([at(2, text('a')), at(4, text('b'))]);
  assert.equal(items.length, 2);
});

test('the gateway records of decisions and closed questions are read', () => {
  assert.deepEqual(parseToolDecision(system('tool t-1 approved', 'tool_decision')), { toolId: 't-1', decision: 'approved', all: false });
  assert.deepEqual(parseToolDecision(system('tool t-2 approved (and every further tool of this request)', 'tool_decision')),
    { toolId: 't-2', decision: 'approved', all: true });
  assert.deepEqual(parseToolDecision(system('tool t-3 denied')), { toolId: 't-3', decision: 'denied', all: false });
  assert.equal(parseToolDecision(system('tool t-1 approved', 'inbound')), null);
  assert.deepEqual(parseQuestionClosed(system('question q-1 answered', 'question_closed')), { questionId: 'q-1', outcome: 'answered' });
  assert.deepEqual(parseQuestionClosed(system('question q-2 expired without an answer')), { questionId: 'q-2', outcome: 'expired' });
  assert.equal(requestIdOf(inbound('abc')), 'abc');
});

test('requests end in order; approvals left undecided by an ended request are closed', () => {
  const s = conversationState([
    at(1, inbound('r1')), at(2, inbound('r2')),
    at(3, { toolApproval: { toolId: 'a1' } }), at(4, system('tool a1 denied', 'tool_decision')),
    at(5, { toolApproval: { toolId: 'a2' } }), at(6, { done: {} }),
    at(7, { userQuestion: { questionId: 'q1' } }), at(8, system('question q1 answered', 'question_closed')),
    at(9, { toolState: { id: 'x', state: 'TOOL_STATE_RUNNING' } }),
  ]);
  assert.deepEqual(s.open, ['r2']);
  assert.equal(s.decisions.get('a1'), 'denied');
  assert.equal(s.endedApprovals.has('a2'), true);
  assert.equal(s.endedApprovals.has('a1'), false);
  assert.equal(s.closedQuestions.get('q1'), 'answered');
  assert.equal(s.toolStates.get('x'), 'running');
  assert.deepEqual([...s.requestIds], ['r1', 'r2']);
});

test('tool states and JSON are shown readably', () => {
  assert.equal(toolStateName('TOOL_STATE_AWAITING_APPROVAL'), 'awaiting_approval');
  assert.equal(toolStateName(3), 'running');
  assert.equal(toolStateName(undefined), 'unspecified');
  assert.equal(prettyJson('{"a":1}'), '{\n  "a": 1\n}');
  assert.equal(prettyJson('not json'), 'not json');
  assert.equal(prettyJson('{broken'), '{broken');
});

test('an approval repeats no input its tool_use already shows', () => {
  const input = '{"command":"ls -la /srv/a1"}';
  const s = conversationState([
    at(1, { toolUse: { id: 't1', name: 'shell', inputJson: input } }),
    at(2, { toolState: { id: 't1', state: 'TOOL_STATE_AWAITING_APPROVAL' } }),
    at(3, { toolApproval: { toolId: 't1', toolName: 'shell', inputJson: '{ "command": "ls -la /srv/a1" }' } }),
    at(4, { toolApproval: { toolId: 't2', toolName: 'shell', inputJson: input } }),
    at(5, { toolUse: { id: 't3', name: 'shell', inputJson: '{"command":"true"}' } }),
    at(6, { toolApproval: { toolId: 't3', toolName: 'shell', inputJson: '{"command":"rm -rf /"}' } }),
  ]);
  assert.equal(s.toolInputs.get('t1'), input);
  // the same input (as JSON) was shown with the tool_use: not again
  assert.equal(approvalShowsInput({ toolId: 't1', inputJson: '{ "command": "ls -la /srv/a1" }' }, s.toolInputs), false);
  // no tool_use loaded for it (an agent that only asks): the approval shows the input
  assert.equal(approvalShowsInput({ toolId: 't2', inputJson: input }, s.toolInputs), true);
  // an approval asking about other input than its tool_use showed: both are shown
  assert.equal(approvalShowsInput({ toolId: 't3', inputJson: '{"command":"rm -rf /"}' }, s.toolInputs), true);
});
