/**
 * Pi Context for VS Code: a thin client of the pi-context language server. It finds the Python,
 * starts the server, forwards settings and renders what the server computes (diagnostics and quick
 * fixes come straight from LSP; the sidebar, status bar and commands use the custom `pi/*` methods).
 * It watches no files itself: the server follows the session folders and sends `pi/sessionChanged`
 * when a session appears, grows or goes, and after a chat writes (`ContextStore.onSessionChanged`).
 */
import * as vscode from 'vscode';
import { CHAT_VIEW_ID, ChatViewProvider } from './chat/provider';
import { registerCommands } from './commands';
import { onPythonInterpreterChange, workspaceFolderPathSettings } from './interpreter';
import { isEstimateChoice } from './model/estimate';
import { CLIENT_ONLY_KEYS, needsRestart } from './model/settings';
import { sessionLabel } from './model/sessionTree';
import type { SessionSummary } from './protocol.generated';
import { ContextStore } from './model/store';
import { ServerManager } from './server';
import { SESSIONS_VIEW_ID, SessionsProvider } from './sessions/provider';
import { SidebarProvider, VIEW_ID } from './sidebar/provider';
import { BudgetStatusBar } from './statusBar';
import { UsagePanel } from './usage/panel';
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
  const chat = new ChatViewProvider(context.extensionUri, server, store, context.workspaceState, log);

  context.subscriptions.push(
    log,
    docs,
    server,
    sidebar,
    sessions,
    statusBar,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, docs),
    vscode.window.registerWebviewViewProvider(VIEW_ID, sidebar),
    chat,
    // The chat's transcript lives in the host: a hidden view needs no live webview.
    vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, chat),
    ...registerChatCommands(chat),
    vscode.commands.registerCommand('piContext.sessions.rename', (item?: { type?: string; summary?: SessionSummary }) =>
      renameSession(server, store, item?.summary),
    ),
    vscode.window.createTreeView(SESSIONS_VIEW_ID, { treeDataProvider: sessions, showCollapseAll: true }),
    ...registerCommands({ store, server, docs, sidebar, log, remember }),
    vscode.commands.registerCommand('piContext.showUsage', () =>
      UsagePanel.show(context.extensionUri, { usage: (p) => store.usage(p), onSessionChanged: (l) => store.onAnySessionChanged(l) }, log),
    ),
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
        if (e.affectsConfiguration('piContext.pi.command')) {
          chat.piCommandChanged(); // no restart: the chat looks for Pi again with the new command
        }
        if (clientOnly || !e.affectsConfiguration('piContext.statusBar')) {
          await store.refreshAll();
        }
      });
    }),
    // Path settings naming ${workspaceFolder} count as empty in Restricted Mode (interpreter.ts): now they count.
    // (The chat starts by itself: ChatViewProvider listens too.)
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      const paths = workspaceFolderPathSettings(folder());
      if (paths.length > 0) {
        log.info(`the workspace is trusted now: restarting the server with ${paths.join(', ')} expanded`);
        void server.restart();
      }
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

/** The Chat view's commands (also buttons in its title bar). */
function registerChatCommands(chat: ChatViewProvider): vscode.Disposable[] {
  const run = (work: (arg?: unknown) => Promise<void>) => async (arg?: unknown): Promise<void> => {
    chat.reveal();
    try {
      await work(arg);
    } catch (e) {
      void vscode.window.showErrorMessage(`Pi Chat: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  return [
    vscode.commands.registerCommand('piContext.chat.new', run(() => chat.newChat())),
    vscode.commands.registerCommand('piContext.chat.resume', run(() => chat.resume())),
    vscode.commands.registerCommand('piContext.chat.history', run(() => chat.history())),
    vscode.commands.registerCommand('piContext.chat.rename', run(() => chat.rename())),
    vscode.commands.registerCommand('piContext.chat.stop', run(() => chat.abort())),
    vscode.commands.registerCommand('piContext.chat.reload', run(() => chat.reloadPi())),
    // From the palette or the editor's context menu: the active editor's file; from a tab or the explorer: that file.
    vscode.commands.registerCommand(
      'piContext.chat.addFile',
      run((uri?: unknown) => {
        if (uri instanceof vscode.Uri && uri.scheme === 'file') {
          chat.addFile(uri);
        } else {
          chat.addCurrentFile();
        }
        return Promise.resolve();
      }),
    ),
    vscode.commands.registerCommand(
      'piContext.chat.addSelection',
      run(() => {
        chat.addSelection();
        return Promise.resolve();
      }),
    ),
  ];
}

/** Rename Session on a Sessions view row: Pi writes the name when a chat holds the session (`pi/sessionRename`). */
async function renameSession(server: ServerManager, store: ContextStore, summary: SessionSummary | undefined): Promise<void> {
  const api = server.runningClient;
  if (!summary || !api) {
    return;
  }
  const name = await vscode.window.showInputBox({ title: 'Rename the session', value: sessionLabel(summary), ignoreFocusOut: true });
  if (name === undefined || name.trim() === '') {
    return;
  }
  try {
    await api.sessionRename({ session: summary.path, name });
    await store.refreshSession();
  } catch (e) {
    void vscode.window.showErrorMessage(`Pi Context: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export async function deactivate(): Promise<void> {
  await manager?.stop();
}
