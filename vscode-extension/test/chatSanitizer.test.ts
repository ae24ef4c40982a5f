/**
 * The Chat view's Markdown renderer in a real DOM (jsdom, scripts enabled as in the webview), fed
 * hostile model text. markdown-it runs with raw HTML off and the result is rebuilt from an
 * allowlist; these tests check the DOM that comes out, not the HTML string: no element or
 * attribute that can run code or load anything survives, every link is http(s) or mailto, and
 * the hostile text is still there, as text the user can read.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JSDOM } from 'jsdom';
import { renderMarkdown, sanitizeHtml } from '../src/webview/chat/markdown';

const dom = new JSDOM('<!doctype html><html><body></body></html>', { runScripts: 'dangerously', pretendToBeVisual: true });
const win = dom.window as unknown as Window & typeof globalThis & { pwned?: string[] };
// The renderer uses the page's globals when it runs (as in the webview): give it jsdom's.
Object.assign(globalThis, { document: win.document, Node: win.Node });
win.pwned = [];

const PWN = (tag: string): string => `window.pwned.push('${tag}')`;

/** Every hostile input a model could stream, one per case. */
const HOSTILE: Record<string, string> = {
  scriptTag: `Hello <script>${PWN('script')}</script> there`,
  scriptBlock: `<script>\n${PWN('script-block')}\n</script>\n\ntext`,
  imgOnerror: `<img src=x onerror="${PWN('img')}">`,
  onAttributes: `<div onclick="${PWN('div')}" onmouseover="${PWN('over')}">hover me</div>`,
  markdownImage: `![alt text](javascript:${PWN('md-img')})`,
  javascriptLink: `[click](javascript:${PWN('link')})`,
  javascriptLinkEncoded: `[click](jav&#x09;ascript:${PWN('encoded')}) [two](JaVaScRiPt:${PWN('case')}) [three](%6Aavascript:x)`,
  javascriptAutolink: `<javascript:${PWN('autolink')}>`,
  vbscriptLink: '[vb](vbscript:msgbox(1))',
  dataLink: '[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  dataImage: '![pixel](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)',
  fileLink: '[passwd](file:///etc/passwd)',
  rawAnchor: `<a href="javascript:${PWN('raw-a')}">raw</a>`,
  svg: `<svg onload="${PWN('svg')}"><script>${PWN('svg-script')}</script><circle r="5"/></svg>`,
  math: `<math><mtext><table><mglyph><style><img src=x onerror="${PWN('math')}">`,
  iframe: `<iframe srcdoc="<script>${PWN('iframe')}</script>"></iframe>`,
  styleTag: '<style>body { background: url(https://evil.example/x) }</style>',
  form: '<form action="https://evil.example"><input name=q autofocus onfocus="x"><button>go</button></form>',
  objectEmbed: '<object data="x.swf"></object><embed src="x.swf">',
  baseMeta: '<base href="https://evil.example/"><meta http-equiv="refresh" content="0;url=https://evil.example">',
  codeSpan: `Use \`<script>${PWN('code-span')}</script>\` and \`<img src=x onerror=${PWN('code-img')}>\``,
  fencedCode: `\`\`\`html onload=${PWN('fence')}\n<script>${PWN('fenced')}</script>\n<img src=x onerror=${PWN('fenced-img')}>\n\`\`\``,
  linkTitle: `[t](https://example.com "x\\" onmouseover=\\"${PWN('title')}")`,
  table: '| a | b |\n|:--|--:|\n| <b onclick="x">c</b> | d |',
  htmlEntities: '&lt;script&gt;alert(1)&lt;/script&gt; &#60;img src=x onerror=alert(1)&#62;',
  nested: `> <details open ontoggle="${PWN('details')}"><summary>s</summary></details>\n> - [x](javascript:${PWN('nested')})`,
};

const ALLOWED_TAGS = new Set([
  'P', 'BR', 'HR', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'STRONG', 'EM', 'S', 'DEL', 'CODE', 'PRE', 'BLOCKQUOTE',
  'UL', 'OL', 'LI', 'A', 'TABLE', 'THEAD', 'TBODY', 'TR', 'TH', 'TD', 'SPAN',
  'DIV', 'BUTTON', // the code block's wrapper and its copy button, made by the renderer itself
]);
const ALLOWED_ATTRIBUTES = new Set(['href', 'title', 'class', 'start', 'type', 'data-testid', 'aria-label', 'aria-hidden']);

function render(source: string, layer: 'markdown' | 'allowlist' = 'markdown'): HTMLElement {
  const container = win.document.createElement('div');
  container.append(layer === 'markdown' ? renderMarkdown(source, () => undefined) : sanitizeHtml(source));
  win.document.body.replaceChildren(container); // in the live document, as in the webview
  return container;
}

/** Fire every event an inline handler could hang on, on every element. */
function poke(container: HTMLElement): void {
  for (const el of [container, ...container.querySelectorAll('*')]) {
    for (const type of ['click', 'mouseover', 'focus', 'load', 'error', 'toggle', 'animationstart']) {
      el.dispatchEvent(new win.Event(type, { bubbles: true }));
    }
  }
}

const LAYERS = [
  ['the renderer (markdown-it, raw HTML off, then the allowlist)', 'markdown'],
  // As if raw HTML had reached the second layer unescaped: the allowlist alone must hold.
  ['the allowlist alone, on the text as raw HTML', 'allowlist'],
] as const;

for (const [layerName, layer] of LAYERS) {
  for (const [name, source] of Object.entries(HOSTILE)) {
    test(`hostile model text does not survive ${layerName}: ${name}`, () => {
      checkClean(render(source, layer));
    });
  }
}

function checkClean(container: HTMLElement): void {
  win.pwned = [];
  poke(container);
  assert.deepEqual(win.pwned, [], 'no code from the model ran');
  for (const el of container.querySelectorAll('*')) {
    assert.ok(ALLOWED_TAGS.has(el.tagName), `<${el.tagName.toLowerCase()}> is not allowed`);
    for (const attribute of el.getAttributeNames()) {
      assert.ok(ALLOWED_ATTRIBUTES.has(attribute), `${attribute} on <${el.tagName.toLowerCase()}> is not allowed`);
    }
    const href = el.getAttribute('href');
    if (href !== null) {
      assert.match(href, /^(https?:|mailto:)/i);
    }
    const className = el.getAttribute('class');
    if (className !== null && el.tagName === 'CODE') {
      assert.match(className, /^language-[\w+-]{1,40}$/);
    }
  }
  assert.equal(container.querySelectorAll('img, svg, math, script, iframe, style, form, input, object, embed, base, meta').length, 0);
}

test('the allowlist turns raw markup into its text, keeps safe structure, and drops every attribute but a safe href', () => {
  win.pwned = [];
  const container = render(
    `<p onclick="${PWN('p')}" style="color:red">a <b>b</b> <a href="https://ok.example" onclick="${PWN('a')}" target="_blank">ok</a> <a href=" javascript:x">bad</a></p><img src=x alt="pic" onerror="${PWN('img')}">`,
    'allowlist',
  );
  poke(container);
  assert.deepEqual(win.pwned, []);
  assert.equal(container.innerHTML, '<p>a b <a href="https://ok.example" title="https://ok.example">ok</a> <a>bad</a></p>[image: pic]');
});

test('raw HTML and code from the model stay readable as text', () => {
  assert.match(render(HOSTILE.scriptTag ?? '').textContent ?? '', /Hello <script>window\.pwned\.push\('script'\)<\/script> there/);
  const code = render(HOSTILE.codeSpan ?? '').querySelectorAll('code');
  assert.equal(code[0]?.textContent, "<script>window.pwned.push('code-span')</script>");
  assert.equal(render(HOSTILE.markdownImage ?? '').textContent?.trim(), "![alt text](javascript:window.pwned.push('md-img'))");
  assert.equal(render('![a chart](https://example.com/chart.png)').textContent?.trim(), '[image: a chart]'); // nothing loads
  const fenced = render(HOSTILE.fencedCode ?? '').querySelector('pre code');
  assert.match(fenced?.textContent ?? '', /^<script>window\.pwned\.push\('fenced'\)<\/script>\n<img src=x/);
  assert.equal(fenced?.getAttribute('class'), 'language-html');
});

test('safe links keep their target, and the target is shown in the title', () => {
  const container = render('[docs](https://example.com/a?b=1) and <mailto:someone@example.com> and https://example.org');
  const links = [...container.querySelectorAll('a')].map((a) => [a.getAttribute('href'), a.getAttribute('title')]);
  assert.deepEqual(links, [
    ['https://example.com/a?b=1', 'https://example.com/a?b=1'],
    ['mailto:someone@example.com', 'mailto:someone@example.com'],
    ['https://example.org', 'https://example.org'],
  ]);
  const refused = render(HOSTILE.javascriptLink ?? '').querySelector('a');
  assert.equal(refused, null); // markdown-it does not make it a link; its text stays
});

test('each element keeps only its own attribute with a safe value: a title is the link target, never the input', () => {
  const container = render(
    '<p alt="x" class="language-js" data-x="1" aria-label="y">p</p>' +
      '<ol start="3" class="c"><li start="4">i</li></ol><ol start="1; x"><li>j</li></ol>' +
      '<code class="language-ts" title="t">c</code><code class="language-ts evil">d</code>' +
      '<a href="https://ok.example" title="not the target">a</a><span alt="s">s</span>',
    'allowlist',
  );
  assert.equal(
    container.innerHTML,
    '<p>p</p><ol start="3"><li>i</li></ol><ol><li>j</li></ol><code class="language-ts">c</code><code>d</code>' +
      '<a href="https://ok.example" title="https://ok.example">a</a><span>s</span>',
  );
});
