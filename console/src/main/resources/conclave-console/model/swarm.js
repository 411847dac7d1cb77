// Swarm tasks on the board, kept current by the events on conclave.events.swarm
// ({"kind", "event", "id", "at", "seq", "data"}, docs/swarm.md "Events"). Pure: tested under Node.

/** Every task status, in board order. */
export const STATUSES = ['blocked', 'ready', 'claimed', 'in_progress', 'pending_retry', 'needs_review', 'completed', 'failed', 'cancelled'];

export const STATUS_LABELS = {
  blocked: 'Blocked',
  ready: 'Ready',
  claimed: 'Claimed',
  in_progress: 'In progress',
  pending_retry: 'Pending retry',
  needs_review: 'Needs review',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export const PRIORITIES = ['critical', 'high', 'medium', 'low'];
export const TYPES = ['code', 'test', 'browser_test', 'documentation', 'review', 'custom'];
const PRIORITY_RANK = { critical: 0, high: 1, medium: 2, low: 3 };
const FINISHED = new Set(['completed', 'failed', 'cancelled']);

/** The task id of a conversation key, or null when the conversation is not a swarm task's (swarm:<taskId>). */
export function taskOfConversation(key) {
  return typeof key === 'string' && key.startsWith('swarm:') && key.length > 6 ? key.slice(6) : null;
}

/** The status a task event leaves its task in, or null when the event does not say. */
export function statusAfter(ev) {
  const d = ev.data || {};
  switch (ev.event) {
    case 'created': return STATUSES.includes(d.status) ? d.status : null;
    case 'claimed': return 'claimed';
    case 'progress': return 'in_progress';
    case 'completed': return 'completed';
    case 'needs_review': return 'needs_review';
    case 'failed': return d.status === 'pending_retry' || d.status === 'failed' ? d.status : null;
    case 'retry_ready':
    case 'unblocked': return 'ready';
    case 'cancelled': return 'cancelled';
    case 'retried': return STATUSES.includes(d.status) ? d.status : null;
    default: return null;
  }
}

/**
 * Applies a task event to a Map id -> task. Returns 'updated', or 'fetch' when the board must read
 * the task (it is unknown, or the event does not say where it went).
 */
export function applyTaskEvent(tasks, ev) {
  if (!ev || ev.kind !== 'task' || !ev.id) return 'ignored';
  const task = tasks.get(ev.id);
  if (task && ev.event === 'conversation' && ev.data && ev.data.conversationKey) {
    // an agent program works it as a gateway conversation (docs/swarm-agents.md): the card links to it
    tasks.set(ev.id, { ...task, conversationKey: ev.data.conversationKey });
    return 'updated';
  }
  const status = statusAfter(ev);
  if (!task || !status) return 'fetch';
  // an event older than what the task already shows (it was read after the event) changes nothing
  const at = Date.parse(ev.at || '');
  const seen = Date.parse(task.updatedAt || '');
  if (!Number.isNaN(at) && !Number.isNaN(seen) && at < seen) return 'stale';
  const d = ev.data || {};
  const next = { ...task, status, updatedAt: ev.at || task.updatedAt };
  if (d.agentId && (ev.event === 'claimed' || ev.event === 'progress')) next.assignedAgent = d.agentId;
  if (d.priority) next.priority = d.priority;
  if (Number.isFinite(d.retryCount)) next.retryCount = d.retryCount;
  if (ev.event === 'progress') {
    next.progress = { ...(task.progress || {}), phase: d.phase, percentComplete: d.percentComplete, description: d.description };
  }
  if (ev.event === 'failed') {
    next.lastError = d.message || task.lastError;
    next.nextRetryAt = d.nextRetryAt || undefined;
    next.failureType = d.failureType || task.failureType;
  }
  if (ev.event === 'retry_ready' || ev.event === 'failed') next.assignedAgent = undefined;
  if (ev.event === 'cancelled' && d.reason) next.cancelReason = d.reason;
  tasks.set(ev.id, next);
  return 'updated';
}

/** Tasks by status, each column sorted: unfinished by priority then age, finished newest first. */
export function columns(tasks) {
  const out = Object.fromEntries(STATUSES.map((s) => [s, []]));
  for (const t of tasks.values()) (out[t.status] || (out[t.status] = [])).push(t);
  for (const [status, list] of Object.entries(out)) {
    if (FINISHED.has(status)) {
      list.sort((a, b) => String(b.updatedAt || b.completedAt || b.createdAt || '').localeCompare(String(a.updatedAt || a.completedAt || a.createdAt || '')));
    } else {
      list.sort((a, b) => ((PRIORITY_RANK[a.priority] ?? 9) - (PRIORITY_RANK[b.priority] ?? 9))
        || String(a.createdAt || '').localeCompare(String(b.createdAt || '')));
    }
  }
  return out;
}

/** The body of POST /api/v1/tasks from the create form's fields (empty fields left out). */
export function taskFromForm(f) {
  const list = (s) => (s || '').split(/[,\n]/).map((x) => x.trim()).filter(Boolean);
  const task = { title: (f.title || '').trim() };
  if (f.id && f.id.trim()) task.id = f.id.trim();
  if (f.description && f.description.trim()) task.description = f.description.trim();
  if (f.priority) task.priority = f.priority;
  if (f.type) task.type = f.type;
  const skills = list(f.requiredSkills);
  if (skills.length) task.requiredSkills = skills;
  const deps = list(f.dependencies);
  if (deps.length) task.dependencies = deps;
  const files = list(f.files);
  if (files.length) task.files = files;
  if (f.estimatedMinutes !== undefined && String(f.estimatedMinutes).trim() !== '') task.estimatedMinutes = Number(f.estimatedMinutes);
  if (f.branch && f.branch.trim()) task.branch = f.branch.trim();
  if (f.maxRetries !== undefined && String(f.maxRetries).trim() !== '') task.maxRetries = Number(f.maxRetries);
  return task;
}

/** The operator command of the command form: SHUTDOWN, RELEASE_TASK or PING. */
export function commandFromForm(f) {
  const command = { type: f.type };
  if (f.type === 'RELEASE_TASK' && f.taskId) command.taskId = f.taskId.trim();
  if (f.type !== 'PING' && f.reason && f.reason.trim()) command.reason = f.reason.trim();
  return command;
}

// ---- bulk actions (POST /api/v1/tasks/bulk) ------------------------------------------------

/** The most tasks a selection holds: what one bulk request may name by id. */
export const MAX_SELECTED = 1000;

const BULK_DONE = { retry: 'Retried', cancel: 'Cancelled', reprioritize: 'Re-prioritised' };

/** Whether the action changes a task in this status (as swarm.bulk_tasks decides). */
export function bulkAppliesTo(action, status) {
  if (action === 'retry') return status === 'failed' || status === 'cancelled';
  return !FINISHED.has(status);
}

/**
 * The request body of a bulk action on the selected tasks ({ids}) or on a whole column ({status}),
 * which the server applies in one transaction. Throws, naming what is wrong, before anything is sent.
 */
export function bulkBody(action, target, priority) {
  if (!BULK_DONE[action]) throw new Error(`unknown action '${action}'`);
  const filter = {};
  if (target.status) filter.status = [target.status];
  else {
    const ids = [...(target.ids || [])].sort();
    if (ids.length === 0) throw new Error('no task is selected');
    if (ids.length > MAX_SELECTED) throw new Error(`at most ${MAX_SELECTED} tasks can be selected at once`);
    filter.ids = ids;
  }
  const body = { action, filter };
  if (action === 'reprioritize') {
    if (!PRIORITIES.includes(priority)) throw new Error('choose a priority first');
    body.priority = priority;
  }
  return body;
}

/** One line on what a bulk action did. */
export function bulkOutcome(res) {
  const matched = Number(res && res.matched) || 0;
  const changed = Number(res && res.changed) || 0;
  return `${BULK_DONE[res && res.action] || 'Changed'} ${changed} of ${matched} matched task${matched === 1 ? '' : 's'}.`;
}
