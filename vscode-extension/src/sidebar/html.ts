/**
 * The sidebar's HTML shell (the page and its policy: `../webviewShell.ts`). The content is drawn by
 * `dist/webview.js` from posted view data.
 */
import { webviewPage } from '../webviewShell';

export { contentSecurityPolicy, makeNonce } from '../webviewShell';

export interface ShellOptions {
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
}

export function sidebarHtml(o: ShellOptions): string {
  return webviewPage({
    cspSource: o.cspSource,
    nonce: o.nonce,
    scriptUri: o.scriptUri,
    styleUris: [o.styleUri],
    title: 'Pi Context',
    body: '<main id="app" aria-live="polite" aria-busy="true"><p class="muted">Starting the pi-context server…</p></main>',
  });
}
