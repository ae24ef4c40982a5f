import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chatHtml } from '../src/chat/html';
import { MAX_PROMPT, parseChatMessage } from '../src/chat/messages';

test('the chat accepts only the intents it knows, with bounded strings', () => {
  assert.deepEqual(parseChatMessage({ type: 'ready' }), { type: 'ready' });
  assert.deepEqual(parseChatMessage({ type: 'abort', extra: 1 }), { type: 'abort' });
  assert.deepEqual(parseChatMessage({ type: 'send', text: 'hi\nthere' }), { type: 'send', text: 'hi\nthere' });
  assert.deepEqual(parseChatMessage({ type: 'fork', itemId: 'u3' }), { type: 'fork', itemId: 'u3' });
  assert.deepEqual(parseChatMessage({ type: 'openFile', path: 'src/a.ts' }), { type: 'openFile', path: 'src/a.ts', line: null });
  assert.deepEqual(parseChatMessage({ type: 'openFile', path: 'a.ts', line: 12 }), { type: 'openFile', path: 'a.ts', line: 12 });
  assert.deepEqual(parseChatMessage({ type: 'openFile', path: 'a.ts', line: -1 }), { type: 'openFile', path: 'a.ts', line: null });
  for (const bad of [
    null,
    'send',
    { type: 'send' },
    { type: 'send', text: 3 },
    { type: 'send', text: 'x'.repeat(MAX_PROMPT + 1) },
    { type: 'fork', itemId: '' },
    { type: 'openFile', path: 'x'.repeat(5000) },
    { type: 'runCommand', command: 'workbench.action.terminal.new' },
    { type: 7 },
  ]) {
    assert.equal(parseChatMessage(bad), undefined, JSON.stringify(bad)?.slice(0, 60));
  }
});

test("the chat's shell loads only the extension's files, its one script by nonce, nothing inline", () => {
  const base = 'https://file+.vscode-resource.vscode-cdn.net/ext';
  const html = chatHtml({
    cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
    nonce: 'N0nce',
    scriptUri: `${base}/dist/chat.js`,
    styleUri: `${base}/media/chat.css`,
    codiconUri: `${base}/dist/codicons/codicon.css`,
  });
  assert.match(html, /content="default-src 'none'; style-src [^;]+; font-src [^;]+; img-src [^;]+; script-src 'nonce-N0nce'"/);
  const scripts = html.match(/<script\b[^>]*>/g) ?? [];
  assert.deepEqual(scripts, [`<script nonce="N0nce" src="${base}/dist/chat.js">`]);
  for (const url of html.match(/(?:src|href)="([^"]+)"/g) ?? []) {
    assert.match(url, /vscode-resource\.vscode-cdn\.net\/ext\//);
  }
  assert.doesNotMatch(html, /style="/);
  assert.match(html, /data-testid="chat-root" data-state="idle"/);
});
