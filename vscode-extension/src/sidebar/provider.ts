/**
 * The "Context" webview view: budget gauge, sections and projected request. The host posts the
 * whole view (built by the view models) whenever the store changes; the webview draws it and sends
 * back user intents, which run the extension's own commands. The view is not kept alive when hidden
 * (`retainContextWhenHidden` costs memory for no gain here): the webview restores its last view and
 * its open/closed groups from `getState` at once, and the host posts a fresh view when it is shown.
 */
import * as vscode from 'vscode';
import type { ContextStore } from '../model/store';
import { makeNonce, sidebarHtml } from './html';
import { commandFor, type HostMessage, parseWebviewMessage } from './messages';

export const VIEW_ID = 'piContext.context';

export class SidebarProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private pending = false;
  private readonly subscription: { dispose(): void };

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly store: ContextStore,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscription = store.onDidChange(() => this.schedulePost());
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    view.webview.options = { enableScripts: true, localResourceRoots: [dist, media] };
    view.webview.html = sidebarHtml({
      cspSource: view.webview.cspSource,
      nonce: makeNonce(),
      scriptUri: view.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js')).toString(),
      styleUri: view.webview.asWebviewUri(vscode.Uri.joinPath(media, 'sidebar.css')).toString(),
    });
    view.webview.onDidReceiveMessage((raw: unknown) => {
      const message = parseWebviewMessage(raw);
      if (!message) {
        this.log.warn(`ignored a malformed message from the sidebar: ${JSON.stringify(raw)?.slice(0, 200)}`);
        return;
      }
      if (message.type === 'ready') {
        this.post();
        return;
      }
      const run = commandFor(message);
      if (run) {
        void vscode.commands.executeCommand(run.command, ...run.args);
      }
    });
    view.onDidChangeVisibility(() => {
      if (view.visible) {
        this.post();
      }
    });
    view.onDidDispose(() => {
      if (this.view === view) {
        this.view = undefined;
      }
    });
  }

  /** Store changes come in bursts (several answers per refresh): post once per turn of the event loop. */
  private schedulePost(): void {
    if (this.pending) {
      return;
    }
    this.pending = true;
    setTimeout(() => {
      this.pending = false;
      this.post();
    }, 0);
  }

  private post(): void {
    if (!this.view?.visible) {
      return;
    }
    const message: HostMessage = { type: 'view', view: this.store.view() };
    void this.view.webview.postMessage(message);
  }

  reveal(): void {
    this.view?.show?.(true);
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
