/**
 * What the host sides of both webviews (the Context view in `sidebar/`, the Chat view in `chat/`)
 * share: the HTML shell under one strict Content Security Policy (nothing by default, the script
 * only with this render's nonce, styles, fonts and the script only from the extension's own files,
 * no inline styles, no remote resource) and the nonce. Each view keeps its own title and body;
 * the first checks of an incoming message are in `webviewMessage.ts` (no Node there: the webview
 * bundles import the message modules).
 */
import { randomBytes } from 'node:crypto';

/** 32 random bytes as base64url: a fresh nonce for every render, never reused. */
export function makeNonce(bytes: (n: number) => Uint8Array = randomBytes): string {
  return Buffer.from(bytes(32)).toString('base64url');
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
}

export interface PageOptions {
  cspSource: string;
  nonce: string;
  scriptUri: string;
  /** Style sheets in order (the extension's own files). */
  styleUris: readonly string[];
  title: string;
  /** The body's first element, trusted markup written by the view itself (never data). */
  body: string;
}

function attr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** The page: the policy, the style sheets, `body`, then the view's script with the nonce. */
export function webviewPage(o: PageOptions): string {
  const styles = o.styleUris.map((uri) => `<link rel="stylesheet" href="${attr(uri)}">\n`).join('');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(contentSecurityPolicy(o.cspSource, o.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${styles}<title>${attr(o.title)}</title>
</head>
<body>
${o.body}
<script nonce="${attr(o.nonce)}" src="${attr(o.scriptUri)}"></script>
</body>
</html>`;
}
