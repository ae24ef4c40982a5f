/**
 * Where the chat is, in one place: whether a server runs, whether Pi was looked for and found, the chat the server
 * holds for this view and whether its Pi exited. Each change has a name (`serverStarted`, `adopted`, `ended`...),
 * so the controller never sets two of these facts apart; the view's phase (`data-state`) is derived from them with
 * the gate's work and the transcript (`readiness.ts`). No VS Code here.
 */
import type { ChatExitedParams, ChatInfo, ChatLocateResult } from '../protocol.generated';
import { availability, type Availability, type GateWork } from './readiness';

export interface ExitInfo {
  message: string;
  /** A restart can resume the session (Pi wrote one). */
  canRestart: boolean;
}

export class ChatLifecycle {
  private serverRuns = false;
  private located: ChatLocateResult | null = null;
  private held: ChatInfo | null = null;
  private exit: ExitInfo | null = null;

  get server(): boolean {
    return this.serverRuns;
  }

  /** `pi/chat/locate`'s answer (or what a start or a running Pi showed), null until Pi was looked for. */
  get locate(): ChatLocateResult | null {
    return this.located;
  }

  /** The chat shown, running or exited. */
  get chat(): ChatInfo | null {
    return this.held;
  }

  get exited(): ExitInfo | null {
    return this.exit;
  }

  /** The chat to talk to: shown and not exited. */
  get live(): ChatInfo | null {
    return this.exit ? null : this.held;
  }

  /** Pi was looked for and is missing (the notice with the install command shows). */
  get noPi(): boolean {
    return this.located !== null && !this.located.found;
  }

  /** A (new) server: Pi is looked for again by the next start. */
  serverStarted(): void {
    this.serverRuns = true;
    this.located = null;
  }

  /** The server stopped: a chat shown ends with it (answers true then; its transcript says so). */
  serverStopped(): boolean {
    this.serverRuns = false;
    if (!this.held) {
      return false;
    }
    this.exit = { message: 'The pi-context server stopped.', canRestart: this.held.session !== null && this.held.session !== undefined };
    return true;
  }

  /** What `pi/chat/locate` said, or a start refused for want of a usable Pi. */
  lookedFor(locate: ChatLocateResult): void {
    this.located = locate;
  }

  /** Look for Pi again (its command setting changed) when it was missing and no chat is shown. */
  forgetMissingPi(): boolean {
    if (this.noPi && !this.held) {
      this.located = null;
      return true;
    }
    return false;
  }

  /** A chat the server holds is shown now (started, taken up, forked into, restarted): a Pi runs, so Pi is found. */
  adopted(info: ChatInfo): void {
    this.held = info;
    this.exit = null;
    if (!this.located?.found) {
      this.located = { found: true, piVersion: info.piVersion };
    }
  }

  /** A fresher `ChatInfo` of the same chat (`pi/chat/state`, a reload, a drift). */
  updated(info: ChatInfo): void {
    if (this.held?.chatId === info.chatId) {
      this.held = info;
    }
  }

  /** The chat's Pi ended (`pi/chat/exited`): a restart resumes the session it names. */
  ended(params: ChatExitedParams): void {
    this.exit = { message: params.message, canRestart: Boolean(params.session) };
    if (params.session && this.held) {
      this.held = { ...this.held, session: params.session };
    }
  }

  /** The view leaves its chat (New Chat, Resume): that chat's exit notice is not this view's any more. */
  left(): void {
    this.held = null;
  }

  /** A start begins (restart, replace): the exit notice goes; `dropChat` also forgets the exited chat. */
  starting(dropChat: boolean): void {
    this.exit = null;
    if (dropChat) {
      this.held = null;
    }
  }

  /** The view's phase and why a send is held, from these facts and the rest of the view's state. */
  availability(facts: { untrusted: boolean; work: GateWork | null; streaming: boolean; status: string | null }): Availability {
    return availability({
      untrusted: facts.untrusted,
      server: this.serverRuns,
      located: this.located !== null,
      noPi: this.noPi,
      chat: this.held !== null,
      exited: this.exit !== null,
      work: facts.work,
      streaming: facts.streaming,
      status: facts.status,
    });
  }
}
