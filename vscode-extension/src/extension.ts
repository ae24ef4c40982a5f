/**
 * Pi Context for VS Code: a thin client of the pi-context language server. It finds the Python,
 * starts the server, forwards settings and renders what the server computes (diagnostics and quick
 * fixes come straight from LSP; the sidebar, status bar and commands use the custom `pi/*` methods).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { registerCommands } from './commands';
import { onPythonInterpreterChange } from './interpreter';
import { isEstimateChoice } from './model/estimate';
import { CLIENT_ONLY_KEYS, needsRestart } from './model/settings';
import { ContextStore } from './model/store';
import { ServerManager } from './server';
import { SESSIONS_VIEW_ID, SessionsProvider } from './sessions/provider';
import { SidebarProvider, VIEW_ID } from './sidebar/provider';
import { BudgetStatusBar } from './statusBar';
import { SCHEME, VirtualDocuments } from './virtualDocuments';

const SESSION_KEY = 'piContext.session';
const ESTIMATE_KEY = 'piContext.estimate';

let manager: ServerManager | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel('Pi Context', { log: true });
  const store = new ContextStore();
  const folder = (): vscode.WorkspaceFolder | undefined => vscode.workspace.workspaceFolders?.[0];
  const first = folder();
  store.setFolder(first ? first.uri.toString() : null, first ? first.name : null);

  const saved = context.workspaceState.get<{ path: string | null }>(SESSION_KEY);
  if (saved) {
    store.session = saved.path;
    store.sessionPinned = true;
  }
  const estimate = context.workspaceState.get<unknown>(ESTIMATE_KEY);
  if (isEstimateChoice(estimate)) {
    store.choice = estimate;
  }
  const remember = (): void => {
    if (store.sessionPinned) {
      void context.workspaceState.update(SESSION_KEY, { path: store.session ?? null });
    }
    void context.workspaceState.update(ESTIMATE_KEY, store.choice);
  };

  const docs = new VirtualDocuments(store);
  const server = new ServerManager(log, store, folder, context);
  manager = server;
  const sidebar = new SidebarProvider(context.extensionUri, store, log);
  const sessions = new SessionsProvider(store);
  const statusBar = new BudgetStatusBar(store);
  const watcher = new SessionWatcher(store);

  context.subscriptions.push(
    log,
    docs,
    server,
    sidebar,
    sessions,
    statusBar,
    watcher,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, docs),
    vscode.window.registerWebviewViewProvider(VIEW_ID, sidebar),
    vscode.window.createTreeView(SESSIONS_VIEW_ID, { treeDataProvider: sessions, showCollapseAll: true }),
    ...registerCommands({ store, server, docs, sidebar, log, remember }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('piContext')) {
        return;
      }
      statusBar.update();
      if (needsRestart((key) => e.affectsConfiguration(`piContext.${key}`))) {
        log.info('interpreter or install source changed: restarting the server');
        void server.restart();
        return;
      }
      const clientOnly = CLIENT_ONLY_KEYS.every((key) => !e.affectsConfiguration(`piContext.${key}`));
      void server.pushSettings().then(async () => {
        if (clientOnly || !e.affectsConfiguration('piContext.statusBar')) {
          await store.refreshAll();
        }
      });
    }),
  );
  const pythonChange = await onPythonInterpreterChange(() => {
    if (server.interpreter?.source === 'python-extension') {
      log.info("the Python extension's interpreter changed: restarting the server");
      void server.restart();
    }
  });
  if (pythonChange) {
    context.subscriptions.push(pythonChange);
  }

  // Not awaited: VS Code shows the views only once activate() returns, and the first start can take
  // seconds; the views show the start's progress instead of staying blank.
  void server.start();
}

export async function deactivate(): Promise<void> {
  await manager?.stop();
}

/**
 * Refreshes the session-dependent views when Pi appends to the current session or starts a new one.
 * Sessions live outside the workspace (`~/.pi/agent/sessions/...`), so the watch is on their folder.
 */
class SessionWatcher implements vscode.Disposable {
  private watchers: vscode.FileSystemWatcher[] = [];
  private watchedKey = '';
  private timer: NodeJS.Timeout | undefined;
  private readonly subscription: { dispose(): void };

  constructor(private readonly store: ContextStore) {
    this.subscription = store.onDidChange(() => this.update());
  }

  private update(): void {
    const dirs = new Set<string>();
    if (this.store.sessions?.sessionsDir) {
      dirs.add(this.store.sessions.sessionsDir);
    }
    if (this.store.session) {
      dirs.add(path.dirname(this.store.session));
    }
    const key = [...dirs].sort().join('\n');
    if (key === this.watchedKey) {
      return;
    }
    this.watchedKey = key;
    this.disposeWatchers();
    for (const dir of dirs) {
      const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dir), '*.jsonl'));
      const changed = (uri: vscode.Uri): void => {
        if (uri.fsPath === this.store.session || !this.store.sessionPinned) {
          this.schedule();
        }
      };
      w.onDidChange(changed);
      w.onDidCreate(() => this.schedule());
      w.onDidDelete(() => this.schedule());
      this.watchers.push(w);
    }
  }

  /** Pi writes a session line by line: wait for a quiet moment, then refresh once. */
  private schedule(): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.store.refreshSession();
    }, 500);
  }

  private disposeWatchers(): void {
    for (const w of this.watchers.splice(0)) {
      w.dispose();
    }
  }

  dispose(): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.disposeWatchers();
    this.subscription.dispose();
  }
}
