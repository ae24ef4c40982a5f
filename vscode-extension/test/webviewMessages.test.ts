import assert from 'node:assert/strict';
import { test } from 'node:test';
import { commandFor, parseWebviewMessage } from '../src/sidebar/messages';

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

test('every webview message but ready runs a Pi Context command', () => {
  const messages = [
    { type: 'openSource', path: '/a', uri: null },
    { type: 'setEstimate', choice: 'pi' },
    { type: 'showSectionDiff', name: 'x' },
    { type: 'showSystemPrompt' },
    { type: 'showProjectedRequest' },
    { type: 'showMessage', index: 2 },
    { type: 'compact' },
    { type: 'refresh' },
    { type: 'selectSession' },
    { type: 'clearHighlights' },
    { type: 'restartServer' },
    { type: 'showOutput' },
  ] as const;
  for (const m of messages) {
    assert.match(commandFor(m)?.command ?? '', /^piContext\./, m.type);
  }
  assert.equal(commandFor({ type: 'ready' }), null);
});

test('a section diff request from a row names the section', () => {
  assert.deepEqual(commandFor({ type: 'showSectionDiff', name: '/repo/AGENTS.md' }), {
    command: 'piContext.showSectionDiff',
    args: [null, '/repo/AGENTS.md'],
  });
});
