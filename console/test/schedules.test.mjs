// The schedules view's pure parts: the create form's body, the rule as listed, the order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EMPTY_SCHEDULE, ruleText, scheduleFromForm, sortSchedules } from '../src/main/resources/conclave-console/model/schedules.js';

test('a cron schedule: name, cron, timezone and the task template, trimmed', () => {
  assert.deepEqual(scheduleFromForm({ ...EMPTY_SCHEDULE, name: ' nightly ', rule: ' 0 2 * * * ', timezone: 'Europe/Berlin',
    title: ' Nightly report ', description: 'all of it', requiredSkills: 'reports, , writing', priority: 'high' }), {
    name: 'nightly', cron: '0 2 * * *', timezone: 'Europe/Berlin',
    task: { title: 'Nightly report', description: 'all of it', requiredSkills: ['reports', 'writing'], priority: 'high' },
  });
});

test('an every schedule sends every, never cron; an empty timezone is left to the server', () => {
  const body = scheduleFromForm({ ...EMPTY_SCHEDULE, name: 'hourly', kind: 'every', rule: 'PT1H', timezone: ' ', title: 'Tick' });
  assert.deepEqual(body, { name: 'hourly', every: 'PT1H', task: { title: 'Tick', priority: 'medium' } });
});

test('a missing name, rule or title is named before anything is sent', () => {
  assert.throws(() => scheduleFromForm({ ...EMPTY_SCHEDULE, rule: '* * * * *', title: 't' }), /name/);
  assert.throws(() => scheduleFromForm({ ...EMPTY_SCHEDULE, name: 'n', title: 't' }), /cron/);
  assert.throws(() => scheduleFromForm({ ...EMPTY_SCHEDULE, name: 'n', kind: 'every', title: 't' }), /period/);
  assert.throws(() => scheduleFromForm({ ...EMPTY_SCHEDULE, name: 'n', rule: '* * * * *', title: '  ' }), /title/);
});

test('the rule reads as cron in its timezone, or as every', () => {
  assert.equal(ruleText({ cron: '0 9 * * MON', timezone: 'America/New_York' }), 'cron 0 9 * * MON (America/New_York)');
  assert.equal(ruleText({ every: 'P1D', timezone: 'UTC' }), 'every P1D');
});

test('schedules are listed by name', () => {
  assert.deepEqual(sortSchedules([{ name: 'b' }, { name: 'a' }, { name: 'c' }]).map((s) => s.name), ['a', 'b', 'c']);
  assert.deepEqual(sortSchedules(undefined), []);
});
