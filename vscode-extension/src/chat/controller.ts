/**
 * The chat with Pi on the extension host's side, without VS Code: `provider.ts` is a thin webview provider over
 * it, and `test/chatController.test.ts` drives it with Pi's recorded event streams and the server's recorded
 * answers. The language server owns the Pi process (`pi/chat/*`, through the typed client); this controller
 * relays between it and the webview and keeps the chat's state in one place:
 *
 * - where the chat is (`ChatLifecycle`: server, Pi found or missing, the chat shown, its exit), and the gate that
 *   runs starts and forks one at a time, prompts waiting behind them (`readiness.ts`);
 * - the transcript (Pi's events folded, `transcript.ts`): it outlives the webview, so the view can be hidden,
 *   closed mid-stream or reloaded without losing a line (on `ready` it gets the whole transcript again);
 * - what the view shows beside it: the gauge (`pi/contextBudget` on the chat's session, moved by the usage Pi
 *   reports while it streams), the preflight's warning and price, the compaction preview, Pi's commands and
 *   extension status, the drift and trust notices (`live.ts`).
 *
 * After a window reload (a new server) the view finds a chat the server holds (`pi/chat/list`), else starts on the
 * session it showed last: when that session's Pi kept working under its keeper the server takes it up, and the
 * view rebuilds the conversation from `pi/chat/messages` (Pi's messages, the reply in flight and the `seq` they
 * include), then applies the events numbered after it, so the turn goes on on screen.
 *
 * In an untrusted workspace (Restricted Mode) no Pi starts: the view says the chat needs a trusted workspace, and
 * starts when trust is granted (`trustGranted`). Side effects go through the ports (`ports.ts`); Pi's dialogs
 * through `dialogs.ts`; an edit card's diff sides through `EditDiffs`. A feature is a method here and, when it
 * holds state of its own, a module beside this one.
 */
import * as path from 'node:path';
import type { PiContextClient, Disposable } from '../client.generated';
import { errorText } from '../errorText';
import { nextRequestText } from '../model/nextRequest';
import { sessionTitle } from '../model/sessionTitle';
import type {
  ChatDriftParams,
  ChatEventParams,
  ChatExitedParams,
  ChatInfo,
  ChatItemsResult,
  ChatMessagesResult,
  ChatNoticeParams,
  ChatQueueResult,
  ChatStartParams,
  ContextBudgetParams,
  ContextBudgetResult,
  NextRequestCostInfo,
  SessionChangedParams,
} from '../protocol.generated';
import { addsLine, Attachments, splitFileBlocks } from './attachments';
import { type FeatureId, featureView, unavailable } from './capabilities';
import { type Completion, parseInput, piCompletions } from './commands';
import { showDialog } from './dialogs';
import { EditDiffs, type EditSides, editDiffTitle, editSides, editSidesNote, parseEditArgs } from './editDiff';
import { lensView } from './lens';
import { ChatLifecycle } from './lifecycle';
import { type LiveAction, liveNotices, PI_COMMAND_SETTING, piMissingHelp, settingsCommand } from './live';
import { type ChatHeader, type ChatWebviewMessage, parseChatMessage, UNTRUSTED_TEXT } from './messages';
import { ChatOutbox } from './outbox';
import { modelItems, sessionItems, thinkingItems } from './pickers';
import type { ChatLog, ChatStore, ChatUi, ChatView, ChatWorkspace, Timers } from './ports';
import { Preflight } from './preflight';
import { Gate } from './readiness';
import { Transcript } from './transcript';
import { turnChanges, type TurnTool, undoDecision, type UndoRecord } from './undo';
import { gaugeView, modelHasPrices } from './replyUsage';

export const BUDGET_DELAY_MS = 100;
/** The edit and write cards Undo and Review remember (the newest): each record holds a file's content twice. */
export const MAX_UNDO = 50;
export const SERVER_NOT_RUNNING = 'The pi-context server is not running.';
const DEFAULT_INSTALL = 'npm install -g @earendil-works/pi-coding-agent';

type Json = Record<string, unknown>;

/** The server's refusal when no usable Pi was found (`data.kind` from `pi/chat/start`), else null. */
export function piUnavailable(error: unknown): { kind: string; installCommand?: string } | null {
  const data = typeof error === 'object' && error !== null ? (error as { data?: unknown }).data : undefined;
  if (typeof data === 'object' && data !== null && typeof (data as { kind?: unknown }).kind === 'string') {
    const { kind, installCommand } = data as { kind: string; installCommand?: unknown };
    return { kind, installCommand: typeof installCommand === 'string' ? installCommand : undefined };
  }
  return null;
}

export interface ChatPorts {
  workspace: ChatWorkspace;
  ui: ChatUi;
  view: ChatView;
  store: ChatStore;
  timers: Timers;
  log: ChatLog;
}

export class ChatController {
  private api: PiContextClient | undefined;
  private apiSubscriptions: Disposable[] = [];
  private readonly lifecycle = new ChatLifecycle();
  private transcript = new Transcript();
  /** Starts, resumes and forks, one at a time; a prompt waits for them (`liveChat`). */
  private readonly gate = new Gate(() => this.outbox.postHeader());
  private readonly outbox: ChatOutbox;
  private readonly editDiffs = new EditDiffs();
  /** Files and selections for the next prompt (the chips). */
  private readonly attachments = new Attachments();
  /** The input's text as last typed: asked about again when the attachments change. */
  private typed = '';
  /** What Undo knows of each edit/write card (by item id), or why it knows nothing. */
  private readonly undoRecords = new Map<string, UndoRecord | { unknown: string; path: string }>();
  /** A write's file as read when the model finished the call, before Pi ran it (null: no file), by tool call id. */
  private readonly writeBefore = new Map<string, string | null>();
  /** The reads of `writeBefore` still under way, by tool call id (a write's end waits for its read). */
  private readonly writeReads = new Map<string, Promise<void>>();

  private budget: ContextBudgetResult | null = null;
  /** `pi/turnLedger`'s price of the next request on the chat's session: the header's lens. */
  private nextCost: NextRequestCostInfo | null = null;
  private piCommands: Completion[] = [];
  /** A line under the header while the server or Pi starts, or a request is on its way. */
  private status: string | null = 'Starting the pi-context server…';
  /** The warning and price of the text being typed (`preflight.ts`). */
  private readonly preflight: Preflight;
  private compactPreview: ChatHeader['compactPreview'] = null;
  private readonly extensionStatus = new Map<string, string>();
  /** Events held while `pi/chat/messages` is asked for a rebuild: those numbered after its `seq` follow it. */
  private heldEvents: ChatEventParams[] | null = null;
  private streamingContext: boolean | undefined;
  private budgetTimer: unknown;

  constructor(private readonly ports: ChatPorts) {
    this.outbox = new ChatOutbox(ports.view, ports.timers, () => this.transcript, () => this.header());
    this.preflight = new Preflight(
      ports.timers,
      (text) => {
        const chat = this.lifecycle.live;
        const attachments = this.attachments.wire();
        return chat
          ? this.server()
              .chatPreflight({ chatId: chat.chatId, text, ...(attachments.length ? { attachments } : {}) })
              .then((r) => {
                this.attachments.counted(r.attachments ?? []);
                return r;
              })
          : null;
      },
      () => this.outbox.postHeader(),
      (e) => this.ports.log.debug(`pi/chat/preflight: ${errorText(e)}`),
      () => this.attachments.list.length > 0,
    );
  }

  // ---- what the host tells the controller ---------------------------------------------------

  /** A running server (its typed client), or none: the chat follows it, and a chat shown ends when it stops. */
  attach(api: PiContextClient | undefined): void {
    for (const d of this.apiSubscriptions.splice(0)) {
      d.dispose();
    }
    this.api = api;
    if (!api) {
      if (this.lifecycle.serverStopped()) {
        this.transcript.exited('The pi-context server stopped, and the chat with it', false);
      }
      this.status = SERVER_NOT_RUNNING;
      this.outbox.all();
      return;
    }
    this.apiSubscriptions.push(
      api.onChatEvent((p) => this.onEvent(p)),
      api.onChatExited((p) => this.onExited(p)),
      api.onChatNotice((p) => this.onNotice(p)),
      api.onChatDrift((p) => this.onDrift(p)),
    );
    this.lifecycle.serverStarted();
    this.status = null;
    if (this.ports.view.resolved) {
      void this.ensureChat();
    }
  }

  /** The webview was created (`resolveWebviewView`): a chat to show. */
  viewResolved(): Promise<void> {
    return this.ensureChat();
  }

  /** The webview is visible again: it gets everything (it may have missed posts while hidden). */
  viewShown(): void {
    this.outbox.all();
  }

  /** VS Code granted workspace trust: the view says so, and the chat starts. */
  trustGranted(): void {
    this.outbox.all();
    if (this.ports.view.resolved) {
      void this.ensureChat();
    }
  }

  /** Every `pi/sessionChanged`: the gauge follows the chat's session. */
  sessionChanged(params: SessionChangedParams): void {
    if (this.lifecycle.chat?.session === params.session) {
      this.scheduleBudget();
    }
  }

  /** `piContext.pi.command` changed (and reached the server): a Pi missing so far is looked for again now. */
  piCommandChanged(): void {
    if (this.lifecycle.forgetMissingPi() && this.ports.view.resolved) {
      void this.ensureChat();
    }
  }

  /** The text of an edit card's diff document (the host's `pi-context-edit:` content provider). */
  editDiffSide(documentPath: string, query = ''): string {
    if (query.startsWith('base=')) {
      const record = this.undoRecords.get(query.slice('base='.length));
      return record && 'before' in record ? (record.before ?? '') : '(What this file was before the turn is not known.)';
    }
    return this.editDiffs.side(documentPath);
  }

  // ---- context from the editor --------------------------------------------------------------

  /** Attach a file, or lines of it (a selection, with the editor's text), to the next prompt. */
  attachFile(file: string, lines: { start: number; end: number; text: string | null } | null = null): void {
    this.attachments.add(file, lines);
    this.attachmentsChanged();
  }

  /** "Add Current File to Chat": the active editor's file. */
  addCurrentFile(): void {
    const editor = this.ports.workspace.activeEditor();
    if (!editor) {
      throw new Error('Open a file in an editor first: its file is what gets attached.');
    }
    this.attachFile(editor.path);
  }

  /** "Add Selection to Chat": the active editor's selected lines, as the editor has them. */
  addSelection(): void {
    const editor = this.ports.workspace.activeEditor();
    if (!editor?.selection) {
      throw new Error('Select some text in an editor first: the selected lines are what gets attached.');
    }
    const { start, end, text } = editor.selection;
    this.attachFile(editor.path, { start, end, text });
  }

  private attachmentsChanged(): void {
    this.outbox.postHeader();
    this.preflight.typed(this.typed, this.lifecycle.live !== null);
  }

  // ---- what the view shows ------------------------------------------------------------------

  header(): ChatHeader {
    const chat = this.lifecycle.chat;
    const exited = this.lifecycle.exited;
    const locate = this.lifecycle.locate;
    const state = (chat?.state ?? {}) as Json;
    const model = state.model as Json | undefined;
    const session = chat?.session ?? null;
    const name = this.transcript.sessionName ?? (typeof state.sessionName === 'string' ? state.sessionName : null);
    const gauge = gaugeView(this.budget);
    const untrusted = !this.ports.workspace.isTrusted();
    const { phase, hold } = this.lifecycle.availability({
      untrusted,
      work: this.gate.work,
      streaming: this.transcript.streaming || this.transcript.compacting,
      status: this.status,
    });
    this.setStreamingContext(phase === 'streaming');
    return {
      phase,
      status: this.status,
      hold,
      untrusted: untrusted ? UNTRUSTED_TEXT : null,
      noPi:
        locate && !locate.found
          ? {
              message: locate.message ?? 'Pi is not installed.',
              installCommand: locate.installCommand ?? DEFAULT_INSTALL,
              help: piMissingHelp(this.ports.workspace.piCommandSet(), this.ports.workspace.isRemote()),
            }
          : null,
      live: exited ? [] : liveNotices(chat),
      // Pi's name, else the title the server lists (the session's first message, also when a compaction has taken it
      // out of the conversation shown), else the first message shown.
      session: sessionTitle(
        name,
        this.ports.store.sessions?.sessions.find((s) => s.path === session)?.title || this.transcript.firstUserText(),
        'New session',
      ),
      sessionTitle: session ?? 'Pi writes the session file with the first message',
      model: model ? `${String(model.provider)}/${String(model.id)}` : 'model',
      thinkingLevel: this.transcript.thinkingLevel ?? (typeof state.thinkingLevel === 'string' ? state.thinkingLevel : 'off'),
      hasPrices: modelHasPrices(model),
      gauge,
      lens: lensView(gauge, this.nextCost, this.ports.timers.now()),
      queue: this.transcript.queue,
      compacting: this.transcript.compacting,
      warning: this.preflight.warning,
      nextRequest: this.preflight.price ? nextRequestText(this.preflight.price, this.ports.timers.now()) : null,
      attachments: this.attachments.list.map((c) => ({ ...c })),
      adds: this.preflight.result
        ? addsLine(
            this.preflight.result,
            this.preflight.price ? nextRequestText(this.preflight.price, this.ports.timers.now()) : null,
          )
        : null,
      compactPreview: this.compactPreview,
      exited,
      completions: this.piCommands,
      extensionStatus: [...this.extensionStatus.values()],
      features: featureView(this.lifecycle.chat?.capabilities),
    };
  }

  /** Pi lacks `feature`: say so (the sentence names the Pi that has it) instead of sending what Pi would refuse. */
  private lacks(feature: FeatureId): boolean {
    const sentence = unavailable(featureView(this.lifecycle.chat?.capabilities), feature);
    if (sentence !== null) {
      this.outbox.changed([this.transcript.notice('info', sentence).id]);
    }
    return sentence !== null;
  }

  private setStreamingContext(streaming: boolean): void {
    if (this.streamingContext !== streaming) {
      this.streamingContext = streaming;
      this.ports.ui.setStreaming(streaming);
    }
  }

  // ---- starting, taking up, replacing -------------------------------------------------------

  private server(): PiContextClient {
    if (!this.api) {
      throw new Error(SERVER_NOT_RUNNING);
    }
    return this.api;
  }

  /** A chat to show: one the server holds, else the session shown last, else a new one. */
  private ensureChat(): Promise<void> {
    return this.gate.busy ? this.gate.settled() : this.begin(() => this.doEnsureChat());
  }

  /** One start at a time: a prompt sent while Pi starts waits for that start instead of starting another. */
  private begin(work: () => Promise<void>): Promise<void> {
    const run = this.gate.run('start', work);
    this.outbox.postHeader(); // data-state=starting from now on
    return run;
  }

  /** The transcript replaced (a chat taken up, a fork, a new chat): the error notices stay. */
  private replaceTranscript(next: Transcript): void {
    next.keepErrors(this.transcript);
    this.transcript = next;
  }

  private async doEnsureChat(): Promise<void> {
    const { lifecycle } = this;
    if (!this.ports.workspace.isTrusted() || !this.api || lifecycle.live) {
      this.outbox.all();
      return;
    }
    try {
      if (!lifecycle.exited) {
        const list = await this.server().chatList();
        const remembered = this.ports.workspace.sessionShownLast();
        const held = list.chats.find((c) => c.session === remembered) ?? list.chats[0];
        if (held) {
          if (!lifecycle.locate) {
            lifecycle.lookedFor({ found: true, piVersion: held.piVersion });
          }
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
          if (!lifecycle.locate) {
            lifecycle.lookedFor({ found: true, piVersion: kept.piVersion ?? null });
          }
          await this.start(kept.session, true);
          return;
        }
      }
      if (!lifecycle.locate?.found) {
        // Asked again while Pi is missing: a command set or a Pi installed since is found by the next start.
        lifecycle.lookedFor(await this.server().chatLocate());
      }
      if (!lifecycle.locate?.found) {
        this.status = null;
        this.outbox.all();
        return;
      }
      if (lifecycle.exited) {
        this.outbox.all();
        return;
      }
      await this.start(this.ports.workspace.sessionShownLast(), true);
    } catch (e) {
      this.status = `The chat could not start: ${errorText(e)}`;
      this.outbox.all();
    }
  }

  /** Start Pi (resuming `session` when given). A remembered session that is gone starts a new one. */
  private async start(session: string | null, quietIfGone = false): Promise<void> {
    if (!this.ports.workspace.isTrusted()) {
      throw new Error(UNTRUSTED_TEXT); // New Chat, Resume, Restart: the one place every start goes through
    }
    this.status = session ? 'Starting Pi on the session…' : 'Starting Pi…';
    this.outbox.postHeader();
    let info: ChatInfo;
    try {
      try {
        info = await this.server().chatStart(this.startParams(session));
      } catch (e) {
        if (session && quietIfGone && !piUnavailable(e)) {
          this.ports.log.info(`resuming ${session} failed (${errorText(e)}): starting a new chat`);
          await this.ports.workspace.rememberSession(null);
          info = await this.server().chatStart(this.startParams(null));
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
      this.lifecycle.lookedFor({ found: false, message: errorText(e), installCommand: missing.installCommand ?? null });
      this.status = null;
      this.outbox.all();
      return;
    }
    await this.adopt(info, Boolean(session));
  }

  private startParams(session: string | null): ChatStartParams {
    const folder = this.ports.workspace.folder();
    const params: ChatStartParams = {};
    if (folder) {
      params.workspaceFolder = folder.uri;
    }
    if (session) {
      params.session = session;
    }
    return params;
  }

  /** Show a chat the server holds: its state, its conversation so far, its commands, its budget. */
  private async adopt(info: ChatInfo, rebuild: boolean): Promise<void> {
    const api = this.server();
    this.lifecycle.adopted(info);
    if (info.session) {
      this.ports.store.followChat(info.session); // the Context view and the status bar show the chat's session
    }
    // Held from the first await on: events arriving meanwhile (a keeper replays a taken-up turn at once)
    // would go to a transcript about to be replaced, and a dialog among them would be asked twice, once
    // more from the snapshot's in-flight events. The snapshot's seq says which of them it already includes.
    this.heldEvents = rebuild ? [] : null;
    this.compactPreview = null;
    this.preflight.clear();
    this.extensionStatus.clear();
    this.replaceTranscript(new Transcript());
    this.status = null;
    if (info.session) {
      try {
        await this.ports.workspace.rememberSession(info.session);
      } catch (e) {
        this.ports.log.warn(`remembering the chat's session: ${errorText(e)}`); // the events held must still be let go
      }
    }
    const empty: ChatMessagesResult = { items: [], inFlight: [], seq: 0, inFlightTruncated: false };
    const ref = { chatId: info.chatId };
    let snapshot: ChatMessagesResult | null;
    let state: ChatInfo;
    let commands: ChatItemsResult;
    try {
      [state, snapshot, commands] = await Promise.all([
        api.chatState(ref).catch(() => info),
        rebuild ? api.chatMessages(ref).catch(() => null) : Promise.resolve(empty),
        api.chatCommands(ref).catch((): ChatItemsResult => ({ items: [] })),
      ]);
    } finally {
      if (this.lifecycle.chat !== info) {
        this.heldEvents = null;
      }
    }
    if (this.lifecycle.chat !== info) {
      return; // another chat was started meanwhile
    }
    const held = this.heldEvents ?? [];
    this.heldEvents = null;
    this.lifecycle.updated(state);
    const taken = snapshot ?? empty;
    const inFlight = taken.inFlight ?? [];
    const afters = state.session ? this.ports.workspace.compactionAfter(state.session) : undefined;
    this.replaceTranscript(Transcript.fromSnapshot(taken.items, inFlight, afters));
    this.transcript.streaming = state.streaming;
    this.transcript.compacting = state.compacting;
    this.piCommands = piCompletions(commands.items);
    if (state.reattached && state.streaming) {
      this.transcript.notice('info', 'Pi kept working on this turn while the window reloaded.');
    }
    this.outbox.all();
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
    const chat = this.lifecycle.live;
    if (!chat) {
      return;
    }
    try {
      const state = await this.server().chatState({ chatId: chat.chatId });
      if (this.lifecycle.chat?.chatId === chat.chatId) {
        this.lifecycle.updated(state);
        if (state.session) {
          await this.ports.workspace.rememberSession(state.session);
        }
      }
    } catch (e) {
      this.ports.log.warn(`pi/chat/state: ${errorText(e)}`);
    }
    this.outbox.postHeader();
  }

  private async refreshBudget(): Promise<void> {
    const chat = this.lifecycle.chat;
    const session = chat?.session;
    if (!session || !(await this.ports.workspace.exists(session))) {
      return; // a new session has no file until Pi writes its first message: no gauge yet
    }
    try {
      const params: ContextBudgetParams = { session };
      if (chat.workspaceFolder) {
        params.workspaceFolder = chat.workspaceFolder;
      }
      const [budget, ledger] = await Promise.all([
        this.server().contextBudget(params),
        this.server()
          .turnLedger({ ...params, session })
          .catch((e: unknown) => {
            this.ports.log.debug(`pi/turnLedger for the chat's lens: ${errorText(e)}`);
            return null;
          }),
      ]);
      this.budget = budget;
      this.nextCost = ledger?.nextRequest ?? null;
    } catch (e) {
      this.ports.log.debug(`pi/contextBudget for the chat: ${errorText(e)}`);
    }
    this.outbox.postHeader();
  }

  private scheduleBudget(): void {
    if (this.budgetTimer !== undefined) {
      this.ports.timers.clear(this.budgetTimer);
    }
    this.budgetTimer = this.ports.timers.set(() => {
      this.budgetTimer = undefined;
      void this.refreshBudget();
    }, BUDGET_DELAY_MS);
  }

  private async refreshEntryIds(): Promise<void> {
    const chat = this.lifecycle.live;
    if (!chat) {
      return;
    }
    try {
      const points = await this.server().chatForkPoints({ chatId: chat.chatId });
      if (this.lifecycle.chat === chat) {
        this.outbox.changed(this.transcript.assignEntryIds(points.messages));
      }
    } catch (e) {
      this.ports.log.debug(`pi/chat/forkPoints: ${errorText(e)}`);
    }
  }

  // ---- what the server says -----------------------------------------------------------------

  private onEvent(params: ChatEventParams): void {
    if (params.chatId !== this.lifecycle.chat?.chatId) {
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
    if (event.type === 'message_update') {
      void this.snapshotBeforeWrite(event.assistantMessageEvent);
    }
    this.outbox.changed(this.transcript.apply(event));
    if (event.type === 'tool_execution_end' && event.toolName === 'edit' && event.isError !== true) {
      void this.buildEditDiff(`t-${String(event.toolCallId)}`); // right after Pi wrote it: the reversal is exact
    }
    if (event.type === 'tool_execution_end' && event.toolName === 'write' && event.isError !== true) {
      // after the read of the file before the write, when that read is still under way
      const id = String(event.toolCallId);
      void (this.writeReads.get(id) ?? Promise.resolve()).then(() => this.recordWrite(`t-${id}`, id));
    }
    if (event.type === 'compaction_end' && this.lifecycle.chat?.session) {
      void this.ports.workspace.rememberCompactionAfter(this.lifecycle.chat.session, this.transcript.compactionAfter);
    }
    if (event.type === 'agent_settled' || event.type === 'compaction_end') {
      void this.refreshEntryIds();
      void this.refreshState();
      this.scheduleBudget();
      this.status = null;
    }
  }

  private onExited(params: ChatExitedParams): void {
    if (params.chatId !== this.lifecycle.chat?.chatId) {
      return;
    }
    const item = this.transcript.exited(params.message, params.expected);
    this.lifecycle.ended(params);
    this.outbox.changed([item.id]);
    if (!params.expected && params.stderrTail) {
      this.ports.log.warn(`Pi exited: ${params.message}\n${params.stderrTail}`);
    }
  }

  private onNotice(params: ChatNoticeParams): void {
    if (params.chatId !== this.lifecycle.chat?.chatId) {
      return;
    }
    this.outbox.changed([this.transcript.notice(params.level, params.message).id]);
    if (params.kind === 'capabilities-changed') {
      void this.refreshState(); // Pi answered or emitted something that turns a feature on or off
    }
    if (params.session) {
      // The session was written back (to the same path or beside it): follow the file the chat writes now.
      void this.refreshState().then(() => this.scheduleBudget());
      void this.ports.store.refreshSession();
    }
  }

  /** The files on disk now differ from what the chat's Pi read (or agree again): say so, with the action. */
  private onDrift(params: ChatDriftParams): void {
    const chat = this.lifecycle.chat;
    if (params.chatId !== chat?.chatId) {
      return;
    }
    this.lifecycle.updated({ ...chat, drift: params.drift ?? null });
    this.outbox.postHeader();
    void this.ports.store.refreshLedger(); // the Context view's banner words the same drift for the chat's session
  }

  /** Pi's extension dialogs as VS Code's own; the answer goes back with `pi/chat/uiResponse`. */
  private async extensionUi(request: Json): Promise<void> {
    const chat = this.lifecycle.chat;
    const id = typeof request.id === 'string' ? request.id : null;
    if (!chat || !id) {
      return;
    }
    const effect = await showDialog(request, this.ports.ui, (response) =>
      this.server()
        .chatUiResponse({ chatId: chat.chatId, id, ...response })
        .catch((e: unknown) => this.ports.log.warn(`pi/chat/uiResponse: ${errorText(e)}`)),
    );
    if (effect?.kind === 'status') {
      if (effect.text !== null) {
        this.extensionStatus.set(effect.key, effect.text);
      } else {
        this.extensionStatus.delete(effect.key);
      }
      this.outbox.postHeader();
    } else if (effect?.kind === 'setInput') {
      this.outbox.post({ type: 'setInput', text: effect.text });
    } else if (effect?.kind === 'unknown') {
      this.ports.log.debug(`Pi extension UI ${effect.method} is not shown in VS Code`);
    }
  }

  // ---- what the user does -------------------------------------------------------------------

  /** A message from the webview (untrusted input: checked by `parseChatMessage`); a failure becomes an error notice. */
  async onMessage(raw: unknown): Promise<void> {
    const message = parseChatMessage(raw);
    if (!message) {
      this.ports.log.warn(`ignored a malformed message from the chat view: ${JSON.stringify(raw)?.slice(0, 200)}`);
      return;
    }
    try {
      await this.handle(message);
    } catch (e) {
      this.fail(e);
    }
  }

  private async handle(message: ChatWebviewMessage): Promise<void> {
    const { ui, workspace } = this.ports;
    switch (message.type) {
      case 'ready':
        this.outbox.all();
        await this.ensureChat();
        break;
      case 'send':
        try {
          await this.send(message.text);
        } catch (e) {
          this.outbox.post({ type: 'restoreInput', text: message.text }); // a prompt not sent is not lost
          throw e;
        }
        break;
      case 'dismiss':
        if (this.transcript.dismiss(message.itemId)) {
          this.outbox.all();
        }
        break;
      case 'input':
        this.typed = message.text;
        this.preflight.typed(message.text, this.lifecycle.live !== null);
        break;
      case 'mention':
        await this.mention(message.query);
        break;
      case 'attach':
        this.attachFile(
          this.resolvePath(message.path),
          message.startLine !== null ? { start: message.startLine, end: message.endLine ?? message.startLine, text: null } : null,
        );
        break;
      case 'removeAttachment':
        if (this.attachments.remove(message.id)) {
          this.attachmentsChanged();
        }
        break;
      case 'undo':
        await this.undo(message.itemId);
        break;
      case 'review':
        await this.review(message.itemId);
        break;
      case 'insertCode':
        if (!(await ui.insertAtCursor(message.text))) {
          ui.notify('info', 'Open a file in an editor first: the code goes in at its cursor.');
        }
        break;
      case 'newFile':
        await ui.newUntitled(message.text, message.language);
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
        await ui.copy(message.text);
        break;
      case 'manageTrust':
        await ui.command('workbench.trust.manage');
        break;
      case 'liveAction':
        await this.liveAction(message.action);
        break;
      case 'takeBackQueue':
        await this.takeBackQueue();
        break;
      case 'openPiSetting':
        // A machine setting: in a remote window (code-server too) the User tab shows "No Settings Found" for it.
        await ui.command(settingsCommand(workspace.isRemote()), { query: PI_COMMAND_SETTING });
        break;
      case 'copyInstall':
        await ui.copy(this.header().noPi?.installCommand ?? '');
        ui.notify('info', 'The install command is on the clipboard.');
        break;
      case 'openFile':
        await ui.openFile(this.resolvePath(message.path), message.line);
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
        this.outbox.postHeader();
        break;
      case 'openContext':
        await ui.command('piContext.openView');
        break;
      case 'rename':
        await this.rename();
        break;
    }
  }

  private fail(e: unknown): void {
    const text = errorText(e);
    this.ports.log.info(`chat: ${text}`); // shown in the conversation; an answer the user asked for, not a fault of ours
    this.outbox.changed([this.transcript.notice('error', text).id]);
  }

  /** The chat to send to, after any start or fork going on (a prompt never lands in the middle of one). */
  private async liveChat(): Promise<ChatInfo> {
    await this.gate.settled();
    if (!this.lifecycle.live) {
      if (this.lifecycle.exited) {
        throw new Error('Pi has exited: restart it to resume the session.');
      }
      await this.ensureChat();
    }
    const chat = this.lifecycle.chat;
    if (!chat) {
      const header = this.header();
      throw new Error(header.untrusted ?? header.noPi?.message ?? 'The chat has not started.');
    }
    return chat;
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
    const attachments = this.attachments.wire();
    this.preflight.clear();
    if (this.transcript.clearErrors()) {
      this.outbox.all(); // sending again clears the errors of the attempts before
    }
    const streaming = this.transcript.streaming;
    this.transcript.streaming = true;
    this.outbox.postHeader();
    try {
      const result = await this.server().chatPrompt({
        chatId: chat.chatId,
        text: input.text,
        ...(attachments.length ? { attachments } : {}),
        // While Pi works: Pi delivers it before its next model call.
        ...(streaming ? { streamingBehavior: 'steer' as const } : {}),
      });
      if (attachments.length) {
        this.attachments.clear(); // sent with this prompt: the chips go
        this.typed = '';
      }
      if (result.disposition === 'handled') {
        this.transcript.streaming = false; // an extension command: no run follows
      }
      this.outbox.postHeader();
    } catch (e) {
      this.transcript.streaming = false;
      this.outbox.postHeader();
      throw e;
    }
  }

  async abort(): Promise<void> {
    const chat = this.lifecycle.live;
    if (!chat || this.lacks('stop')) {
      return;
    }
    // Pi's queue is cleared first (a steering message would otherwise go with the next prompt): its texts come back.
    this.giveBack(await this.server().chatAbort({ chatId: chat.chatId }));
  }

  private async previewCompact(focus: string | null): Promise<void> {
    const chat = await this.liveChat();
    if (this.lacks('compact')) {
      return;
    }
    this.status = 'Reading what a compaction would keep…';
    this.outbox.postHeader();
    try {
      const preview = await this.server().chatCompactPreview({ chatId: chat.chatId, instructions: focus });
      this.compactPreview = { preview, focus };
    } finally {
      this.status = null;
      this.outbox.postHeader();
    }
  }

  private async compact(): Promise<void> {
    const pending = this.compactPreview;
    const chat = await this.liveChat();
    if (!pending) {
      return;
    }
    this.compactPreview = null;
    this.outbox.postHeader();
    const failures = this.transcript.compactionFailures;
    try {
      await this.server().chatCompact({ chatId: chat.chatId, instructions: pending.focus });
    } catch (e) {
      if (this.transcript.compactionFailures > failures) {
        this.ports.log.info(`pi/chat/compact: ${errorText(e)} (shown once, from Pi's compaction_end)`);
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
      const api = this.server();
      const result = await api.chatFork({ chatId: chat.chatId, entryId });
      if (result.cancelled) {
        return;
      }
      const info = await api.chatState({ chatId: chat.chatId });
      await this.adopt(info, true);
      const said = retry
        ? 'Retried: the message is sent again on a new branch (the earlier reply stays in the old session file).'
        : 'Forked: edit the message and send it to continue on the new branch.';
      this.outbox.changed([this.transcript.notice('info', said).id]);
      edit = result.text ?? text;
      void this.ports.store.refreshSession(); // the Sessions tree shows the new file and its branch
    });
    this.outbox.postHeader(); // the send button says why it waits
    await run;
    if (edit !== null && retry) {
      await this.send(edit); // after the rebuild: the same text, into the new branch
    } else if (edit !== null) {
      // The message's attachments come back as chips (a whole file is read again when sent), its text into the input.
      const sent = splitFileBlocks(edit);
      for (const f of sent.files) {
        const lines = f.startLine !== null ? { start: f.startLine, end: f.endLine ?? f.startLine, text: f.content } : null;
        this.attachments.add(f.name, lines);
      }
      if (sent.files.length > 0) {
        this.attachmentsChanged();
      }
      this.outbox.post({ type: 'setInput', text: sent.text }); // after the gate's header: the message is back when it can be sent
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
      current = await this.ports.workspace.readFile(this.resolvePath(call.path));
    } catch (e) {
      this.ports.log.debug(`edit diff: ${errorText(e)}`);
    }
    const sides = editSides(current, call);
    this.editDiffs.keep(itemId, sides);
    if (!this.undoRecords.has(itemId)) {
      // Undo's record is taken once, right after Pi wrote the file (a later rebuild may see the file changed).
      this.keepUndo(
        itemId,
        sides.source === 'file'
          ? { tool: 'edit', path: this.resolvePath(call.path), before: sides.before, after: sides.after }
          : { unknown: `the edit could not be reversed exactly (${sides.reason})`, path: this.resolvePath(call.path) },
      );
      item.undo = 'available';
    }
    item.diffNote = editSidesNote(sides);
    this.outbox.changed([item.id]);
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
    await this.ports.ui.openDiff(itemId, name, editDiffTitle(name, sides));
  }

  /** A `write` call the model finished: read the file before Pi runs the tool (Pi runs tools after the reply ends). */
  private async snapshotBeforeWrite(update: unknown): Promise<void> {
    if (typeof update !== 'object' || update === null) {
      return;
    }
    const { type, toolCall } = update as { type?: unknown; toolCall?: unknown };
    if (type !== 'toolcall_end' || typeof toolCall !== 'object' || toolCall === null) {
      return;
    }
    const call = toolCall as { id?: unknown; name?: unknown; arguments?: unknown };
    const args = call.arguments as { path?: unknown } | undefined;
    if (call.name !== 'write' || typeof call.id !== 'string' || typeof args?.path !== 'string') {
      return;
    }
    const id = call.id;
    const reading = this.readBeforeWrite(id, this.resolvePath(args.path));
    this.writeReads.set(id, reading);
    await reading;
    if (this.writeReads.get(id) === reading) {
      this.writeReads.delete(id);
    }
  }

  private async readBeforeWrite(id: string, file: string): Promise<void> {
    let before: string | null;
    try {
      before = (await this.ports.workspace.exists(file)) ? await this.ports.workspace.readFile(file) : null;
    } catch (e) {
      this.ports.log.debug(`undo: reading ${file} before the write: ${errorText(e)}`);
      return;
    }
    this.writeBefore.set(id, before);
    for (const old of [...this.writeBefore.keys()].slice(0, Math.max(0, this.writeBefore.size - MAX_UNDO))) {
      this.writeBefore.delete(old); // a write that never ended (an error, an abort)
    }
  }

  /** Undo's record of a card; the newest `MAX_UNDO` are kept (each holds a file's content twice). */
  private keepUndo(itemId: string, record: UndoRecord | { unknown: string; path: string }): void {
    this.undoRecords.set(itemId, record);
    for (const old of [...this.undoRecords.keys()].slice(0, Math.max(0, this.undoRecords.size - MAX_UNDO))) {
      this.undoRecords.delete(old);
      const item = this.transcript.get(old);
      if (item?.kind === 'tool' && item.undo === 'available') {
        item.undo = undefined;
        this.outbox.changed([item.id]);
      }
    }
  }

  private recordWrite(itemId: string, toolCallId: string): void {
    const item = this.transcript.get(itemId);
    if (item?.kind !== 'tool') {
      return;
    }
    let args: { path?: unknown; content?: unknown } = {};
    try {
      args = JSON.parse(item.args) as typeof args;
    } catch {
      return;
    }
    if (typeof args.path !== 'string' || typeof args.content !== 'string') {
      return;
    }
    const file = this.resolvePath(args.path);
    const before = this.writeBefore.get(toolCallId);
    this.writeBefore.delete(toolCallId);
    this.keepUndo(
      itemId,
      before === undefined
        ? { unknown: 'the file was not read before Pi wrote it', path: file }
        : { tool: 'write', path: file, before, after: args.content },
    );
    item.undo = 'available';
    this.outbox.changed([item.id]);
  }

  /** Undo on an edit or write card: the file as it was before the tool call, unless it changed since. */
  private async undo(itemId: string): Promise<void> {
    const item = this.transcript.get(itemId);
    const record = this.undoRecords.get(itemId);
    if (item?.kind !== 'tool' || !record) {
      throw new Error('This card has no change pi-context can undo (it was made before this window opened).');
    }
    let now: string | null = null;
    if (await this.ports.workspace.exists(record.path)) {
      now = await this.ports.workspace.readFile(record.path);
    }
    const decision = undoDecision(record, now);
    if (decision.kind === 'refuse') {
      this.outbox.changed([this.transcript.notice('warning', decision.reason).id]);
      return;
    }
    if (decision.kind === 'delete') {
      await this.ports.workspace.deleteFile(record.path);
    } else {
      await this.ports.workspace.writeFile(record.path, decision.content);
    }
    item.undo = 'done';
    const name = path.basename(record.path);
    const said = decision.kind === 'delete' ? `Undone: ${name} removed (Pi's write created it).` : `Undone: ${name} is back as it was before Pi's ${item.name}.`;
    this.outbox.changed([item.id, this.transcript.notice('info', said).id]);
  }

  /** Review: VS Code's multi-file diff of every file the item's turn changed, before the turn ↔ now. */
  private async review(itemId: string): Promise<void> {
    const items: TurnTool[] = this.transcript.items.map((i) => {
      if (i.kind === 'user') {
        return { kind: 'user', id: i.id };
      }
      if (i.kind === 'tool') {
        const record = this.undoRecords.get(i.id);
        return { kind: 'tool', id: i.id, name: i.name, status: i.status, path: record?.path };
      }
      return { kind: 'other', id: i.id };
    });
    const files = turnChanges(items, itemId);
    if (files.length === 0) {
      throw new Error('This turn changed no file pi-context saw (edits and writes made in this window).');
    }
    const known = files.filter((f) => {
      const record = this.undoRecords.get(f.firstItemId);
      return record !== undefined && 'before' in record;
    });
    if (known.length < files.length) {
      const unknown = files.filter((f) => !known.includes(f)).map((f) => path.basename(f.path));
      this.outbox.changed([
        this.transcript.notice('info', `Not in the review (what it was before the turn is not known): ${unknown.join(', ')}.`).id,
      ]);
    }
    if (known.length === 0) {
      return;
    }
    const title = "Pi's changes in this turn"; // VS Code adds the number of files
    await this.ports.ui.openChanges(title, known.map((f) => ({ path: f.path, itemId: f.firstItemId })));
  }

  private async mention(query: string): Promise<void> {
    const MAX = 30;
    const [files, symbols] = await Promise.all([
      this.ports.workspace.findFiles(query, MAX).catch((e: unknown) => {
        this.ports.log.debug(`@ files: ${errorText(e)}`);
        return [] as string[];
      }),
      query.length >= 2
        ? this.ports.workspace.symbols(query, 10).catch((e: unknown) => {
            this.ports.log.debug(`@ symbols: ${errorText(e)}`);
            return [];
          })
        : Promise.resolve([]),
    ]);
    const root = this.lifecycle.chat?.cwd ?? this.ports.workspace.folder()?.path ?? '';
    const fileItems = files.map((f) => ({
      kind: 'file' as const,
      label: path.basename(f),
      detail: root && f.startsWith(`${root}/`) ? f.slice(root.length + 1) : f,
      path: f,
      startLine: null,
      endLine: null,
    }));
    this.outbox.post({ type: 'mentions', query, items: [...fileItems, ...symbols] });
  }

  /** A tool's path as Pi resolves it: relative to Pi's working folder. */
  private resolvePath(file: string): string {
    const cwd = this.lifecycle.chat?.cwd ?? this.ports.workspace.folder()?.path;
    return path.isAbsolute(file) ? file : path.join(cwd ?? '', file);
  }

  async pickModel(): Promise<void> {
    const chat = await this.liveChat();
    if (this.lacks('models')) {
      return;
    }
    const models = await this.server().chatModels({ chatId: chat.chatId });
    const current = this.header().model;
    const items = modelItems(models, current);
    if (items.length === 0) {
      this.ports.ui.notify('warning', 'Pi has no model it can use: set up a provider for Pi (its models.json or a key).');
      return;
    }
    const pick = await this.ports.ui.pick(items, { title: "The chat's model", placeHolder: current });
    if (!pick) {
      return;
    }
    await this.server().chatSetModel({ chatId: chat.chatId, model: pick.id });
    await this.refreshState();
    this.scheduleBudget();
  }

  async pickThinking(): Promise<void> {
    const chat = await this.liveChat();
    if (this.lacks('thinking')) {
      return;
    }
    const current = this.header().thinkingLevel;
    const pick = await this.ports.ui.pick(thinkingItems(current), { title: 'Thinking level', placeHolder: current });
    if (!pick) {
      return;
    }
    await this.server().chatSetThinkingLevel({ chatId: chat.chatId, level: pick.label });
    this.transcript.thinkingLevel = pick.label;
    await this.refreshState();
  }

  /** End this chat's Pi (the session file stays) and start a new one. */
  async newChat(): Promise<void> {
    await this.replace(null);
  }

  /** The history: every session of the workspace by its title, with when, the model and the cost; pick one to resume it. */
  async resume(title = 'Resume a Pi session'): Promise<void> {
    const folder = this.ports.workspace.folder();
    const result = await this.server().sessions(folder ? { workspaceFolder: folder.uri } : {});
    const items = sessionItems(result, this.lifecycle.chat?.session, new Date(this.ports.timers.now()));
    if (items.length === 0) {
      this.ports.ui.notify('info', `No Pi session in ${result.sessionsDir} yet.`);
      return;
    }
    const pick = await this.ports.ui.pick(items, {
      title,
      placeHolder: 'Search by title, first message, date, model or cost',
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (pick && pick.path !== this.lifecycle.chat?.session) {
      await this.replace(pick.path);
    }
  }

  /** Chat History: the same list as /resume, searchable. */
  async history(): Promise<void> {
    await this.resume('Chat history');
  }

  /** Rename the chat's session: Pi writes the name (`pi/sessionRename` goes through the chat's Pi). */
  async rename(): Promise<void> {
    const chat = this.lifecycle.live;
    const session = chat?.session ?? null;
    if (!chat && !session) {
      this.ports.ui.notify('info', 'No chat to rename yet.');
      return;
    }
    const current = this.header().session;
    const name = await this.ports.ui.input({ title: 'Rename the chat', placeHolder: 'A name for this conversation', value: current });
    if (name === undefined || name.trim() === '' || name.trim() === current) {
      return;
    }
    const answer = await this.server().sessionRename(chat ? { chatId: chat.chatId, name } : { session, name });
    this.transcript.sessionName = answer.name; // Pi's session_info_changed says the same when it comes
    this.outbox.postHeader();
    void this.ports.store.refreshSession();
  }

  /** Restart Pi after it exited, resuming its session. */
  async restart(): Promise<void> {
    const session = this.lifecycle.chat?.session ?? this.ports.workspace.sessionShownLast() ?? null;
    await this.begin(async () => {
      this.lifecycle.starting(true);
      await this.start(session);
    });
  }

  private async replace(session: string | null): Promise<void> {
    const api = this.server();
    const old = this.lifecycle.live;
    if (old) {
      if (this.transcript.streaming) {
        const choice = await this.ports.ui.ask(
          'warning',
          'Pi is still working on a reply. Stop it and leave this chat?',
          undefined,
          'Stop and Leave',
        );
        if (choice !== 'Stop and Leave') {
          return;
        }
      }
      this.lifecycle.left(); // its exit notice is not this view's any more
      await api.chatStop({ chatId: old.chatId }).catch((e: unknown) => this.ports.log.warn(`pi/chat/stop: ${errorText(e)}`));
    }
    await this.begin(async () => {
      this.lifecycle.starting(false);
      this.budget = null;
      this.replaceTranscript(new Transcript());
      this.outbox.all();
      await this.start(session);
    });
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
      const choice = await this.ports.ui.ask(
        'warning',
        `Trust ${chat.cwd} for Pi?`,
        "Pi then loads this project's .pi settings, skills, prompt files and extensions, and can run the project's " +
          "extensions. The decision is saved in Pi's trust.json, as Pi's own /trust saves it, for every later Pi.",
        'Trust Project',
      );
      if (choice !== 'Trust Project') {
        return; // refused: Pi keeps leaving the project's resources out, as before
      }
    }
    const said =
      action === 'reload'
        ? 'Pi read its files again: its next request uses them.'
        : action === 'trust'
          ? "The project is trusted for Pi, and Pi was restarted on this session: it loads the project's resources."
          : 'Pi was restarted on this session and read its files again.';
    const run = this.gate.run('start', async () => {
      this.status = action === 'reload' ? 'Pi is reading its files again…' : 'Restarting Pi on this session…';
      this.outbox.postHeader();
      try {
        const api = this.server();
        const ref = { chatId: chat.chatId };
        const info = action === 'trust' ? await api.chatTrust(ref) : await api.chatReload(ref);
        if (info.chatId === chat.chatId) {
          this.lifecycle.updated(info);
        } else {
          await this.adopt(info, true);
        }
        this.outbox.changed([this.transcript.notice('info', said).id]);
      } finally {
        this.status = null;
        this.outbox.postHeader();
      }
    });
    this.outbox.postHeader();
    await run;
    this.scheduleBudget();
    void this.ports.store.refreshSession();
  }

  /** The Context view's banner: the action the chat's drift names (Reload Pi, or Restart Pi for trust). */
  async reloadPi(): Promise<void> {
    await this.liveAction(this.lifecycle.chat?.drift?.action ?? 'reload');
  }

  /** Take back what Pi has queued: Pi no longer sends it, and the texts return to the input. */
  private async takeBackQueue(): Promise<void> {
    const chat = await this.liveChat();
    this.giveBack(await this.server().chatClearQueue({ chatId: chat.chatId }));
  }

  private giveBack(queued: ChatQueueResult | null | undefined): void {
    const steering = queued?.steering ?? [];
    const followUp = queued?.followUp ?? [];
    if (steering.length + followUp.length > 0) {
      this.outbox.post({ type: 'queuedBack', steering, followUp });
    }
  }

  dispose(): void {
    if (this.budgetTimer !== undefined) {
      this.ports.timers.clear(this.budgetTimer);
    }
    this.preflight.cancel();
    this.outbox.dispose();
    for (const d of this.apiSubscriptions.splice(0)) {
      d.dispose();
    }
  }
}
