/**
 * The model's Markdown to HTML text: markdown-it with `html: false`, so raw HTML in a reply is
 * escaped into visible text, and with its link check, which refuses `javascript:`, `vbscript:`,
 * `file:` and `data:` (other than images) URLs. The webview then passes the result through DOMPurify
 * with an allowlist of elements and attributes (`src/webview/chat/markdown.ts`) before it reaches the DOM.
 * No DOM here, so the first line of defence is unit-tested in Node.
 */
import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

export function markdownToHtml(source: string): string {
  return md.render(source);
}
