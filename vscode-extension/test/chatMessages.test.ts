import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chatHtml } from '../src/chat/html';
import { MAX_PROMPT, noPiSentence, parseChatMessage } from '../src/chat/messages';

test('the chat accepts only the intents it knows, with bounded strings', () => {
  assert.deepEqual(parseChatMessage({ type: 'ready' }), { type: 'ready' });
  assert.deepEqual(parseChatMessage({ type: 'abort', extra: 1 }), { type: 'abort' });
  assert.deepEqual(parseChatMessage({ type: 'manageTrust', command: 'other' }), { type: 'manageTrust' });
  assert.deepEqual(parseChatMessage({ type: 'send', text: 'hi\nthere' }), { type: 'send', text: 'hi\nthere' });
  assert.deepEqual(parseChatMessage({ type: 'fork', itemId: 'u3' }), { type: 'fork', itemId: 'u3' });
  assert.deepEqual(parseChatMessage({ type: 'dismiss', itemId: 'n4' }), { type: 'dismiss', itemId: 'n4' });
  assert.deepEqual(parseChatMessage({ type: 'retry', itemId: 'u3' }), { type: 'retry', itemId: 'u3' });
  assert.deepEqual(parseChatMessage({ type: 'openDiff', itemId: 't-call_1' }), { type: 'openDiff', itemId: 't-call_1' });
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
    { type: 'retry' },
    { type: 'openDiff', itemId: 5 },
    { type: 'dismiss' },
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
  assert.match(html, /data-testid="chat-root" data-state="starting"/);
});

test('the Pi-missing notice is one sentence that names the install command once', () => {
  const command = 'npm install -g @earendil-works/pi-coding-agent';
  const once = (s: { before: string; command: string; after: string }): string => `${s.before}${s.command}${s.after}`;
  const count = (text: string): number => text.split(command).length - 1;
  // The server's sentences (lsp_server/pi_rpc/find_pi.py) that name the command already.
  for (const message of [
    `\`/tmp/x/no-such-pi\` was not found; install Pi with: ${command}`,
    `Pi is not installed (no \`pi\` on the PATH or in the usual npm folders); install it with: ${command}`,
    `Pi needs Node.js 22.19.0 or newer but would run with Node.js 20.1.0; install Node.js 22 or newer (for example with nvm), then Pi with: ${command}`,
  ]) {
    const s = noPiSentence(message, command);
    assert.equal(s.command, command);
    assert.equal(once(s), message);
    assert.equal(count(once(s)), 1, message);
    assert.doesNotMatch(once(s), /Install it with/);
  }
  // One that does not (Pi found but broken): the command is added in the same sentence.
  const broken = noPiSentence('`pi --version` failed (exit 1): boom.', command);
  assert.equal(once(broken), `\`pi --version\` failed (exit 1): boom; install Pi with: ${command}`);
  assert.equal(count(once(broken)), 1);
  assert.doesNotMatch(once(broken), /\. /); // one sentence
});
