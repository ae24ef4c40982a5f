/**
 * The Usage panel (command `piContext.showUsage`): usage and cost across every Pi session, from
 * `pi/usage`, grouped as the user picks (day, week, month, project, model, session) over a range
 * (everything, the last 30 or 7 days), with a chart per day and the cache share. One panel at a time;
 * it asks again when the server says a session changed (debounced: the server reads only what Pi
 * appended) and when it becomes visible.
 */
import * as vscode from 'vscode';
import { rangeSince, type UsageGroupBy, type UsageRange, usageView } from '../model/usage';
import type { UsageParams, UsageResult } from '../protocol.generated';
import { makeNonce, webviewPage } from '../webviewShell';
import { parseUsageMessage, type UsageHostMessage } from './messages';

export const USAGE_PANEL = 'piContext.usage';
const REFRESH_DELAY_MS = 2000;

export interface UsageSource {
  /** `pi/usage`, or null when no server is running (or it has no such method). */
  usage(params: UsageParams): Promise<UsageResult> | null;
  /** Fires when a session appeared, grew or went. */
  onSessionChanged(listener: () => void): vscode.Disposable;
}

/** Today as `YYYY-MM-DD` in the editor's time zone. */
function today(): string {
  const now = new Date();
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

export class UsagePanel implements vscode.Disposable {
  private static current: UsagePanel | undefined;
  private by: UsageGroupBy = 'day';
  private range: UsageRange = '30';
  private timer: ReturnType<typeof setTimeout> | undefined;
  private asked = 0;
  private readonly disposables: vscode.Disposable[] = [];

  static show(extensionUri: vscode.Uri, source: UsageSource, log: vscode.LogOutputChannel): void {
    if (UsagePanel.current) {
      UsagePanel.current.panel.reveal();
      void UsagePanel.current.refresh();
      return;
    }
    const dist = vscode.Uri.joinPath(extensionUri, 'dist');
    const media = vscode.Uri.joinPath(extensionUri, 'media');
    const panel = vscode.window.createWebviewPanel(USAGE_PANEL, 'Pi Usage', vscode.ViewColumn.Active, {
      enableScripts: true,
      localResourceRoots: [dist, media],
    });
    UsagePanel.current = new UsagePanel(panel, source, log, dist, media);
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly source: UsageSource,
    private readonly log: vscode.LogOutputChannel,
    dist: vscode.Uri,
    media: vscode.Uri,
  ) {
    const webview = panel.webview;
    webview.html = webviewPage({
      cspSource: webview.cspSource,
      nonce: makeNonce(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'usage.js')).toString(),
      styleUris: [webview.asWebviewUri(vscode.Uri.joinPath(media, 'usage.css')).toString()],
      title: 'Pi Usage',
      body: '<main id="usage" data-testid="usage-panel"></main>',
    });
    this.disposables.push(
      webview.onDidReceiveMessage((raw: unknown) => {
        const message = parseUsageMessage(raw);
        if (!message) {
          this.log.warn(`ignored a malformed message from the Usage panel: ${JSON.stringify(raw)?.slice(0, 200)}`);
          return;
        }
        if (message.type === 'group') {
          this.by = message.by;
        } else if (message.type === 'range') {
          this.range = message.range;
        }
        void this.refresh();
      }),
      panel.onDidChangeViewState(() => {
        if (panel.visible) {
          void this.refresh();
        }
      }),
      source.onSessionChanged(() => this.scheduleRefresh()),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  private scheduleRefresh(): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.panel.visible) {
        void this.refresh();
      }
    }, REFRESH_DELAY_MS);
  }

  private post(message: UsageHostMessage): void {
    void this.panel.webview.postMessage(message);
  }

  async refresh(): Promise<void> {
    const ask = ++this.asked;
    const params: UsageParams = {
      by: this.by,
      since: rangeSince(this.range, today()),
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    };
    const pending = this.source.usage(params);
    if (!pending) {
      this.post({ type: 'status', message: 'The pi-context server is not running.', loading: false });
      return;
    }
    this.post({ type: 'status', message: 'Reading the sessions…', loading: true });
    try {
      const result = await pending;
      if (ask === this.asked) {
        this.post({ type: 'view', view: usageView(result, this.range), loading: false });
      }
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      this.log.error(`pi/usage: ${text}`);
      if (ask === this.asked) {
        this.post({ type: 'status', message: `Usage could not be read: ${text}`, loading: false });
      }
    }
  }

  dispose(): void {
    if (UsagePanel.current === this) {
      UsagePanel.current = undefined;
    }
    if (this.timer) {
      clearTimeout(this.timer);
    }
    for (const disposable of this.disposables.splice(0)) {
      disposable.dispose();
    }
    this.panel.dispose();
  }
}
