import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contentSecurityPolicy, makeNonce, sidebarHtml } from '../src/sidebar/html';

const shell = (nonce: string) =>
  sidebarHtml({
    cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
    nonce,
    scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview.js',
    styleUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/media/sidebar.css',
  });

test('the policy denies everything by default and allows scripts only by nonce', () => {
  const csp = contentSecurityPolicy('vscode-resource:', 'abc');
  assert.match(csp, /^default-src 'none'/);
  assert.match(csp, /script-src 'nonce-abc'$|script-src 'nonce-abc';/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
});

test('every script tag carries the nonce and nothing is inline', () => {
  const html = shell('N0nce');
  const scripts = html.match(/<script\b[^>]*>/g) ?? [];
  assert.equal(scripts.length, 1);
  for (const tag of scripts) {
    assert.match(tag, /nonce="N0nce"/);
    assert.match(tag, /src="/);
  }
  assert.doesNotMatch(html, /<script[^>]*>[^<]+<\/script>/);
  assert.doesNotMatch(html, /style="/);
});

test('no resource is loaded from outside the extension', () => {
  const urls = shell('n').match(/(?:src|href)="([^"]+)"/g) ?? [];
  assert.ok(urls.length > 0);
  for (const u of urls) {
    assert.match(u, /vscode-resource\.vscode-cdn\.net\/ext\//);
  }
});

test('a nonce is 32 random bytes in base64url and differs between renders', () => {
  const a = makeNonce();
  const b = makeNonce();
  assert.match(a, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(a, b);
  assert.equal(makeNonce(() => new Uint8Array(32)), 'A'.repeat(43));
});
