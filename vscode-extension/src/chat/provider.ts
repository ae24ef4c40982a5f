/**
 * The Chat view (`piContext.chat`) as VS Code sees it: a webview view provider over the chat controller
 * (`controller.ts`, which holds the chat and its state and has no VS Code import). This file only builds the
 * webview, hands its messages and visibility to the controller, follows the server and workspace trust, and
 * implements the controller's ports (`ports.ts`) with VS Code's API: quick picks, dialogs, the clipboard, the diff
 * editor on `pi-context-edit:` documents, the workspace state that remembers the session shown last, files.
 */
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as nodePath from 'node:path';
import * as vscode from 'vscode';
import type { ContextStore } from '../model/store';
import type { ServerManager } from '../server';
import { makeNonce } from '../sidebar/html';
import { ChatController } from './controller';
import { chatHtml } from './html';
import type { ChatHostMessage } from './messages';
import { type ChatUi, type ChatView, type ChatWorkspace, type MentionItem, realTimers } from './ports';

export const CHAT_VIEW_ID = 'piContext.chat';
const SESSION_KEY = 'piContext.chat.session';
/** Pi's estimate after each compaction (`compaction_end`), per session: the line keeps "about N after" across a reload. */
const COMPACTION_KEY = 'piContext.chat.compactionAfter';
/** Read-only documents of the edit cards' diffs (the two sides VS Code's diff editor compares). */
const EDIT_SCHEME = 'pi-context-edit';

/** The workspace port: trust, the first folder, the settings the view words, the remembered session, files. */
function workspacePort(state: vscode.Memento): ChatWorkspace {
  return {
    isTrusted: () => vscode.workspace.isTrusted,
    folder: () => {
      const folder = vscode.workspace.workspaceFolders?.[0];
      return folder ? { uri: folder.uri.toString(), path: folder.uri.fsPath } : null;
    },
    isRemote: () => vscode.env.remoteName !== undefined,
    piCommandSet: () => Boolean(vscode.workspace.getConfiguration('piContext').get<string>('pi.command')),
    sessionShownLast: () => state.get<string>(SESSION_KEY) ?? null,
    rememberSession: (session) => state.update(SESSION_KEY, session ?? undefined),
    compactionAfter: (session) => new Map(state.get<Record<string, [number, number][]>>(COMPACTION_KEY)?.[session] ?? []),
    rememberCompactionAfter: (session, after) => {
      const all = { ...(state.get<Record<string, [number, number][]>>(COMPACTION_KEY) ?? {}) };
      all[session] = [...after].slice(-50);
      const sessions = Object.keys(all);
      for (const old of sessions.slice(0, Math.max(0, sessions.length - 100))) {
        delete all[old]; // bounded: the last 100 sessions that compacted in this workspace
      }
      return state.update(COMPACTION_KEY, all);
    },
    readFile: (file) => fs.readFile(file, 'utf8'),
    exists: async (file) => {
      try {
        await fs.access(file);
        return true;
      } catch {
        return false;
      }
    },
    writeFile: (file, content) => fs.writeFile(file, content, 'utf8'),
    deleteFile: (file) => fs.rm(file),
    findFiles: async (query, max) => {
      // files.exclude applies (the default exclude); .gitignore through git itself, below.
      const glob = query ? `**/*${query.replace(/[[\]{}*?!]/g, '')}*` : '**/*';
      const found = await vscode.workspace.findFiles(glob, undefined, max * 3);
      const paths = found.map((u) => u.fsPath).sort((a, b) => a.length - b.length || a.localeCompare(b));
      return (await notIgnored(paths)).slice(0, max);
    },
    symbols: async (query, max) => {
      const found = await vscode.commands.executeCommand<vscode.SymbolInformation[] | undefined>(
        'vscode.executeWorkspaceSymbolProvider',
        query,
      );
      return (found ?? []).slice(0, max).map(
        (s): MentionItem => ({
          kind: 'symbol',
          label: s.name,
          detail: `${vscode.SymbolKind[s.kind] ?? 'symbol'} in ${vscode.workspace.asRelativePath(s.location.uri)}`,
          path: s.location.uri.fsPath,
          startLine: s.location.range.start.line + 1,
          endLine: s.location.range.end.line + 1,
        }),
      );
    },
    activeEditor: () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor || editor.document.uri.scheme !== 'file') {
        return null;
      }
      const sel = editor.selection;
      if (sel.isEmpty) {
        return { path: editor.document.uri.fsPath, selection: null };
      }
      // Whole lines: a selection ending at a line's start does not take that line.
      const endLine = sel.end.character === 0 && sel.end.line > sel.start.line ? sel.end.line - 1 : sel.end.line;
      const range = new vscode.Range(sel.start.line, 0, endLine, editor.document.lineAt(endLine).text.length);
      return {
        path: editor.document.uri.fsPath,
        selection: { start: sel.start.line + 1, end: endLine + 1, text: editor.document.getText(range) },
      };
    },
  };
}

/** The paths git does not ignore (`git check-ignore`); all of them outside a repository or without git. */
function notIgnored(paths: string[]): Promise<string[]> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!folder || paths.length === 0) {
    return Promise.resolve(paths);
  }
  return new Promise((resolve) => {
    const child = execFile('git', ['-C', folder, 'check-ignore', '--stdin', '-z'], { timeout: 5000 }, (error, stdout) => {
      // exit 1: none ignored; 128: not a repository (or no git): keep everything
      const code = (error as { code?: unknown } | null)?.code;
      if (error && code !== 1) {
        resolve(paths);
        return;
      }
      const ignored = new Set(stdout.split('\0').filter(Boolean).map((p) => nodePath.resolve(folder, p)));
      resolve(paths.filter((p) => !ignored.has(p)));
    });
    child.stdin?.end(paths.join('\0'));
  });
}

/** The UI port: VS Code's quick picks, modals, notifications, clipboard, commands and editors. */
function uiPort(): ChatUi {
  return {
    pick: (items, options) => vscode.window.showQuickPick(items, options),
    input: (options) => vscode.window.showInputBox({ ...options, ignoreFocusOut: true }),
    ask: (level, message, detail, ...actions) =>
      (level === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage)(
        message,
        { modal: true, detail },
        ...actions,
      ),
    notify: (level, message) => {
      const show =
        level === 'error'
          ? vscode.window.showErrorMessage
          : level === 'warning'
            ? vscode.window.showWarningMessage
            : vscode.window.showInformationMessage;
      void show(message);
    },
    copy: (text) => vscode.env.clipboard.writeText(text),
    command: (id, ...args) => vscode.commands.executeCommand(id, ...args),
    openFile: (file, line) => {
      const options: vscode.TextDocumentShowOptions = {};
      if (line !== null) {
        const at = new vscode.Position(line - 1, 0);
        options.selection = new vscode.Range(at, at);
      }
      return vscode.commands.executeCommand('vscode.open', vscode.Uri.file(file), options);
    },
    insertAtCursor: async (text) => {
      const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
      if (!editor) {
        return false;
      }
      return editor.edit((edit) => {
        for (const selection of editor.selections) {
          edit.replace(selection, text);
        }
      });
    },
    newUntitled: async (text, language) => {
      const doc = await vscode.workspace.openTextDocument({ content: text, ...(language ? { language } : {}) });
      return vscode.window.showTextDocument(doc);
    },
    openChanges: (title, files) =>
      vscode.commands.executeCommand(
        'vscode.changes',
        title,
        files.map((f) => {
          const uri = vscode.Uri.file(f.path);
          // The file's own path (so the review labels the left side with it), the record's id in the query.
          const base = vscode.Uri.from({ scheme: EDIT_SCHEME, path: uri.path, query: `base=${f.itemId}` });
          return [uri, base, uri];
        }),
      ),
    openDiff: (itemId, name, title) => {
      const side = (which: 'before' | 'after'): vscode.Uri =>
        vscode.Uri.from({ scheme: EDIT_SCHEME, path: `/${itemId}/${which}/${name}` });
      return vscode.commands.executeCommand('vscode.diff', side('before'), side('after'), title);
    },
    setStreaming: (streaming) => {
      void vscode.commands.executeCommand('setContext', 'piContext.chat.streaming', streaming);
    },
  };
}

export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly controller: ChatController;

  constructor(
    private readonly extensionUri: vscode.Uri,
    server: ServerManager,
    store: ContextStore,
    state: vscode.Memento,
    log: vscode.LogOutputChannel,
  ) {
    const resolved = (): boolean => this.view !== undefined;
    const view: ChatView = {
      get resolved(): boolean {
        return resolved();
      },
      post: (message: ChatHostMessage) => {
        if (this.view?.visible) {
          void this.view.webview.postMessage(message);
        }
      },
    };
    this.controller = new ChatController({ workspace: workspacePort(state), ui: uiPort(), view, store, timers: realTimers, log });
    this.subscriptions.push(
      server.onDidChangeClient((api) => this.controller.attach(api)),
      server.onSessionChanged((params) => this.controller.sessionChanged(params)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.controller.trustGranted()),
      vscode.workspace.registerTextDocumentContentProvider(EDIT_SCHEME, {
        provideTextDocumentContent: (uri) => this.controller.editDiffSide(uri.path, uri.query),
      }),
    );
    const running = server.runningClient;
    if (running) {
      this.controller.attach(running);
    }
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    view.webview.options = { enableScripts: true, localResourceRoots: [dist, media] };
    view.webview.html = chatHtml({
      cspSource: view.webview.cspSource,
      nonce: makeNonce(),
      scriptUri: view.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'chat.js')).toString(),
      styleUri: view.webview.asWebviewUri(vscode.Uri.joinPath(media, 'chat.css')).toString(),
      codiconUri: view.webview.asWebviewUri(vscode.Uri.joinPath(dist, 'codicons', 'codicon.css')).toString(),
    });
    view.webview.onDidReceiveMessage((raw: unknown) => {
      void this.controller.onMessage(raw);
    });
    view.onDidChangeVisibility(() => {
      if (view.visible) {
        this.controller.viewShown();
      }
    });
    view.onDidDispose(() => {
      if (this.view === view) {
        this.view = undefined;
      }
    });
    void this.controller.viewResolved();
  }

  /** "Add Current File to Chat": the active editor's file, as a chip; the chat is shown. */
  addCurrentFile(): void {
    this.controller.addCurrentFile();
    this.reveal();
  }

  /** "Add Selection to Chat": the selected lines, as a chip; the chat is shown. */
  addSelection(): void {
    this.controller.addSelection();
    this.reveal();
  }

  /** "Add File to Chat" from the explorer or an editor's tab: that file. */
  addFile(uri: vscode.Uri): void {
    this.controller.attachFile(uri.fsPath);
    this.reveal();
  }

  /** End this chat's Pi (the session file stays) and start a new one. */
  newChat(): Promise<void> {
    return this.controller.newChat();
  }

  resume(): Promise<void> {
    return this.controller.resume();
  }

  history(): Promise<void> {
    return this.controller.history();
  }

  rename(): Promise<void> {
    return this.controller.rename();
  }

  abort(): Promise<void> {
    return this.controller.abort();
  }

  /** The Context view's banner: the action the chat's drift names (Reload Pi, or Restart Pi for trust). */
  reloadPi(): Promise<void> {
    return this.controller.reloadPi();
  }

  /** `piContext.pi.command` changed (and reached the server): a Pi missing so far is looked for again now. */
  piCommandChanged(): void {
    this.controller.piCommandChanged();
  }

  /** Show the view (VS Code's generated `<view id>.focus` opens it when it was never shown). */
  reveal(): void {
    if (this.view) {
      this.view.show(false);
    } else {
      void vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
    }
  }

  dispose(): void {
    this.controller.dispose();
    for (const d of this.subscriptions.splice(0)) {
      d.dispose();
    }
  }
}
