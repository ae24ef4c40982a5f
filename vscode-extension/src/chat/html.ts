/**
 * The Chat view's HTML shell, under the same strict Content Security Policy as the Context view
 * (nothing by default; the script only with this render's nonce; styles, the codicon font and the
 * script only from the extension's own files; no remote resource, so an image the model links to
 * is never fetched). Everything else is drawn by `dist/chat.js`.
 */
import { contentSecurityPolicy } from '../sidebar/html';

export interface ChatShellOptions {
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
  codiconUri: string;
}

export function chatHtml(o: ChatShellOptions): string {
  const attr = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(contentSecurityPolicy(o.cspSource, o.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(o.codiconUri)}">
<link rel="stylesheet" href="${attr(o.styleUri)}">
<title>Pi Chat</title>
</head>
<body>
<div id="chat" data-testid="chat-root" data-state="starting" aria-busy="true"><p class="muted">Starting the chat…</p></div>
<script nonce="${attr(o.nonce)}" src="${attr(o.scriptUri)}"></script>
</body>
</html>`;
}
