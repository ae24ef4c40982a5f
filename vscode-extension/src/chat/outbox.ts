/**
 * What the host posts to the Chat webview, and when: the header and the whole transcript after `ready`, a reload
 * or the view shown again; a burst of changed items (deltas arrive faster than a frame) as one message per frame,
 * with the header after it. No VS Code here: the webview is the `ChatView` port, the frame a `Timers` delay.
 */
import type { ChatHeader, ChatHostMessage } from './messages';
import type { ChatView, Timers } from './ports';
import type { ChatItem, Transcript } from './transcript';

export const POST_DELAY_MS = 16;

export class ChatOutbox {
  private readonly pending = new Set<string>();
  private timer: unknown;

  constructor(
    private readonly view: ChatView,
    private readonly timers: Timers,
    private readonly transcript: () => Transcript,
    /** The header as it is now (the controller computes it; it also sets the streaming context key). */
    private readonly header: () => ChatHeader,
  ) {}

  post(message: ChatHostMessage): void {
    this.view.post(message);
  }

  /** Everything again: after `ready`, a reload, or the view shown again. */
  all(): void {
    this.pending.clear();
    this.postHeader();
    this.post({ type: 'reset', items: this.transcript().items });
  }

  postHeader(): void {
    this.post({ type: 'header', header: this.header() });
  }

  /** Changed items, coalesced: a burst of deltas becomes one message per frame, then the header. */
  changed(ids: readonly string[]): void {
    for (const id of ids) {
      this.pending.add(id);
    }
    if (this.timer !== undefined) {
      return;
    }
    this.timer = this.timers.set(() => this.flush(), POST_DELAY_MS);
  }

  private flush(): void {
    this.timer = undefined;
    const transcript = this.transcript();
    const items = [...this.pending].map((id) => transcript.get(id));
    this.pending.clear();
    if (items.some((item) => item === undefined)) {
      this.post({ type: 'reset', items: transcript.items }); // an item went away
    } else if (items.length > 0) {
      this.post({ type: 'items', items: items as ChatItem[] });
    }
    this.postHeader();
  }

  dispose(): void {
    if (this.timer !== undefined) {
      this.timers.clear(this.timer);
      this.timer = undefined;
    }
  }
}
