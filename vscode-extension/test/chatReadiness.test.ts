/**
 * When the Chat view may send (`src/chat/readiness.ts`): never while the server or Pi starts, nor
 * while a fork is applied, and a prompt that reaches the host then waits for the work to end.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatHeader } from '../src/chat/messages';
import { availability, FORK_HOLD, Gate, type Readiness, sendState } from '../src/chat/readiness';
import { ALL_ON } from '../src/chat/capabilities';

const READY: Readiness = {
  untrusted: false,
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

test('in an untrusted workspace the view says so whatever else is going on, and nothing can be sent', () => {
  for (const facts of [{}, { server: false, located: false, chat: false }, { noPi: true }, { exited: true }, { work: 'start' as const }]) {
    assert.deepEqual(availability({ ...READY, ...facts, untrusted: true }), { phase: 'untrusted', hold: null }, JSON.stringify(facts));
  }
  assert.deepEqual(sendState(header('untrusted', null)), { enabled: false, reason: null });
});

test('while a fork is applied sending is held, with the reason', () => {
  assert.deepEqual(availability({ ...READY, work: 'fork' }), { phase: 'idle', hold: FORK_HOLD });
});

function header(phase: ChatHeader['phase'], hold: string | null): ChatHeader {
  return {
    phase,
    status: null,
    hold,
    untrusted: null,
    noPi: null,
    live: [],
    session: 's',
    sessionTitle: 's',
    model: 'm',
    thinkingLevel: 'off',
    hasPrices: false,
    gauge: null,
    lens: null,
    queue: { steering: [], followUp: [] },
    compacting: false,
    warning: null,
    compactPreview: null,
    exited: null,
    completions: [],
    extensionStatus: [],
    features: ALL_ON,
  };
}

test('the send button is disabled (so the input keeps its text) before the first header and while held', () => {
  assert.equal(sendState(null).enabled, false);
  assert.ok(sendState(null).reason);
  assert.deepEqual(sendState(header('starting', 'Starting Pi…')), { enabled: false, reason: 'Starting Pi…' });
  assert.deepEqual(sendState(header('idle', FORK_HOLD)), { enabled: false, reason: FORK_HOLD });
  assert.equal(sendState(header('no-pi', null)).enabled, false);
  assert.equal(sendState(header('exited', null)).enabled, false);
  assert.deepEqual(sendState(header('idle', null)), { enabled: true, reason: null });
  assert.deepEqual(sendState(header('streaming', null)), { enabled: true, reason: null }); // steering
});

test('a prompt that arrives during a fork is sent after the fork, and after the rebuild', async () => {
  const log: string[] = [];
  let idle = 0;
  const gate = new Gate(() => {
    idle += 1;
  });
  let finishFork: () => void = () => undefined;
  const forked = new Promise<void>((resolve) => {
    finishFork = resolve;
  });
  const fork = gate.run('fork', async () => {
    log.push('fork asked');
    await forked;
    log.push('conversation rebuilt from the new branch');
  });
  assert.equal(gate.work, 'fork');
  assert.equal(gate.busy, true);
  const prompt = (async () => {
    await gate.settled();
    log.push('prompt sent');
  })();
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(log, ['fork asked']); // the prompt waits
  finishFork();
  await Promise.all([fork, prompt]);
  assert.deepEqual(log, ['fork asked', 'conversation rebuilt from the new branch', 'prompt sent']);
  assert.equal(gate.work, null);
  assert.equal(gate.busy, false);
  assert.equal(idle, 1);
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
