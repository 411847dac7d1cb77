// Above a swarm task's conversation (key swarm:<taskId>, docs/swarm-agents.md): the task it works,
// its status and progress and the agent working it, kept current by the swarm's events. Only admins
// may read tasks; for others the banner names the task and links to it.
import { html } from '../../lib/html.js';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../lib/api.js';
import * as bus from '../../lib/bus.js';
import { useSubscription } from '../../lib/live.js';
import { links } from '../../lib/router.js';
import { throttle } from '../../lib/throttle.js';
import { STATUS_LABELS } from '../../model/swarm.js';

export function TaskBanner({ taskId, onAgent }) {
  const [task, setTask] = useState(null);
  const [ops] = useState(() => {
    let id = taskId;
    const load = async () => {
      try {
        const t = await api.task(id);
        if (t && t.id === id) {
          setTask(t);
          if (t.assignedAgent && onAgent) onAgent(t.assignedAgent);
        }
      } catch {
        // not an admin, or no such task: the banner names the task only
      }
    };
    return { setId: (v) => { id = v; }, load, loadSoon: throttle(load, 500) };
  });
  ops.setId(taskId);
  useEffect(() => {
    setTask(null);
    ops.load();
    return () => ops.loadSoon.cancel();
  }, [taskId]);
  useSubscription(bus.ADDRESSES.swarm, (ev) => {
    if (ev && ev.kind === 'task' && ev.id === taskId) ops.loadSoon();
  });

  const pct = task && task.progress && Number.isFinite(task.progress.percentComplete) ? task.progress.percentComplete : null;
  return html`<p class="task-banner small" data-testid="conversation-task" data-task-id=${taskId} data-status=${task ? task.status : ''}>
    Swarm task <a class="mono" href=${links.task(taskId)}>${task && task.title ? task.title : taskId}</a>
    ${task ? html` · <span class=${`pill pill-status-${task.status}`}>${STATUS_LABELS[task.status] || task.status}</span>` : null}
    ${task && task.progress && task.status === 'in_progress' ? html` · ${task.progress.phase || ''}${pct !== null ? ` ${pct}%` : ''}` : null}
    ${task && task.assignedAgent ? html` · worked by <a class="mono" href=${links.conversation(task.assignedAgent)}>${task.assignedAgent}</a>` : null}
  </p>`;
}
