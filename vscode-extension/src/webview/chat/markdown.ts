/**
 * The model's Markdown as DOM, sanitized twice. markdown-it runs with `html: false`
 * (`src/chat/markdown.ts`), so raw HTML in a reply is escaped into text, and its link check refuses
 * `javascript:`, `vbscript:`, `file:` and `data:` URLs. Its output is then parsed in an inert `<template>` (nothing in it runs or
 * loads) and rebuilt from an allowlist of elements and attributes: only http(s) and mailto links
 * stay, images become their alt text (the CSP would block a remote image anyway), and no `style`,
 * `on*` or other attribute survives. Code blocks get a copy button. `test/chatSanitizer.test.ts` feeds
 * hostile model text to both layers in a real DOM (jsdom, scripts enabled) and checks what survives.
 */
import { markdownToHtml } from '../../chat/markdown';

const ALLOWED = new Set([
  'P', 'BR', 'HR', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'STRONG', 'EM', 'S', 'DEL', 'CODE', 'PRE', 'BLOCKQUOTE',
  'UL', 'OL', 'LI', 'A', 'TABLE', 'THEAD', 'TBODY', 'TR', 'TH', 'TD', 'SPAN',
]);
const SAFE_LINK = /^(https?:|mailto:)/i;

export function renderMarkdown(source: string, onCopy: (text: string) => void): DocumentFragment {
  const out = sanitizeHtml(markdownToHtml(source));
  for (const pre of [...out.querySelectorAll('pre')]) {
    decorateCode(pre, onCopy);
  }
  return out;
}

/**
 * Any HTML text rebuilt from the allowlist, through an inert `<template>`: the second line of
 * defence, which holds even if HTML reached it unescaped (tested with raw hostile HTML in jsdom).
 */
export function sanitizeHtml(html: string): DocumentFragment {
  const template = document.createElement('template');
  template.innerHTML = html;
  const out = document.createDocumentFragment();
  for (const node of [...template.content.childNodes]) {
    const clean = sanitize(node);
    if (clean) {
      out.append(clean);
    }
  }
  return out;
}

function sanitize(node: Node): Node | null {
  if (node.nodeType === Node.TEXT_NODE) {
    return document.createTextNode(node.textContent ?? '');
  }
  if (node.nodeType !== Node.ELEMENT_NODE) {
    return null;
  }
  const el = node as Element;
  if (el.tagName === 'IMG') {
    const alt = el.getAttribute('alt') ?? '';
    return document.createTextNode(alt ? `[image: ${alt}]` : '[image]');
  }
  const children = [...el.childNodes].map(sanitize).filter((c): c is Node => c !== null);
  if (!ALLOWED.has(el.tagName)) {
    const fragment = document.createDocumentFragment();
    fragment.append(...children);
    return fragment;
  }
  const copy = document.createElement(el.tagName.toLowerCase());
  if (el.tagName === 'A') {
    const href = el.getAttribute('href') ?? '';
    if (SAFE_LINK.test(href)) {
      copy.setAttribute('href', href);
      copy.setAttribute('title', href);
    }
  } else if (el.tagName === 'CODE') {
    const lang = /^language-[\w+-]{1,40}$/.exec(el.getAttribute('class') ?? '');
    if (lang) {
      copy.setAttribute('class', lang[0]);
    }
  } else if (el.tagName === 'OL') {
    const start = el.getAttribute('start');
    if (start && /^\d{1,9}$/.test(start)) {
      copy.setAttribute('start', start);
    }
  }
  copy.append(...children);
  return copy;
}

function decorateCode(pre: HTMLPreElement, onCopy: (text: string) => void): void {
  const wrap = document.createElement('div');
  wrap.className = 'code-block';
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'icon copy';
  button.setAttribute('data-testid', 'chat-copy');
  button.setAttribute('aria-label', 'Copy code');
  button.setAttribute('title', 'Copy code');
  const icon = document.createElement('span');
  icon.className = 'codicon codicon-copy';
  icon.setAttribute('aria-hidden', 'true');
  button.append(icon);
  button.addEventListener('click', () => onCopy(pre.textContent ?? ''));
  pre.replaceWith(wrap);
  wrap.append(button, pre);
}
