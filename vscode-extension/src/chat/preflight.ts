/**
 * The preflight of the text being typed (`pi/chat/preflight`, a quarter second after the last keystroke): the
 * server's sentence when sending it crosses the compaction threshold or the window, and the next request's price.
 * A feature with its own state and timer, beside the controller; no VS Code here.
 */
import { formatExact, formatTokens } from '../model/format';
import type { ChatPreflightResult, NextRequestCostInfo } from '../protocol.generated';
import { parseInput } from './commands';
import type { Timers } from './ports';

export const PREFLIGHT_DELAY_MS = 250;

/** The warning for a preflight answer: the server's sentence, else ours when the prompt crosses the threshold. */
export function preflightWarning(r: ChatPreflightResult): string | null {
  return (
    r.message ??
    (r.crossesThreshold
      ? `This prompt brings the context to about ${formatExact(r.afterPrompt)} tokens, past the compaction ` +
        `threshold (${formatExact(r.threshold)} of ${formatTokens(r.window)}).`
      : null)
  );
}

export class Preflight {
  /** The sentence for the text being typed, or null. */
  warning: string | null = null;
  /** The price of sending it (`nextRequest`); worded at each header (the cache's state ages). */
  price: NextRequestCostInfo | null = null;
  /** The whole answer (what the message adds, each attachment's tokens). */
  result: ChatPreflightResult | null = null;
  private timer: unknown;

  constructor(
    private readonly timers: Timers,
    /** Ask the server; null when there is no live chat to ask about. */
    private readonly ask: (text: string) => Promise<ChatPreflightResult> | null,
    /** The answer (or a clear) changed what the header shows. */
    private readonly changed: () => void,
    private readonly failed: (error: unknown) => void,
    /** Whether something is attached: the message is then worth a preflight even with no text yet. */
    private readonly attached: () => boolean = () => false,
  ) {}

  /** The input changed: ask again after a pause, or clear when the text is empty (and nothing attached) or a command. */
  typed(text: string, live: boolean): void {
    this.cancel();
    const empty = text.trim().length === 0 && !this.attached();
    if (!live || empty || (text.trim().length > 0 && parseInput(text).kind !== 'prompt')) {
      if (this.clear()) {
        this.changed();
      }
      return;
    }
    this.timer = this.timers.set(() => {
      this.timer = undefined;
      this.ask(text)
        ?.then((r) => {
          this.warning = preflightWarning(r);
          this.price = r.nextRequest ?? null;
          this.result = r;
          this.changed();
        })
        .catch((e: unknown) => this.failed(e));
    }, PREFLIGHT_DELAY_MS);
  }

  /** Forget the warning and the price (a prompt sent, another chat); answers whether there was one. */
  clear(): boolean {
    const had = this.warning !== null || this.price !== null || this.result !== null;
    this.warning = null;
    this.price = null;
    this.result = null;
    return had;
  }

  cancel(): void {
    if (this.timer !== undefined) {
      this.timers.clear(this.timer);
      this.timer = undefined;
    }
  }
}
