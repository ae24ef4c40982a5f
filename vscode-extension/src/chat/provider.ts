/**
 * The Chat view (`piContext.chat`): the extension host's side of a chat with Pi. The language
 * server owns the Pi process (`pi/chat/*`); this class relays between it and the webview.
 *
 * The host keeps the chat's `Transcript` (Pi's events folded), so the view can be hidden, closed
 * mid-stream or reloaded without losing a line: on `ready` the webview gets the whole transcript
 * again. After a window reload (a new server) the view finds a chat the server holds
 * (`pi/chat/list`), else starts on the session it showed last (remembered in the workspace state):
 * when that session's Pi kept working under its keeper the server takes it up, and the view
 * rebuilds the conversation from `pi/chat/messages` (Pi's messages, the reply in flight and the
 * `seq` they include), then applies the events numbered after it, so the turn goes on on screen.
 *
 * In an untrusted workspace (Restricted Mode) the view starts no Pi: it says the chat needs a trusted
 * workspace, and starts when VS Code grants trust (`onDidGrantWorkspaceTrust`).
 *
 * Every number comes from the server or from Pi: the gauge is `pi/contextBudget` on the chat's
 * session, moved by the usage Pi reports while it streams; the warning is `pi/chat/preflight`.
 * Pi's extension dialogs become quick picks, input boxes and notifications answered with
 * `pi/chat/uiResponse`.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { formatExact, formatTokens } from '../model/format';
import { nextRequestText } from '../model/nextRequest';
import type { ContextStore } from '../model/store';
import {
  type ChatCompactPreview,
  type ChatDriftParams,
  type ChatEventParams,
  type ChatExitedParams,
  type ChatForkPointsResult,
  type ChatForkResult,
  type ChatInfo,
  type ChatItemsResult,
  type ChatListResult,
  type ChatLocateResult,
  type ChatMessagesResult,
  type ChatNoticeParams,
  type ChatPreflightResult,
  type ChatPromptResult,
  type ChatQueueResult,
  type ContextBudgetResult,
  Methods,
  type NextRequestCostInfo,
  type SessionChangedParams,
  type SessionsResult,
} from '../protocol.generated';
import type { ServerManager } from '../server';
import { makeNonce } from '../sidebar/html';
import { type Completion, completionsFor, parseInput, piCompletions } from './commands';
import { type EditSides, editSides, editSidesNote, parseEditArgs } from './editDiff';
import { chatHtml } from './html';
import { type ChatHeader, type ChatHostMessage, parseChatMessage, UNTRUSTED_TEXT } from './messages';
import { type FeatureId, featureView, unavailable } from './capabilities';
import { availability, Gate } from './readiness';
import { type LiveAction, liveNotices, PI_COMMAND_SETTING, piMissingHelp, settingsCommand } from './live';
import { type ChatItem, Transcript } from './transcript';
import { gaugeView, modelHasPrices } from './usage';

export const CHAT_VIEW_ID = 'piContext.chat';
const SESSION_KEY = 'piContext.chat.session';
/** Read-only documents of the edit cards' diffs (the two sides VS Code's diff editor compares). */
const EDIT_SCHEME = 'pi-context-edit';
const MAX_EDIT_DIFFS = 50; // the sides kept for the latest edits; older ones are rebuilt when asked
const THINKING_LEVELS = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
const POST_DELAY_MS = 16; // deltas arrive faster than a frame: post the changed items once per frame
const PREFLIGHT_DELAY_MS = 250;

type Json = Record<string, unknown>;

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

/** The server's refusal when no usable Pi was found (`data.kind` from `pi/chat/start`), else null. */
function piUnavailable(error: unknown): { kind: string; installCommand?: string } | null {
  const data = typeof error === 'object' && error !== null ? (error as { data?: unknown }).data : undefined;
  if (typeof data === 'object' && data !== null && typeof (data as { kind?: unknown }).kind === 'string') {
    const { kind, installCommand } = data as { kind: string; installCommand?: unknown };
    return { kind, installCommand: typeof installCommand === 'string' ? installCommand : undefined };
  }
  return null;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private client: LanguageClient | undefined;
  private clientSubscriptions: vscode.Disposable[] = [];
  private readonly subscriptions: vscode.Disposable[] = [];

  private locate: ChatLocateResult | null = null;
  private chat: ChatInfo | null = null;
  private transcript = new Transcript();
  private budget: ContextBudgetResult | null = null;
  private piCommands: Completion[] = [];
  private status: string | null = 'Starting the pi-context server…';
  private warning: string | null = null;
  /** The preflight's `nextRequest` for the text being typed; worded at each header (the cache's state ages). */
  private price: NextRequestCostInfo | null = null;
  private compactPreview: ChatHeader['compactPreview'] = null;
  private exited: ChatHeader['exited'] = null;
  private extensionStatus = new Map<string, string>();
  /** Events held while `pi/chat/messages` is asked for a rebuild: those numbered after its `seq` follow it. */
  private heldEvents: ChatEventParams[] | null = null;
  /** Starts, resumes and forks, one at a time; a prompt waits for them (`liveChat`). */
  private readonly gate = new Gate(() => this.postHeader());
  /** An edit card's item id -> the sides of its diff, built when the edit ended (or when asked). */
  private readonly editDiffs = new Map<string, EditSides>();
  private streamingContext: boolean | undefined;

  private pendingItems = new Set<string>();
  private postTimer: NodeJS.Timeout | undefined;
  private preflightTimer: NodeJS.Timeout | undefined;
  private budgetTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly server: ServerManager,
    private readonly store: ContextStore,
    private readonly state: vscode.Memento,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscriptions.push(
      server.onDidChangeClient((client) => this.attach(client)),
      server.onSessionChanged((params) => this.onSessionChanged(params)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.postAll();
        if (this.view) {
          void this.ensureChat();
        }
      }),
      vscode.workspace.registerTextDocumentContentProvider(EDIT_SCHEME, {
        provideTextDocumentContent: (uri) => this.editDiffSide(uri),
      }),
    );
    const running = server.runningClient;
    if (running) {
      this.attach(running);
    }
  }

  // ---- the webview --------------------------------------------------------------------------

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
      void this.onMessage(raw);
    });
    view.onDidChangeVisibility(() => {
      if (view.visible) {
        this.postAll();
      }
    });
    view.onDidDispose(() => {
      if (this.view === view) {
        this.view = undefined;
      }
    });
    void this.ensureChat();
  }

  private post(message: ChatHostMessage): void {
    if (this.view?.visible) {
      void this.view.webview.postMessage(message);
    }
  }

  /** Everything again: after `ready`, a reload, or the view shown again. */
  private postAll(): void {
    this.pendingItems.clear();
    this.postHeader();
    this.post({ type: 'reset', items: this.transcript.items });
  }

  private postHeader(): void {
    const header = this.header();
    this.setStreamingContext(header.phase === 'streaming');
    this.post({ type: 'header', header });
  }

  /** `piContext.chat.streaming`: the view title's stop button shows only while Pi works. */
  private setStreamingContext(streaming: boolean): void {
    if (this.streamingContext !== streaming) {
      this.streamingContext = streaming;
      void vscode.commands.executeCommand('setContext', 'piContext.chat.streaming', streaming);
    }
  }

  /** Changed items, coalesced: a burst of deltas becomes one message per frame. */
  private changed(ids: readonly string[]): void {
    for (const id of ids) {
      this.pendingItems.add(id);
    }
    if (this.postTimer) {
      return;
    }
    this.postTimer = setTimeout(() => {
      this.postTimer = undefined;
      const ids = [...this.pendingItems];
      this.pendingItems.clear();
      const items = ids.map((id) => this.transcript.get(id));
      if (items.some((item) => item === undefined)) {
        this.post({ type: 'reset', items: this.transcript.items }); // an item went away
      } else if (items.length > 0) {
        this.post({ type: 'items', items: items as ChatItem[] });
      }
      this.postHeader();
    }, POST_DELAY_MS);
  }

  private header(): ChatHeader {
    const state = (this.chat?.state ?? {}) as Json;
    const model = state.model as Json | undefined;
    const session = this.chat?.session ?? null;
    const name = this.transcript.sessionName ?? (typeof state.sessionName === 'string' ? state.sessionName : null);
    const untrusted = !vscode.workspace.isTrusted;
    const { phase, hold } = availability({
      untrusted,
      server: this.client !== undefined,
      located: this.locate !== null,
      noPi: this.locate !== null && !this.locate.found,
      chat: this.chat !== null,
      exited: this.exited !== null,
      work: this.gate.work,
      streaming: this.transcript.streaming || this.transcript.compacting,
      status: this.status,
    });
    return {
      phase,
      status: this.status,
      hold,
      untrusted: untrusted ? UNTRUSTED_TEXT : null,
      noPi:
        this.locate && !this.locate.found
          ? {
              message: this.locate.message ?? 'Pi is not installed.',
              installCommand: this.locate.installCommand ?? 'npm install -g @earendil-works/pi-coding-agent',
              help: piMissingHelp(
                Boolean(vscode.workspace.getConfiguration('piContext').get<string>('pi.command')),
                vscode.env.remoteName !== undefined,
              ),
            }
          : null,
      live: this.exited ? [] : liveNotices(this.chat),
      session: name ?? (session ? path.basename(session, '.jsonl') : 'New session'),
      sessionTitle: session ?? 'Pi writes the session file with the first message',
      model: model ? `${String(model.provider)}/${String(model.id)}` : 'model',
      thinkingLevel: this.transcript.thinkingLevel ?? (typeof state.thinkingLevel === 'string' ? state.thinkingLevel : 'off'),
      hasPrices: modelHasPrices(model),
      gauge: gaugeView(this.budget),
      queue: this.transcript.queue,
      compacting: this.transcript.compacting,
      warning: this.warning,
      nextRequest: this.price ? nextRequestText(this.price, Date.now()) : null,
      compactPreview: this.compactPreview,
      exited: this.exited,
      completions: this.piCommands,
      extensionStatus: [...this.extensionStatus.values()],
      features: featureView(this.chat?.capabilities),
    };
  }

  /** Pi lacks `feature`: say so (the sentence names the Pi that has it) instead of sending what Pi would refuse. */
  private lacks(feature: FeatureId): boolean {
    const sentence = unavailable(featureView(this.chat?.capabilities), feature);
    if (sentence !== null) {
      this.changed([this.transcript.notice('info', sentence).id]);
    }
    return sentence !== null;
  }

  // ---- the server ---------------------------------------------------------------------------

  private attach(client: LanguageClient | undefined): void {
    for (const d of this.clientSubscriptions.splice(0)) {
      d.dispose();
    }
    this.client = client;
    if (!client) {
      if (this.chat) {
        this.transcript.exited('The pi-context server stopped, and the chat with it', false);
        this.exited = { message: 'The pi-context server stopped.', canRestart: this.chat.session !== null };
      }
      this.status = 'The pi-context server is not running.';
      this.postAll();
      return;
    }
    this.clientSubscriptions.push(
      client.onNotification(Methods.CHAT_EVENT, (p: ChatEventParams) => this.onEvent(p)),
      client.onNotification(Methods.CHAT_EXITED, (p: ChatExitedParams) => this.onExited(p)),
      client.onNotification(Methods.CHAT_NOTICE, (p: ChatNoticeParams) => this.onNotice(p)),
      client.onNotification(Methods.CHAT_DRIFT, (p: ChatDriftParams) => this.onDrift(p)),
    );
    this.status = null;
    this.locate = null;
    if (this.view) {
      void this.ensureChat();
    }
  }

  private request<R>(method: string, params: unknown): Promise<R> {
    const client = this.client;
    if (!client) {
      return Promise.reject(new Error('The pi-context server is not running.'));
    }
    return client.sendRequest<R>(method, params);
  }

  /** A chat to show: one the server holds, else the session shown last, else a new one. */
  private ensureChat(): Promise<void> {
    return this.gate.busy ? this.gate.settled() : this.begin(() => this.doEnsureChat());
  }

  /** One start at a time: a prompt sent while Pi starts waits for that start instead of starting another. */
  private begin(work: () => Promise<void>): Promise<void> {
    const run = this.gate.run('start', work);
    this.postHeader(); // data-state=starting from now on
    return run;
  }

  /** The transcript replaced (a chat taken up, a fork, a new chat): the error notices stay. */
  private replaceTranscript(next: Transcript): void {
    next.keepErrors(this.transcript);
    this.transcript = next;
  }

  private async doEnsureChat(): Promise<void> {
    if (!vscode.workspace.isTrusted || !this.client || (this.chat && !this.exited)) {
      this.postAll();
      return;
    }
    try {
      if (!this.exited) {
        const list = await this.request<ChatListResult>(Methods.CHAT_LIST, {});
        const remembered = this.state.get<string>(SESSION_KEY) ?? null;
        const held = list.chats.find((c) => c.session === remembered) ?? list.chats[0];
        if (held) {
          this.locate ??= { found: true, piVersion: held.piVersion };
          await this.adopt(held, true);
          return;
        }
        // After a window reload the session shown last may still have its Pi working under a keeper:
        // starting on it takes that Pi up, with no Pi to find first. Without a remembered session, a
        // chat of this workspace that kept running is taken up rather than left to end unseen.
        const detached = list.detached ?? [];
        const kept = remembered ? detached.find((d) => d.session === remembered) : detached.find((d) => d.busy);
        if (kept?.session) {
          // A Pi that runs is a Pi found: the view is ready once the chat is taken up.
          this.locate ??= { found: true, piVersion: kept.piVersion ?? null };
          await this.start(kept.session, true);
          return;
        }
      }
      if (!this.locate?.found) {
        // Asked again while Pi is missing: a command set or a Pi installed since is found by the next start.
        this.locate = await this.request<ChatLocateResult>(Methods.CHAT_LOCATE, {});
      }
      if (!this.locate.found) {
        this.status = null;
        this.postAll();
        return;
      }
      if (this.exited) {
        this.postAll();
        return;
      }
      await this.start(this.state.get<string>(SESSION_KEY) ?? null, true);
    } catch (e) {
      this.status = `The chat could not start: ${errorText(e)}`;
      this.postAll();
    }
  }

  /** Start Pi (resuming `session` when given). A remembered session that is gone starts a new one. */
  private async start(session: string | null, quietIfGone = false): Promise<void> {
    if (!vscode.workspace.isTrusted) {
      throw new Error(UNTRUSTED_TEXT); // New Chat, Resume, Restart: the one place every start goes through
    }
    this.status = session ? 'Starting Pi on the session…' : 'Starting Pi…';
    this.postHeader();
    let info: ChatInfo;
    try {
      try {
        info = await this.request<ChatInfo>(Methods.CHAT_START, this.startParams(session));
      } catch (e) {
        if (session && quietIfGone && !piUnavailable(e)) {
          this.log.info(`resuming ${session} failed (${errorText(e)}): starting a new chat`);
          await this.state.update(SESSION_KEY, undefined);
          info = await this.request<ChatInfo>(Methods.CHAT_START, this.startParams(null));
        } else {
          throw e;
        }
      }
    } catch (e) {
      const missing = piUnavailable(e);
      if (!missing) {
        throw e;
      }
      // No usable Pi: the view's notice says so with the setting that fixes it (not a bare error line).
      this.locate = { found: false, message: errorText(e), installCommand: missing.installCommand ?? null };
      this.status = null;
      this.postAll();
      return;
    }
    await this.adopt(info, Boolean(session));
  }

  private startParams(session: string | null): Json {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const params: Json = {};
    if (folder) {
      params.workspaceFolder = folder.uri.toString();
    }
    if (session) {
      params.session = session;
    }
    return params;
  }

  /** Show a chat the server holds: its state, its conversation so far, its commands, its budget. */
  private async adopt(info: ChatInfo, rebuild: boolean): Promise<void> {
    this.chat = info;
    if (!this.locate?.found) {
      this.locate = { found: true, piVersion: info.piVersion }; // a Pi runs: whatever was missing before is found
    }
    if (info.session) {
      this.store.followChat(info.session); // the Context view and the status bar show the chat's session
    }
    // Held from the first await on: events arriving meanwhile (a keeper replays a taken-up turn at once)
    // would go to a transcript about to be replaced, and a dialog among them would be asked twice, once
    // more from the snapshot's in-flight events. The snapshot's seq says which of them it already includes.
    this.heldEvents = rebuild ? [] : null;
    this.exited = null;
    this.compactPreview = null;
    this.warning = null;
    this.price = null;
    this.extensionStatus.clear();
    this.replaceTranscript(new Transcript());
    this.status = null;
    if (info.session) {
      try {
        await this.state.update(SESSION_KEY, info.session);
      } catch (e) {
        this.log.warn(`remembering the chat's session: ${errorText(e)}`); // the events held must still be let go
      }
    }
    const empty: ChatMessagesResult = { items: [], inFlight: [], seq: 0, inFlightTruncated: false };
    let snapshot: ChatMessagesResult | null;
    let state: ChatInfo;
    let commands: ChatItemsResult;
    try {
      [state, snapshot, commands] = await Promise.all([
        this.request<ChatInfo>(Methods.CHAT_STATE, { chatId: info.chatId }).catch(() => info),
        rebuild
          ? this.request<ChatMessagesResult>(Methods.CHAT_MESSAGES, { chatId: info.chatId }).catch(() => null)
          : Promise.resolve(empty),
        this.request<ChatItemsResult>(Methods.CHAT_COMMANDS, { chatId: info.chatId }).catch(() => ({ items: [] })),
      ]);
    } finally {
      if (this.chat !== info) {
        this.heldEvents = null;
      }
    }
    if (this.chat !== info) {
      return; // another chat was started meanwhile
    }
    const held = this.heldEvents ?? [];
    this.heldEvents = null;
    this.chat = state;
    const taken = snapshot ?? empty;
    const inFlight = taken.inFlight ?? [];
    this.replaceTranscript(Transcript.fromSnapshot(taken.items, inFlight));
    this.transcript.streaming = state.streaming;
    this.transcript.compacting = state.compacting;
    this.piCommands = piCompletions(commands.items);
    if (state.reattached && state.streaming) {
      this.transcript.notice('info', 'Pi kept working on this turn while the window reloaded.');
    }
    this.postAll();
    for (const event of inFlight) {
      if (event.type === 'extension_ui_request') {
        void this.extensionUi(event); // a dialog still waiting for an answer
      }
    }
    // What happened after the snapshot (or everything, when it could not be taken: the deltas then reopen the reply).
    for (const params of held.filter((p) => snapshot === null || (p.seq ?? 0) > (taken.seq ?? 0))) {
      this.onEvent(params);
    }
    await Promise.all([this.refreshBudget(), this.refreshEntryIds()]);
  }

  private async refreshState(): Promise<void> {
    const chat = this.chat;
    if (!chat || this.exited) {
      return;
    }
    try {
      const state = await this.request<ChatInfo>(Methods.CHAT_STATE, { chatId: chat.chatId });
      if (this.chat?.chatId === chat.chatId) {
        this.chat = state;
        if (state.session) {
          await this.state.update(SESSION_KEY, state.session);
        }
      }
    } catch (e) {
      this.log.warn(`pi/chat/state: ${errorText(e)}`);
    }
    this.postHeader();
  }

  private async refreshBudget(): Promise<void> {
    const session = this.chat?.session;
    if (!session || !(await exists(session))) {
      return; // a new session has no file until Pi writes its first message: no gauge yet
    }
    try {
      const params: Json = { session };
      if (this.chat?.workspaceFolder) {
        params.workspaceFolder = this.chat.workspaceFolder;
      }
      this.budget = await this.request<ContextBudgetResult>(Methods.CONTEXT_BUDGET, params);
    } catch (e) {
      this.log.debug(`pi/contextBudget for the chat: ${errorText(e)}`);
    }
    this.postHeader();
  }

  private scheduleBudget(): void {
    if (this.budgetTimer) {
      clearTimeout(this.budgetTimer);
    }
    this.budgetTimer = setTimeout(() => {
      this.budgetTimer = undefined;
      void this.refreshBudget();
    }, 100);
  }

  private async refreshEntryIds(): Promise<void> {
    const chat = this.chat;
    if (!chat || this.exited) {
      return;
    }
    try {
      const points = await this.request<ChatForkPointsResult>(Methods.CHAT_FORK_POINTS, { chatId: chat.chatId });
      if (this.chat === chat) {
        this.changed(this.transcript.assignEntryIds(points.messages));
      }
    } catch (e) {
      this.log.debug(`pi/chat/forkPoints: ${errorText(e)}`);
    }
  }

  private onSessionChanged(params: SessionChangedParams): void {
    if (this.chat?.session === params.session) {
      this.scheduleBudget();
    }
  }

  private onEvent(params: ChatEventParams): void {
    if (params.chatId !== this.chat?.chatId) {
      return;
    }
    if (this.heldEvents) {
      this.heldEvents.push(params); // a rebuild is being asked for: applied after it
      return;
    }
    const event = params.event;
    if (event.type === 'extension_ui_request') {
      void this.extensionUi(event);
      return;
    }
    this.changed(this.transcript.apply(event));
    if (event.type === 'tool_execution_end' && event.toolName === 'edit' && event.isError !== true) {
      void this.buildEditDiff(`t-${String(event.toolCallId)}`); // right after Pi wrote it: the reversal is exact
    }
    if (event.type === 'agent_settled' || event.type === 'compaction_end') {
      void this.refreshEntryIds();
      void this.refreshState();
      this.scheduleBudget();
      this.status = null;
    }
  }

  private onExited(params: ChatExitedParams): void {
    if (params.chatId !== this.chat?.chatId) {
      return;
    }
    const item = this.transcript.exited(params.message, params.expected);
    this.exited = { message: params.message, canRestart: Boolean(params.session) };
    if (params.session && this.chat) {
      this.chat = { ...this.chat, session: params.session };
    }
    this.changed([item.id]);
    if (!params.expected && params.stderrTail) {
      this.log.warn(`Pi exited: ${params.message}\n${params.stderrTail}`);
    }
  }

  private onNotice(params: ChatNoticeParams): void {
    if (params.chatId !== this.chat?.chatId) {
      return;
    }
    this.changed([this.transcript.notice(params.level, params.message).id]);
    if (params.kind === 'capabilities-changed') {
      void this.refreshState(); // Pi answered or emitted something that turns a feature on or off
    }
    if (params.session) {
      // The session was written back (to the same path or beside it): follow the file the chat writes now.
      void this.refreshState().then(() => this.scheduleBudget());
      void this.store.refreshSession();
    }
  }

  /** The files on disk now differ from what the chat's Pi read (or agree again): say so, with the action. */
  private onDrift(params: ChatDriftParams): void {
    if (params.chatId !== this.chat?.chatId) {
      return;
    }
    this.chat = { ...this.chat, drift: params.drift ?? null };
    this.postHeader();
    void this.store.refreshLedger(); // the Context view's banner words the same drift for the chat's session
  }

  /**
   * Reload Pi (it reads its files again on its session), Restart Pi (a new Pi on the session: a trust change), or
   * Trust Project (recorded as Pi's /trust does, then a new Pi). A new Pi is a new chat id: its conversation is
   * rebuilt from the same session.
   */
  private async liveAction(action: LiveAction): Promise<void> {
    const chat = await this.liveChat();
    if (this.transcript.streaming) {
      throw new Error('Pi is working on a reply: do this once the reply has ended (Stop ends it now).');
    }
    if (action === 'trust') {
      const folder = chat.cwd;
      const choice = await vscode.window.showWarningMessage(
        `Trust ${folder} for Pi?`,
        {
          modal: true,
          detail:
            "Pi then loads this project's .pi settings, skills, prompt files and extensions, and can run the project's " +
            "extensions. The decision is saved in Pi's trust.json, as Pi's own /trust saves it, for every later Pi.",
        },
        'Trust Project',
      );
      if (choice !== 'Trust Project') {
        return; // refused: Pi keeps leaving the project's resources out, as before
      }
    }
    const method = action === 'trust' ? Methods.CHAT_TRUST : Methods.CHAT_RELOAD;
    const said =
      action === 'reload'
        ? 'Pi read its files again: its next request uses them.'
        : action === 'trust'
          ? "The project is trusted for Pi, and Pi was restarted on this session: it loads the project's resources."
          : 'Pi was restarted on this session and read its files again.';
    const run = this.gate.run('start', async () => {
      this.status = action === 'reload' ? 'Pi is reading its files again…' : 'Restarting Pi on this session…';
      this.postHeader();
      try {
        const info = await this.request<ChatInfo>(method, { chatId: chat.chatId });
        if (info.chatId === chat.chatId) {
          this.chat = info;
        } else {
          await this.adopt(info, true);
        }
        this.changed([this.transcript.notice('info', said).id]);
      } finally {
        this.status = null;
        this.postHeader();
      }
    });
    this.postHeader();
    await run;
    this.scheduleBudget();
    void this.store.refreshSession();
  }

  /** `piContext.pi.command` changed (and reached the server): a Pi missing so far is looked for again now. */
  piCommandChanged(): void {
    if (this.locate && !this.locate.found && !this.chat) {
      this.locate = null;
      if (this.view) {
        void this.ensureChat();
      }
    }
  }

  /** The Context view's banner: the action the chat's drift names (Reload Pi, or Restart Pi for trust). */
  async reloadPi(): Promise<void> {
    await this.liveAction(this.chat?.drift?.action ?? 'reload');
  }

  /** Take back what Pi has queued: Pi no longer sends it, and the texts return to the input. */
  private async takeBackQueue(): Promise<void> {
    const chat = await this.liveChat();
    const queued = await this.request<ChatQueueResult>(Methods.CHAT_CLEAR_QUEUE, { chatId: chat.chatId });
    this.giveBack(queued);
  }

  private giveBack(queued: ChatQueueResult | null | undefined): void {
    const steering = queued?.steering ?? [];
    const followUp = queued?.followUp ?? [];
    if (steering.length + followUp.length > 0) {
      this.post({ type: 'queuedBack', steering, followUp });
    }
  }

  // ---- what the user does -------------------------------------------------------------------

  private async onMessage(raw: unknown): Promise<void> {
    const message = parseChatMessage(raw);
    if (!message) {
      this.log.warn(`ignored a malformed message from the chat view: ${JSON.stringify(raw)?.slice(0, 200)}`);
      return;
    }
    try {
      switch (message.type) {
        case 'ready':
          this.postAll();
          await this.ensureChat();
          break;
        case 'send':
          try {
            await this.send(message.text);
          } catch (e) {
            this.post({ type: 'restoreInput', text: message.text }); // a prompt not sent is not lost
            throw e;
          }
          break;
        case 'dismiss':
          if (this.transcript.dismiss(message.itemId)) {
            this.postAll();
          }
          break;
        case 'input':
          this.schedulePreflight(message.text);
          break;
        case 'abort':
          await this.abort();
          break;
        case 'fork':
          await this.fork(message.itemId);
          break;
        case 'retry':
          await this.fork(message.itemId, true);
          break;
        case 'openDiff':
          await this.openEditDiff(message.itemId);
          break;
        case 'copy':
          await vscode.env.clipboard.writeText(message.text);
          break;
        case 'manageTrust':
          await vscode.commands.executeCommand('workbench.trust.manage');
          break;
        case 'liveAction':
          await this.liveAction(message.action);
          break;
        case 'takeBackQueue':
          await this.takeBackQueue();
          break;
        case 'openPiSetting':
          // A machine setting: in a remote window (code-server too) the User tab shows "No Settings Found" for it.
          await vscode.commands.executeCommand(settingsCommand(vscode.env.remoteName !== undefined), {
            query: PI_COMMAND_SETTING,
          });
          break;
        case 'copyInstall':
          await vscode.env.clipboard.writeText(this.header().noPi?.installCommand ?? '');
          void vscode.window.showInformationMessage('The install command is on the clipboard.');
          break;
        case 'openFile':
          await this.openFile(message.path, message.line);
          break;
        case 'pickModel':
          await this.pickModel();
          break;
        case 'pickThinking':
          await this.pickThinking();
          break;
        case 'newChat':
          await this.newChat();
          break;
        case 'resume':
          await this.resume();
          break;
        case 'restart':
          await this.restart();
          break;
        case 'compactConfirm':
          await this.compact();
          break;
        case 'compactCancel':
          this.compactPreview = null;
          this.postHeader();
          break;
      }
    } catch (e) {
      this.fail(e);
    }
  }

  private fail(e: unknown): void {
    const text = errorText(e);
    this.log.info(`chat: ${text}`); // shown in the conversation; an answer the user asked for, not a fault of ours
    this.changed([this.transcript.notice('error', text).id]);
  }

  /** The chat to send to, after any start or fork going on (a prompt never lands in the middle of one). */
  private async liveChat(): Promise<ChatInfo> {
    await this.gate.settled();
    if (!this.chat || this.exited) {
      if (this.exited) {
        throw new Error('Pi has exited: restart it to resume the session.');
      }
      await this.ensureChat();
    }
    if (!this.chat) {
      const header = this.header();
      throw new Error(header.untrusted ?? header.noPi?.message ?? 'The chat has not started.');
    }
    return this.chat;
  }

  async send(text: string): Promise<void> {
    if (text.trim().length === 0) {
      return;
    }
    const input = parseInput(text);
    switch (input.kind) {
      case 'new':
        await this.newChat();
        return;
      case 'resume':
        await this.resume();
        return;
      case 'model':
        await this.pickModel();
        return;
      case 'compact':
        await this.previewCompact(input.focus);
        return;
      default:
        break;
    }
    const chat = await this.liveChat();
    this.warning = null;
    this.price = null;
    if (this.transcript.clearErrors()) {
      this.postAll(); // sending again clears the errors of the attempts before
    }
    const params: Json = { chatId: chat.chatId, text: input.text };
    if (this.transcript.streaming) {
      params.streamingBehavior = 'steer'; // Pi delivers it before its next model call
    }
    this.transcript.streaming = true;
    this.postHeader();
    try {
      const result = await this.request<ChatPromptResult>(Methods.CHAT_PROMPT, params);
      if (result.disposition === 'handled') {
        this.transcript.streaming = false; // an extension command: no run follows
        this.postHeader();
      }
    } catch (e) {
      this.transcript.streaming = false;
      this.postHeader();
      throw e;
    }
  }

  async abort(): Promise<void> {
    const chat = this.chat;
    if (!chat || this.exited || this.lacks('stop')) {
      return;
    }
    // Pi's queue is cleared first (a steering message would otherwise go with the next prompt): its texts come back.
    this.giveBack(await this.request<ChatQueueResult>(Methods.CHAT_ABORT, { chatId: chat.chatId }));
  }

  private schedulePreflight(text: string): void {
    if (this.preflightTimer) {
      clearTimeout(this.preflightTimer);
    }
    const chat = this.chat;
    if (!chat || this.exited || text.trim().length === 0 || parseInput(text).kind !== 'prompt') {
      if (this.warning !== null || this.price !== null) {
        this.warning = null;
        this.price = null;
        this.postHeader();
      }
      return;
    }
    this.preflightTimer = setTimeout(() => {
      this.preflightTimer = undefined;
      void this.request<ChatPreflightResult>(Methods.CHAT_PREFLIGHT, { chatId: chat.chatId, text })
        .then((r) => {
          // The server's sentence (past the threshold, or past the window even without compaction).
          this.warning =
            r.message ??
            (r.crossesThreshold
              ? `This prompt brings the context to about ${formatExact(r.afterPrompt)} tokens, past the compaction ` +
                `threshold (${formatExact(r.threshold)} of ${formatTokens(r.window)}).`
              : null);
          this.price = r.nextRequest ?? null;
          this.postHeader();
        })
        .catch((e: unknown) => this.log.debug(`pi/chat/preflight: ${errorText(e)}`));
    }, PREFLIGHT_DELAY_MS);
  }

  private async previewCompact(focus: string | null): Promise<void> {
    const chat = await this.liveChat();
    if (this.lacks('compact')) {
      return;
    }
    this.status = 'Reading what a compaction would keep…';
    this.postHeader();
    try {
      const preview = await this.request<ChatCompactPreview>(Methods.CHAT_COMPACT_PREVIEW, {
        chatId: chat.chatId,
        instructions: focus,
      });
      this.compactPreview = { preview, focus };
    } finally {
      this.status = null;
      this.postHeader();
    }
  }

  private async compact(): Promise<void> {
    const pending = this.compactPreview;
    const chat = await this.liveChat();
    if (!pending) {
      return;
    }
    this.compactPreview = null;
    this.postHeader();
    const failures = this.transcript.compactionFailures;
    try {
      await this.request(Methods.CHAT_COMPACT, { chatId: chat.chatId, instructions: pending.focus });
    } catch (e) {
      if (this.transcript.compactionFailures > failures) {
        this.log.info(`pi/chat/compact: ${errorText(e)} (shown once, from Pi's compaction_end)`);
        return; // Pi's compaction_end already put the failure in the conversation
      }
      throw e;
    }
  }

  /**
   * Edit (`retry` false) or retry an earlier user message: both are a fork at it (Pi continues in a new
   * session file holding the conversation before it). An edit puts the message back into the input; a
   * retry sends the same text again on the new branch.
   */
  private async fork(itemId: string, retry = false): Promise<void> {
    const chat = await this.liveChat();
    if (this.lacks('fork')) {
      return;
    }
    if (this.transcript.streaming) {
      throw new Error('Stop the reply first: a fork starts from a settled conversation.');
    }
    let item = this.transcript.get(itemId);
    if (item?.kind === 'user' && !item.entryId) {
      await this.refreshEntryIds();
      item = this.transcript.get(itemId);
    }
    if (item?.kind !== 'user' || !item.entryId) {
      throw new Error('This message has no session entry to fork from yet.');
    }
    const entryId = item.entryId;
    const text = item.text;
    // In the gate: a prompt sent while Pi forks waits and goes to the new branch, after the
    // conversation is rebuilt from it (else the rebuild would drop a prompt Pi received).
    let edit: string | null = null;
    const run = this.gate.run('fork', async () => {
      const result = await this.request<ChatForkResult>(Methods.CHAT_FORK, { chatId: chat.chatId, entryId });
      if (result.cancelled) {
        return;
      }
      const info = await this.request<ChatInfo>(Methods.CHAT_STATE, { chatId: chat.chatId });
      await this.adopt(info, true);
      const said = retry
        ? 'Retried: the message is sent again on a new branch (the earlier reply stays in the old session file).'
        : 'Forked: edit the message and send it to continue on the new branch.';
      this.changed([this.transcript.notice('info', said).id]);
      edit = result.text ?? text;
      void this.store.refreshSession(); // the Sessions tree shows the new file and its branch
    });
    this.postHeader(); // the send button says why it waits
    await run;
    if (edit !== null && retry) {
      await this.send(edit); // after the rebuild: the same text, into the new branch
    } else if (edit !== null) {
      this.post({ type: 'setInput', text: edit }); // after the gate's header: the message is back when it can be sent
    }
  }

  /** Build an edit card's diff sides from the file as it is now (`chat/editDiff.ts`) and say which they are. */
  private async buildEditDiff(itemId: string): Promise<EditSides | null> {
    const item = this.transcript.get(itemId);
    const call = item?.kind === 'tool' ? parseEditArgs(item.args) : null;
    if (item?.kind !== 'tool' || !call) {
      return null;
    }
    let current: string | null = null;
    try {
      current = await fs.readFile(this.resolvePath(call.path), 'utf8');
    } catch (e) {
      this.log.debug(`edit diff: ${errorText(e)}`);
    }
    const sides = editSides(current, call);
    this.editDiffs.delete(itemId);
    this.editDiffs.set(itemId, sides);
    for (const old of [...this.editDiffs.keys()].slice(0, Math.max(0, this.editDiffs.size - MAX_EDIT_DIFFS))) {
      this.editDiffs.delete(old);
    }
    item.diffNote = editSidesNote(sides);
    this.changed([item.id]);
    return sides;
  }

  /** An edit card's link: VS Code's diff editor on the sides built for it (rebuilt when not kept). */
  private async openEditDiff(itemId: string): Promise<void> {
    const item = this.transcript.get(itemId);
    const call = item?.kind === 'tool' ? parseEditArgs(item.args) : null;
    if (!call) {
      throw new Error('This card has no edit to show as a diff.');
    }
    const sides = this.editDiffs.get(itemId) ?? (await this.buildEditDiff(itemId));
    if (!sides) {
      return;
    }
    const name = path.basename(call.path);
    const side = (which: 'before' | 'after'): vscode.Uri =>
      vscode.Uri.from({ scheme: EDIT_SCHEME, path: `/${itemId}/${which}/${name}` });
    const title =
      sides.source === 'file'
        ? `${name}: with Pi's edit reversed ↔ now`
        : `${name}: the edit's old ↔ new text (not the whole file)`;
    await vscode.commands.executeCommand('vscode.diff', side('before'), side('after'), title);
  }

  private editDiffSide(uri: vscode.Uri): string {
    const match = /^\/([^/]+)\/(before|after)\//.exec(uri.path);
    const sides = match ? this.editDiffs.get(match[1] ?? '') : undefined;
    if (!match || !sides) {
      return '(This edit is too old to show: open its card\'s diff again.)';
    }
    return match[2] === 'before' ? sides.before : sides.after;
  }

  /** A tool's path as Pi resolves it: relative to Pi's working folder. */
  private resolvePath(file: string): string {
    const cwd = this.chat?.cwd ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    return path.isAbsolute(file) ? file : path.join(cwd ?? '', file);
  }

  /** A tool card's path, resolved against Pi's working folder; an edit opens at its first changed line. */
  private async openFile(file: string, line: number | null): Promise<void> {
    const absolute = this.resolvePath(file);
    const options: vscode.TextDocumentShowOptions = {};
    if (line !== null) {
      const at = new vscode.Position(line - 1, 0);
      options.selection = new vscode.Range(at, at);
    }
    await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(absolute), options);
  }

  async pickModel(): Promise<void> {
    const chat = await this.liveChat();
    if (this.lacks('models')) {
      return;
    }
    const models = await this.request<ChatItemsResult>(Methods.CHAT_MODELS, { chatId: chat.chatId });
    const current = this.header().model;
    const items = models.items.map((m) => {
      const id = `${String(m.provider)}/${String(m.id)}`;
      const window = typeof m.contextWindow === 'number' ? `${formatTokens(m.contextWindow)} window` : '';
      const prices = modelHasPrices(m) ? 'priced' : 'no prices';
      return {
        label: id,
        description: id === current ? 'current' : typeof m.name === 'string' && m.name !== m.id ? m.name : '',
        detail: [window, m.reasoning === true ? 'thinking' : '', prices].filter(Boolean).join(' · '),
        id,
      };
    });
    if (items.length === 0) {
      void vscode.window.showWarningMessage('Pi has no model it can use: set up a provider for Pi (its models.json or a key).');
      return;
    }
    const pick = await vscode.window.showQuickPick(items, { title: "The chat's model", placeHolder: current });
    if (!pick) {
      return;
    }
    await this.request(Methods.CHAT_SET_MODEL, { chatId: chat.chatId, model: pick.id });
    await this.refreshState();
    this.scheduleBudget();
  }

  async pickThinking(): Promise<void> {
    const chat = await this.liveChat();
    if (this.lacks('thinking')) {
      return;
    }
    const current = this.header().thinkingLevel;
    const pick = await vscode.window.showQuickPick(
      THINKING_LEVELS.map((level) => ({ label: level, description: level === current ? 'current' : '' })),
      { title: 'Thinking level', placeHolder: current },
    );
    if (!pick) {
      return;
    }
    await this.request(Methods.CHAT_SET_THINKING_LEVEL, { chatId: chat.chatId, level: pick.label });
    this.transcript.thinkingLevel = pick.label;
    await this.refreshState();
  }

  /** End this chat's Pi (the session file stays) and start a new one. */
  async newChat(): Promise<void> {
    await this.replace(null);
  }

  async resume(): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    const result = await this.request<SessionsResult>(Methods.SESSIONS, folder ? { workspaceFolder: folder.uri.toString() } : {});
    const items = result.sessions.map((s) => ({
      label: s.name ?? path.basename(s.path, '.jsonl'),
      description: s.path === this.chat?.session ? 'this chat' : new Date(s.modified * 1000).toLocaleString(),
      detail: `${s.entryCount ?? '?'} entries · ${formatExact(s.size)} bytes`,
      path: s.path,
    }));
    if (items.length === 0) {
      void vscode.window.showInformationMessage(`No Pi session in ${result.sessionsDir} yet.`);
      return;
    }
    const pick = await vscode.window.showQuickPick(items, { title: 'Resume a Pi session', matchOnDetail: true });
    if (pick && pick.path !== this.chat?.session) {
      await this.replace(pick.path);
    }
  }

  /** Restart Pi after it exited, resuming its session. */
  async restart(): Promise<void> {
    const session = this.chat?.session ?? this.state.get<string>(SESSION_KEY) ?? null;
    await this.begin(async () => {
      this.exited = null;
      this.chat = null;
      await this.start(session);
    });
  }

  private async replace(session: string | null): Promise<void> {
    if (!this.client) {
      throw new Error('The pi-context server is not running.');
    }
    const old = this.chat;
    if (old && !this.exited) {
      if (this.transcript.streaming) {
        const choice = await vscode.window.showWarningMessage(
          'Pi is still working on a reply. Stop it and leave this chat?',
          { modal: true },
          'Stop and Leave',
        );
        if (choice !== 'Stop and Leave') {
          return;
        }
      }
      this.chat = null; // its exit notice is not this view's any more
      await this.request(Methods.CHAT_STOP, { chatId: old.chatId }).catch((e: unknown) =>
        this.log.warn(`pi/chat/stop: ${errorText(e)}`),
      );
    }
    await this.begin(async () => {
      this.exited = null;
      this.budget = null;
      this.replaceTranscript(new Transcript());
      this.postAll();
      await this.start(session);
    });
  }

  /** Pi's extension dialogs as VS Code's own; the answer goes back with `pi/chat/uiResponse`. */
  private async extensionUi(request: Json): Promise<void> {
    const chat = this.chat;
    const id = typeof request.id === 'string' ? request.id : null;
    if (!chat || !id) {
      return;
    }
    const title = typeof request.title === 'string' ? request.title : 'Pi';
    const answer = (response: Json): Promise<unknown> =>
      this.request(Methods.CHAT_UI_RESPONSE, { chatId: chat.chatId, id, ...response }).catch((e: unknown) =>
        this.log.warn(`pi/chat/uiResponse: ${errorText(e)}`),
      );
    switch (request.method) {
      case 'select': {
        const options = Array.isArray(request.options) ? request.options.filter((o): o is string => typeof o === 'string') : [];
        const pick = await vscode.window.showQuickPick(options, { title, ignoreFocusOut: true });
        await answer(pick === undefined ? { cancelled: true } : { value: pick });
        break;
      }
      case 'confirm': {
        const detail = typeof request.message === 'string' ? request.message : undefined;
        const choice = await vscode.window.showInformationMessage(title, { modal: true, detail }, 'Yes', 'No');
        await answer(choice === undefined ? { cancelled: true } : { confirmed: choice === 'Yes' });
        break;
      }
      case 'input':
      case 'editor': {
        const value = await vscode.window.showInputBox({
          title,
          placeHolder: typeof request.placeholder === 'string' ? request.placeholder : undefined,
          value: typeof request.prefill === 'string' ? request.prefill : undefined,
          ignoreFocusOut: true,
        });
        await answer(value === undefined ? { cancelled: true } : { value });
        break;
      }
      case 'notify': {
        const text = typeof request.message === 'string' ? request.message : title;
        const kind = request.notifyType;
        const show =
          kind === 'error'
            ? vscode.window.showErrorMessage
            : kind === 'warning'
              ? vscode.window.showWarningMessage
              : vscode.window.showInformationMessage;
        void show(`Pi: ${text}`);
        break;
      }
      case 'setStatus': {
        const key = typeof request.statusKey === 'string' ? request.statusKey : '';
        if (typeof request.statusText === 'string' && request.statusText.length > 0) {
          this.extensionStatus.set(key, request.statusText);
        } else {
          this.extensionStatus.delete(key);
        }
        this.postHeader();
        break;
      }
      case 'set_editor_text':
        if (typeof request.text === 'string') {
          this.post({ type: 'setInput', text: request.text });
        }
        break;
      default:
        this.log.debug(`Pi extension UI ${String(request.method)} is not shown in VS Code`);
        break;
    }
  }

  /** Show the view (VS Code's generated `<view id>.focus` opens it when it was never shown). */
  reveal(): void {
    if (this.view) {
      this.view.show?.(false);
    } else {
      void vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
    }
  }

  dispose(): void {
    for (const timer of [this.postTimer, this.preflightTimer, this.budgetTimer]) {
      if (timer) {
        clearTimeout(timer);
      }
    }
    for (const d of [...this.clientSubscriptions.splice(0), ...this.subscriptions.splice(0)]) {
      d.dispose();
    }
  }
}
