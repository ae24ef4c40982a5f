/**
 * The Chat view's HTML shell, under the same strict Content Security Policy as the Context view
 * (`../webviewShell.ts`: nothing by default; the script only with this render's nonce; styles, the
 * codicon font and the script only from the extension's own files; no remote resource, so an image
 * the model links to is never fetched). Everything else is drawn by `dist/chat.js`.
 */
import { webviewPage } from '../webviewShell';

export interface ChatShellOptions {
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
  codiconUri: string;
}

export function chatHtml(o: ChatShellOptions): string {
  return webviewPage({
    cspSource: o.cspSource,
    nonce: o.nonce,
    scriptUri: o.scriptUri,
    styleUris: [o.codiconUri, o.styleUri],
    title: 'Pi Chat',
    body: '<div id="chat" data-testid="chat-root" data-state="starting" aria-busy="true"><p class="muted">Starting the chat…</p></div>',
  });
}
