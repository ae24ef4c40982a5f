import assert from 'node:assert/strict';
import { test } from 'node:test';
import { liveNotices, piMissingHelp, queuedBack, settingsCommand } from '../src/chat/live';
import { parseChatMessage } from '../src/chat/messages';
import type { ChatDriftInfo } from '../src/protocol.generated';
import { Transcript } from '../src/chat/transcript';

const drift: ChatDriftInfo = {
  sections: ['project_context'],
  files: ['AGENTS.md'],
  settings: [],
  trust: false,
  action: 'reload',
  actionLabel: 'Reload Pi',
  message: 'AGENTS.md changed since this Pi read its files, and Pi keeps what it read: Reload Pi to take the change up.',
};

test("the server's drift becomes one notice with its action; an untrusted project one with Trust Project", () => {
  assert.deepEqual(liveNotices(null), []);
  assert.deepEqual(liveNotices({ drift: null, projectUntrusted: null }), []);
  assert.deepEqual(liveNotices({ drift, projectUntrusted: 'Pi does not trust this project, so it leaves out .pi/skills.' }), [
    { kind: 'drift', message: drift.message, action: 'reload', label: 'Reload Pi' },
    { kind: 'trust', message: 'Pi does not trust this project, so it leaves out .pi/skills.', action: 'trust', label: 'Trust Project' },
  ]);
  // A trust change already asks for a restart: Trust Project would say the same thing twice.
  const trusted = { ...drift, trust: true, action: 'restart' as const, actionLabel: 'Restart Pi', message: 'trusted now' };
  assert.deepEqual(
    liveNotices({ drift: trusted, projectUntrusted: 'left out' }).map((n) => n.action),
    ['restart'],
  );
});

test('what Pi had queued comes back into the input, after what is typed there', () => {
  assert.equal(queuedBack({ steering: [], followUp: [] }, 'typed'), null);
  assert.equal(queuedBack(null, ''), null);
  assert.equal(queuedBack({ steering: ['steer this way'] }, ''), 'steer this way');
  assert.equal(queuedBack({ steering: ['a'], followUp: ['b'] }, 'typed\n'), 'typed\n\na\n\nb');
});

test('a missing Pi names the setting, where a machine setting lives, and that no restart is needed', () => {
  assert.equal(
    piMissingHelp(false, false),
    "Or set piContext.pi.command to the command that starts Pi (a machine setting: in your user settings, never a workspace's); the next New Chat uses it, no restart needed.",
  );
  assert.match(piMissingHelp(true, true), /^Fix piContext\.pi\.command \(a machine setting: in this remote window it is under the Settings editor's Remote tab, not User\)/);
  assert.equal(settingsCommand(true), 'workbench.action.openRemoteSettings');
  assert.equal(settingsCommand(false), 'workbench.action.openSettings');
});

test('the view may ask for the three live actions, and nothing else under that name', () => {
  assert.deepEqual(parseChatMessage({ type: 'liveAction', action: 'trust' }), { type: 'liveAction', action: 'trust' });
  assert.equal(parseChatMessage({ type: 'liveAction', action: 'rm -rf' }), undefined);
  assert.deepEqual(parseChatMessage({ type: 'takeBackQueue' }), { type: 'takeBackQueue' });
  assert.deepEqual(parseChatMessage({ type: 'openPiSetting' }), { type: 'openPiSetting' });
});

test("a failed compaction is said once, in Pi's words (its message already starts with 'Compaction failed')", () => {
  const t = new Transcript();
  t.apply({ type: 'compaction_start', reason: 'manual' });
  t.apply({
    type: 'compaction_end',
    reason: 'manual',
    aborted: false,
    willRetry: false,
    errorMessage: 'Compaction failed: Nothing to compact (session too small)',
  });
  const events = t.items.filter((i) => i.kind === 'event');
  assert.equal(events.length, 1);
  assert.equal(events[0]?.kind === 'event' ? events[0].text : '', 'Compaction failed: Nothing to compact (session too small)');
  assert.equal(t.compactionFailures, 1);
  t.apply({ type: 'compaction_start', reason: 'manual' });
  t.apply({ type: 'compaction_end', reason: 'manual', aborted: false, willRetry: false, errorMessage: 'the model refused' });
  const last = t.items.at(-1);
  assert.equal(last?.kind === 'event' ? last.text : '', 'Compaction failed: the model refused');
});
