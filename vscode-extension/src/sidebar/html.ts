/**
 * The sidebar's HTML shell: a strict Content Security Policy (nothing by default, scripts only with
 * this render's nonce, styles and the script only from the extension's own files), no inline styles,
 * no remote resources. The content is drawn by `dist/webview.js` from posted view data.
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

export interface ShellOptions {
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
}

export function sidebarHtml(o: ShellOptions): string {
  const attr = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(contentSecurityPolicy(o.cspSource, o.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(o.styleUri)}">
<title>Pi Context</title>
</head>
<body>
<main id="app" aria-live="polite" aria-busy="true"><p class="muted">Starting the pi-context server…</p></main>
<script nonce="${attr(o.nonce)}" src="${attr(o.scriptUri)}"></script>
</body>
</html>`;
}
