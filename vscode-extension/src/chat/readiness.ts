/**
 * Whether the Chat view can send now, and why not. No vscode import: the host computes the view's
 * phase from these facts, the webview disables its send button with the reason, and the tests
 * check both without an editor.
 *
 * A prompt must never be lost: while the language server or the chat's Pi is starting, or a fork
 * is being applied (the conversation is about to be rebuilt from the new branch), the view says
 * so (`data-state=starting`, or the send button disabled with the reason) and keeps the text in
 * its input; a prompt that reaches the host anyway waits at the `Gate` until the work is done.
 */
import type { ChatHeader, ChatPhase } from './messages';

export interface Readiness {
  /** The workspace is not trusted (Restricted Mode): the chat does not start Pi. */
  untrusted: boolean;
  /** A language client is running. */
  server: boolean;
  /** `pi/chat/locate` answered. */
  located: boolean;
  noPi: boolean;
  /** The view shows a chat the server holds. */
  chat: boolean;
  exited: boolean;
  /** What the gate is doing: starting (or resuming, replacing) Pi, applying a fork, or nothing. */
  work: GateWork | null;
  streaming: boolean;
  /** The status line's text, the best reason to give. */
  status: string | null;
}

export interface Availability {
  phase: ChatPhase;
  /** Why sending is held now (the send button's title), or null. */
  hold: string | null;
}

export const FORK_HOLD = 'Applying the fork: send when the new branch is ready.';

export function availability(r: Readiness): Availability {
  if (r.untrusted) {
    return { phase: 'untrusted', hold: null };
  }
  if (r.noPi) {
    return { phase: 'no-pi', hold: null };
  }
  if (r.work === 'fork') {
    return { phase: 'idle', hold: FORK_HOLD };
  }
  if (r.exited && r.work === null) {
    return { phase: 'exited', hold: null };
  }
  if (!r.server) {
    return { phase: 'starting', hold: r.status ?? 'The pi-context server is starting…' };
  }
  if (!r.located || !r.chat || r.work !== null) {
    return { phase: 'starting', hold: r.status ?? 'Pi is starting…' };
  }
  return { phase: r.streaming ? 'streaming' : 'idle', hold: null };
}

/** The webview's send button: disabled (with the reason as its title) until a header says otherwise. */
export function sendState(header: ChatHeader | null): { enabled: boolean; reason: string | null } {
  if (!header) {
    return { enabled: false, reason: 'The chat is starting…' };
  }
  if (header.phase === 'untrusted' || header.phase === 'no-pi' || header.phase === 'exited') {
    return { enabled: false, reason: null };
  }
  if (header.phase === 'starting' || header.hold) {
    return { enabled: false, reason: header.hold ?? 'The chat is starting…' };
  }
  return { enabled: true, reason: null };
}

export type GateWork = 'start' | 'fork';

/**
 * One piece of work at a time on the chat (a start, a resume, a fork): each runs after the one
 * before, a failure does not block the next, and `settled()` is what a prompt waits for, so it
 * is sent to the chat as it is after the work (the new Pi, the new branch), never into the middle.
 * `onIdle` runs when the last queued work ends (the host posts the header again).
 */
export class Gate {
  private current: Promise<void> | undefined;
  private running: GateWork | null = null;

  constructor(private readonly onIdle: () => void = () => undefined) {}

  get work(): GateWork | null {
    return this.running;
  }

  get busy(): boolean {
    return this.current !== undefined;
  }

  run(kind: GateWork, work: () => Promise<void>): Promise<void> {
    if (this.current === undefined) {
      this.running = kind;
    }
    const started = (this.current ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => {
        this.running = kind;
        return work();
      });
    const tracked: Promise<void> = started.finally(() => {
      if (this.current === tracked) {
        this.current = undefined;
        this.running = null;
        this.onIdle();
      }
    });
    this.current = tracked;
    return tracked;
  }

  /** Resolves when no work runs or waits (work queued meanwhile included); never rejects. */
  async settled(): Promise<void> {
    while (this.current !== undefined) {
      await this.current.catch(() => undefined);
    }
  }
}
