/**
 * The model's Markdown as DOM, sanitized twice. markdown-it runs with `html: false`
 * (`src/chat/markdown.ts`), so raw HTML in a reply is escaped into text, and its link check refuses
 * `javascript:`, `vbscript:`, `file:` and `data:` URLs. Its output then goes through DOMPurify (parsed in
 * an inert document: nothing in it runs or loads) with an allowlist of elements and, per element, of
 * attributes: only http(s) and mailto links stay (their target shown as the title), a code block keeps
 * its `language-*` class and a list its `start`, images become their alt text (the CSP would block a
 * remote image anyway), and no `style`, `on*`, `data-*`, `aria-*` or other attribute survives. Code blocks
 * get a copy button. `test/chatSanitizer.test.ts` feeds hostile model text to both layers in a real DOM
 * (jsdom, scripts enabled) and checks what survives.
 */
import createDOMPurify, { type DOMPurify, type WindowLike } from 'dompurify';
import { markdownToHtml } from '../../chat/markdown';

const ALLOWED_TAGS = [
  'p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'strong', 'em', 's', 'del', 'code', 'pre', 'blockquote',
  'ul', 'ol', 'li', 'a', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'span',
  'img', // kept only to be replaced by its alt text below: no image is ever in the result
];
const SAFE_LINK = /^(?:https?:|mailto:)/i;

/** Which attribute each element keeps, and which values: anything not listed here is dropped. */
const ATTRIBUTE_RULES: Record<string, (value: string) => boolean> = {
  'A href': (value) => SAFE_LINK.test(value),
  'CODE class': (value) => /^language-[\w+-]{1,40}$/.test(value),
  'OL start': (value) => /^\d{1,9}$/.test(value),
  'IMG alt': () => true,
};

let purifier: DOMPurify | undefined;

/** One DOMPurify for the page's window (the webview's, or jsdom's in the tests), with the per-element rules as hooks. */
function purify(): DOMPurify {
  if (purifier) {
    return purifier;
  }
  const made = createDOMPurify(document.defaultView as unknown as WindowLike);
  made.setConfig({
    ALLOWED_TAGS,
    ALLOWED_ATTR: ['href', 'class', 'start', 'alt'],
    ALLOWED_URI_REGEXP: SAFE_LINK,
    ADD_URI_SAFE_ATTR: ['start'], // not a URL: else DOMPurify holds "3" to the link pattern and drops it
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    RETURN_DOM_FRAGMENT: true,
  });
  made.addHook('uponSanitizeAttribute', (node, event) => {
    const rule = ATTRIBUTE_RULES[`${node.nodeName} ${event.attrName}`];
    if (!rule?.(event.attrValue)) {
      event.keepAttr = false;
    }
  });
  made.addHook('afterSanitizeAttributes', (node) => {
    const href = node.nodeName === 'A' ? node.getAttribute('href') : null;
    if (href !== null) {
      node.setAttribute('title', href); // where a link goes, before it is followed
    }
  });
  purifier = made;
  return made;
}

/** What a code block's buttons do besides Copy: Insert at Cursor, New File (in the block's language). */
export interface CodeActions {
  insert(text: string): void;
  newFile(text: string, language: string | null): void;
}

export function renderMarkdown(source: string, onCopy: (text: string) => void, actions?: CodeActions): DocumentFragment {
  const out = sanitizeHtml(markdownToHtml(source));
  for (const pre of [...out.querySelectorAll('pre')]) {
    decorateCode(pre, onCopy, actions);
  }
  return out;
}

/**
 * Any HTML text through DOMPurify with the rules above, as a fragment of this document: the second line of
 * defence, which holds even if HTML reached it unescaped (tested with raw hostile HTML in jsdom).
 */
export function sanitizeHtml(html: string): DocumentFragment {
  const clean = purify().sanitize(html, { RETURN_DOM_FRAGMENT: true });
  for (const img of [...clean.querySelectorAll('img')]) {
    const alt = img.getAttribute('alt') ?? '';
    img.replaceWith(clean.ownerDocument.createTextNode(alt ? `[image: ${alt}]` : '[image]'));
  }
  clean.normalize(); // an image's text joins the text around it, as if it had been written there
  return document.importNode(clean, true);
}

function codeButton(testid: string, icon: string, title: string, onClick: () => void): HTMLButtonElement {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'icon';
  button.setAttribute('data-testid', testid);
  button.setAttribute('aria-label', title);
  button.setAttribute('title', title);
  const glyph = document.createElement('span');
  glyph.className = `codicon codicon-${icon}`;
  glyph.setAttribute('aria-hidden', 'true');
  button.append(glyph);
  button.addEventListener('click', onClick);
  return button;
}

function decorateCode(pre: HTMLPreElement, onCopy: (text: string) => void, actions?: CodeActions): void {
  const wrap = document.createElement('div');
  wrap.className = 'code-block';
  const bar = document.createElement('div');
  bar.className = 'code-actions';
  const text = (): string => (pre.textContent ?? '').replace(/\n$/, '');
  const language = /(?:^|\s)language-([\w+#.-]{1,40})/.exec(pre.querySelector('code')?.className ?? '')?.[1] ?? null;
  const copy = codeButton('chat-copy', 'copy', 'Copy code', () => onCopy(pre.textContent ?? ''));
  copy.classList.add('copy');
  bar.append(copy);
  if (actions) {
    bar.append(
      codeButton('chat-insert-code', 'insert', 'Insert at Cursor', () => actions.insert(text())),
      codeButton('chat-new-file', 'new-file', language ? `New File (${language})` : 'New File', () => actions.newFile(text(), language)),
    );
  }
  pre.replaceWith(wrap);
  wrap.append(bar, pre);
}
