/**
 * What the chat controller (`controller.ts`) needs from outside itself, as small interfaces: the VS Code side
 * (workspace trust and folder, the workspace state, files, quick picks, dialogs, the diff editor, commands), the
 * webview it posts to, timers and the log. `provider.ts` implements them with VS Code's API; the tests
 * (`test/chatController.test.ts`) with a fake of that API boundary. The server is the typed client itself
 * (`client.generated.ts`), over a real or a recorded transport. No VS Code import here.
 */
import type { ContextStore } from '../model/store';
import type { ChatHostMessage } from './messages';

/** The workspace as the chat sees it. */
export interface ChatWorkspace {
  /** Workspace trust (Restricted Mode: false): no Pi starts before it is granted. */
  isTrusted(): boolean;
  /** The first workspace folder: its URI (sent to the server) and its path (Pi's working folder when the chat has none). */
  folder(): { uri: string; path: string } | null;
  /** A remote window (code-server too): machine settings live under the Settings editor's Remote tab. */
  isRemote(): boolean;
  /** `piContext.pi.command` has a value. */
  piCommandSet(): boolean;
  /** The session the view showed last (workspace state), and remembering one (`null`: forget it). */
  sessionShownLast(): string | null;
  rememberSession(session: string | null): PromiseLike<void>;
  /** Pi's estimate after each compaction of a session, by tokens before (workspace state: it outlives a reload). */
  compactionAfter(session: string): ReadonlyMap<number, number>;
  rememberCompactionAfter(session: string, after: ReadonlyMap<number, number>): PromiseLike<void>;
  readFile(path: string): Promise<string>;
  exists(path: string): Promise<boolean>;
  /** Undo of a tool card: put a file's content back, or remove a file a write created. */
  writeFile(path: string, content: string): Promise<void>;
  deleteFile(path: string): Promise<void>;
  /** `@` completion: workspace files whose path contains `query` (files.exclude and .gitignore respected), at most `max`. */
  findFiles(query: string, max: number): Promise<string[]>;
  /** `@` completion: the workspace's symbols (`vscode.executeWorkspaceSymbolProvider`), at most `max`. */
  symbols(query: string, max: number): Promise<MentionItem[]>;
  /** The active editor's file and its selection (1-based lines, the editor's text), for Add File / Add Selection. */
  activeEditor(): { path: string; selection: { start: number; end: number; text: string } | null } | null;
}

/** One `@` completion: a file, or a symbol (attached as the lines of its range). */
export interface MentionItem {
  kind: 'file' | 'symbol';
  label: string;
  detail: string;
  path: string;
  startLine: number | null;
  endLine: number | null;
}

export interface PickItem {
  label: string;
  description?: string;
  detail?: string;
}

/** VS Code's UI, as much of it as the chat uses. */
export interface ChatUi {
  pick<T extends PickItem>(
    items: readonly T[],
    options: { title: string; placeHolder?: string; matchOnDescription?: boolean; matchOnDetail?: boolean; ignoreFocusOut?: boolean },
  ): PromiseLike<T | undefined>;
  input(options: { title: string; placeHolder?: string; value?: string }): PromiseLike<string | undefined>;
  /** A modal question with its buttons; the one chosen, undefined when dismissed. */
  ask(level: 'info' | 'warning', message: string, detail: string | undefined, ...actions: string[]): PromiseLike<string | undefined>;
  /** A notification, not waited for. */
  notify(level: 'info' | 'warning' | 'error', message: string): void;
  copy(text: string): PromiseLike<void>;
  /** A VS Code command (`workbench.trust.manage`, the settings editor). */
  command(id: string, ...args: unknown[]): PromiseLike<unknown>;
  /** A file in an editor, at a line (1-based) when given. */
  openFile(path: string, line: number | null): PromiseLike<unknown>;
  /** VS Code's diff editor on an edit card's two sides (`EditDiffs.side` answers their documents). */
  openDiff(itemId: string, name: string, title: string): PromiseLike<unknown>;
  /** A code block of a reply into the active editor at its cursor; false when no editor is open. */
  insertAtCursor(text: string): PromiseLike<boolean>;
  /** A code block of a reply as a new untitled document in its language. */
  newUntitled(text: string, language: string | null): PromiseLike<unknown>;
  /** VS Code's multi-file diff (`vscode.changes`): each file before the turn (`itemId`'s base document) ↔ now. */
  openChanges(title: string, files: { path: string; itemId: string }[]): PromiseLike<unknown>;
  /** `piContext.chat.streaming`: the view title's stop button shows only while Pi works. */
  setStreaming(streaming: boolean): void;
}

/** The Chat webview: whether it was ever shown (`resolveWebviewView`), and a post that reaches it only while visible. */
export interface ChatView {
  readonly resolved: boolean;
  post(message: ChatHostMessage): void;
}

/** Timers (a test runs them by hand) and the clock the next request's price is worded against. */
export interface Timers {
  set(run: () => void, ms: number): unknown;
  clear(handle: unknown): void;
  now(): number;
}

export interface ChatLog {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
}

/**
 * The Context view's store: it follows the chat's session and asks again when the chat wrote; its list of sessions
 * (`pi/sessions`) gives the chat's title the same words as the Sessions view and the Context view.
 */
export type ChatStore = Pick<ContextStore, 'followChat' | 'refreshSession' | 'refreshLedger' | 'sessions'>;

export const realTimers: Timers = {
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  now: () => Date.now(),
};
