import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseWebviewMessage } from '../src/sidebar/messages';

test('known messages are accepted with their fields', () => {
  assert.deepEqual(parseWebviewMessage({ type: 'openSource', path: '/repo/AGENTS.md', uri: 'file:///repo/AGENTS.md' }), {
    type: 'openSource',
    path: '/repo/AGENTS.md',
    uri: 'file:///repo/AGENTS.md',
  });
  assert.deepEqual(parseWebviewMessage({ type: 'setEstimate', choice: 'pi' }), { type: 'setEstimate', choice: 'pi' });
  assert.deepEqual(parseWebviewMessage({ type: 'showSectionDiff' }), { type: 'showSectionDiff', name: null });
  assert.deepEqual(parseWebviewMessage({ type: 'compact', extra: 1 }), { type: 'compact' });
});

test('unknown types and malformed fields are dropped', () => {
  for (const raw of [
    null,
    'compact',
    { type: 'runShell', cmd: 'rm -rf /' },
    { type: 'openSource' },
    { type: 'openSource', path: 3 },
    { type: 'openSource', path: 'x'.repeat(5000) },
    { type: 'setEstimate', choice: 'exact' },
    { type: 'showMessage', index: -1 },
    { type: 'showMessage', index: 1.5 },
  ]) {
    assert.equal(parseWebviewMessage(raw), undefined, JSON.stringify(raw)?.slice(0, 60));
  }
});
