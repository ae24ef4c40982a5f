/**
 * The Chat view with each Pi release: the server's `capabilities` for a new chat, as each real release
 * answered them (`scripts/record_capabilities.py` wrote `test/fixtures/chat/capabilities/*.json`;
 * tests/pi_rpc/test_real_capabilities.py fails when one is stale), turned into what the view offers.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { ALL_ON, featureSentence, featureView, unavailable } from '../src/chat/capabilities';
import type { ChatCapabilities } from '../src/protocol.generated';

const FIXTURES = path.join(__dirname, '..', '..', 'test', 'fixtures', 'chat', 'capabilities');
const recorded = (name: string): ChatCapabilities =>
  JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8')) as ChatCapabilities;

test('every release from 1.3.0 on offers everything: nothing is said', () => {
  for (const version of ['1.3.0', '1.4.0', '1.5.0', '1.5.2', '1.6.0']) {
    const view = featureView(recorded(version));
    assert.deepEqual(view, { off: {}, summary: null }, version);
  }
});

test('Pi 1.0.3 shows no tool durations, and one sentence names the Pi version that has them', () => {
  const view = featureView(recorded('1.0.3'));
  assert.deepEqual(Object.keys(view.off), ['tool-durations']);
  assert.equal(
    unavailable(view, 'tool-durations'),
    'Showing how long each tool ran needs Pi 1.1.0 or newer: Pi 1.0.3 lacks `durationMs` on `tool_execution_end`.',
  );
  assert.equal(view.summary, unavailable(view, 'tool-durations'));
  for (const id of ['conversation', 'stop', 'fork', 'models', 'thinking', 'compact', 'slash-commands', 'session-restore'] as const) {
    assert.equal(unavailable(view, id), null, id);
  }
});

test('a Pi newer than every known release keeps every feature and is told which rules the lens follows', () => {
  const view = featureView(recorded('1.7.0'));
  assert.deepEqual(view.off, {});
  assert.match(view.summary ?? '', /^Pi 1\.7\.0 is newer than every release pi-context knows; it follows Pi 1\.6\.0's rules/);
  assert.equal((view.summary ?? '').split('. ').length, 1, 'one sentence');
});

test('a Pi whose RPC lacks commands: each control it cannot back says what is missing and which Pi has it', () => {
  const caps = recorded('stand-in-0.9.0');
  const view = featureView(caps);
  assert.equal(
    unavailable(view, 'fork'),
    'Editing or retrying an earlier message needs Pi 1.0.3 or newer: Pi 0.9.0 lacks the `get_fork_messages` command and the `fork` command.',
  );
  assert.equal(unavailable(view, 'models'), 'Choosing the model needs Pi 1.0.3 or newer: Pi 0.9.0 lacks the `set_model` command and `model` in get_state.');
  assert.equal(unavailable(view, 'compact'), null, 'compact cannot be probed: assumed until Pi refuses it');
  for (const sentence of Object.values(view.off)) {
    assert.match(sentence ?? '', /^[A-Z][^.]*(\.[^ .][^.]*)*\.$/, 'one sentence each');
    assert.match(sentence ?? '', /needs Pi \d+\.\d+\.\d+ or newer/);
  }
  assert.ok((view.summary ?? '').endsWith("it follows Pi 1.0.3's rules."));
});

test('an older server sends no capabilities: the view offers everything', () => {
  assert.equal(featureView(undefined), ALL_ON);
  assert.equal(featureView(null), ALL_ON);
});

test('a feature without a known version still reads as a sentence', () => {
  assert.equal(
    featureSentence({ id: 'compact', available: false, what: 'Compacting the session', missing: 'the `compact` command' }, '2.0.0'),
    'Compacting the session needs a newer Pi: Pi 2.0.0 lacks the `compact` command.',
  );
});
