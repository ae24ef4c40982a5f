/**
 * When the Chat view may send (`src/chat/readiness.ts`): never while the server or Pi starts,
 * and a prompt that reaches the host then waits for the start to end.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatHeader } from '../src/chat/messages';
import { availability, Gate, type Readiness, sendState } from '../src/chat/readiness';

const READY: Readiness = {
  server: true,
  located: true,
  noPi: false,
  chat: true,
  exited: false,
  work: null,
  streaming: false,
  status: null,
};

test('the view says starting, with a reason, until the server, the locate answer and the chat are there', () => {
  assert.deepEqual(availability(READY), { phase: 'idle', hold: null });
  assert.deepEqual(availability({ ...READY, streaming: true }), { phase: 'streaming', hold: null });
  const notYet: Partial<Readiness>[] = [
    { server: false, located: false, chat: false, status: 'Starting the pi-context server…' },
    { server: false, located: false, chat: false, status: null },
    { located: false, chat: false },
    { chat: false, status: 'Starting Pi…' },
    { work: 'start' },
  ];
  for (const facts of notYet) {
    const a = availability({ ...READY, ...facts });
    assert.equal(a.phase, 'starting', JSON.stringify(facts));
    assert.ok(a.hold && a.hold.length > 0, JSON.stringify(facts));
  }
  assert.equal(availability({ ...READY, chat: false, status: 'Starting Pi…' }).hold, 'Starting Pi…');
  assert.deepEqual(availability({ ...READY, noPi: true, chat: false }), { phase: 'no-pi', hold: null });
  assert.deepEqual(availability({ ...READY, exited: true }), { phase: 'exited', hold: null });
  assert.equal(availability({ ...READY, exited: true, work: 'start' }).phase, 'starting'); // a restart
});

function header(phase: ChatHeader['phase'], hold: string | null): ChatHeader {
  return {
    phase,
    status: null,
    hold,
    noPi: null,
    session: 's',
    sessionTitle: 's',
    model: 'm',
    thinkingLevel: 'off',
    hasPrices: false,
    gauge: null,
    queue: { steering: [], followUp: [] },
    compacting: false,
    warning: null,
    compactPreview: null,
    exited: null,
    completions: [],
    extensionStatus: [],
  };
}

test('the send button is disabled (so the input keeps its text) before the first header and while held', () => {
  assert.equal(sendState(null).enabled, false);
  assert.ok(sendState(null).reason);
  assert.deepEqual(sendState(header('starting', 'Starting Pi…')), { enabled: false, reason: 'Starting Pi…' });
  assert.deepEqual(sendState(header('idle', 'held')), { enabled: false, reason: 'held' });
  assert.equal(sendState(header('no-pi', null)).enabled, false);
  assert.equal(sendState(header('exited', null)).enabled, false);
  assert.deepEqual(sendState(header('idle', null)), { enabled: true, reason: null });
  assert.deepEqual(sendState(header('streaming', null)), { enabled: true, reason: null }); // steering
});

test('work queued behind a failing start still runs, and a prompt waits for all of it', async () => {
  const log: string[] = [];
  const gate = new Gate();
  const failed = gate.run('start', async () => {
    log.push('start');
    throw new Error('Pi would not start');
  });
  const retried = gate.run('start', async () => {
    log.push('retry');
  });
  await gate.settled();
  log.push('prompt');
  await assert.rejects(failed, /would not start/);
  await retried;
  assert.deepEqual(log, ['start', 'retry', 'prompt']);
  await gate.settled(); // idle: at once
});
