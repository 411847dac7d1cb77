// Schedules (periodic tasks, POST/GET/DELETE /api/v1/schedules, docs/swarm.md "Schedules"): the
// create form's body and how a schedule's rule and runs read in the list. Pure: tested under Node.
import { taskFromForm } from './swarm.js';

export const EMPTY_SCHEDULE = { name: '', kind: 'cron', rule: '', timezone: 'UTC', title: '', description: '', requiredSkills: '', priority: 'medium' };

/**
 * The body of POST /api/v1/schedules for the form: a name, exactly one rule (`cron` or `every`), a
 * timezone (left out when empty: the server's default, UTC) and the task template. Throws an Error
 * naming what is missing; everything else the server checks (and names the member it refuses).
 */
export function scheduleFromForm(f) {
  const name = (f.name || '').trim();
  const rule = (f.rule || '').trim();
  if (!name) throw new Error('A schedule needs a name.');
  if (!rule) throw new Error(f.kind === 'every' ? 'Give the period, e.g. PT1H or P1D.' : 'Give a cron expression, e.g. 0 2 * * *.');
  const task = taskFromForm({ title: f.title, description: f.description, requiredSkills: f.requiredSkills, priority: f.priority });
  if (!task.title) throw new Error("A schedule's task needs a title.");
  const body = { name, task };
  body[f.kind === 'every' ? 'every' : 'cron'] = rule;
  const timezone = (f.timezone || '').trim();
  if (timezone) body.timezone = timezone;
  return body;
}

/** The rule as the list shows it: "cron 0 2 * * * (Europe/Berlin)" or "every PT1H". */
export function ruleText(s) {
  if (s.every) return `every ${s.every}`;
  return `cron ${s.cron || '?'}${s.timezone ? ` (${s.timezone})` : ''}`;
}

/** Schedules by name, as the server lists them (and a created one put in its place). */
export function sortSchedules(list) {
  return [...(list || [])].sort((a, b) => String(a.name).localeCompare(String(b.name)));
}
