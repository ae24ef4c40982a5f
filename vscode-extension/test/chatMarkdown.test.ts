import assert from 'node:assert/strict';
import { test } from 'node:test';
import { markdownToHtml } from '../src/chat/markdown';

test('raw HTML from the model is escaped into text, never kept as markup', () => {
  const html = markdownToHtml('Hi <script>alert(1)</script> <img src=x onerror=alert(1)>\n\n<iframe src="https://x"></iframe>');
  assert.doesNotMatch(html, /<script|<img|<iframe/);
  assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
});

test('script-like link targets are not links; http links are', () => {
  const html = markdownToHtml('[a](javascript:alert(1)) [b](vbscript:x) [c](file:///etc/passwd) [d](https://example.com/x)');
  assert.doesNotMatch(html, /href="(javascript|vbscript|file):/);
  assert.match(html, /<a href="https:\/\/example.com\/x">d<\/a>/);
});

test('code blocks keep their language and their text escaped', () => {
  const html = markdownToHtml('```ts\nconst a = "<b>";\n```\n');
  assert.equal(html, '<pre><code class="language-ts">const a = &quot;&lt;b&gt;&quot;;\n</code></pre>\n');
});
