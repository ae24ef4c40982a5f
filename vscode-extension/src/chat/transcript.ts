/**
 * The chat's transcript: Pi's events (`pi/chat/event`, records exactly as Pi wrote them) folded
 * into the items the Chat view draws — user messages, assistant replies (text and thinking blocks,
 * streamed by deltas), tool calls as cards, retries, compactions, errors and the end of Pi.
 *
 * Pi's wire `message_update` records are delta-only (no cumulative `message`), so the reducer
 * buffers deltas by `contentIndex` and replaces them with the authoritative content Pi sends in
 * `text_end` / `thinking_end` / `toolcall_end` and finally `message_end`. A view that attaches in
 * the middle of a reply (after a reload) starts from `pi/chat/messages` (`fromSnapshot`: Pi's
 * messages and the run's records in flight at the same point) and applies the events numbered after
 * it; a delta for a reply it never saw start still opens that reply on the spot.
 *
 * No vscode import: the extension host keeps one `Transcript` per chat (it outlives the webview)
 * and posts the changed items; the tests feed it event streams recorded from the real Pi.
 */

export type ToolStatus = 'pending' | 'running' | 'done' | 'error';
export type EventKind = 'retry' | 'compaction' | 'error' | 'exited';

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: number | null;
}

export interface TextBlock {
  type: 'text' | 'thinking';
  text: string;
}

export interface UserItem {
  kind: 'user';
  id: string;
  text: string;
  /** The session entry id (from `pi/chat/forkPoints`), needed to fork at this message. */
  entryId: string | null;
}

export interface AssistantItem {
  kind: 'assistant';
  id: string;
  blocks: TextBlock[];
  streaming: boolean;
  usage: Usage | null;
  model: string | null;
  stopReason: string | null;
  errorMessage: string | null;
}

export interface ToolItem {
  kind: 'tool';
  id: string;
  toolCallId: string;
  name: string;
  /** The arguments as JSON text (while the model streams them: the raw text so far). */
  args: string;
  output: string;
  status: ToolStatus;
  durationMs: number | null;
  /** An edit's unified patch (Pi's `details.patch`), shown as the card's diff. */
  patch: string | null;
  /** The first changed line of an edit (Pi's `details.firstChangedLine`): the card's link opens the file there. */
  line: number | null;
  /** An edit's diff link: what its two sides are (set by the host once it has built them, `chat/editDiff.ts`). */
  diffNote?: string | null;
  /** An edit or write the host can undo (`undo.ts`), or has undone. */
  undo?: 'available' | 'done';
}

export interface EventItem {
  kind: 'event';
  id: string;
  event: EventKind;
  text: string;
  /** A compaction's summary, shown in a `details`. */
  summary: string | null;
  running: boolean;
}

export interface NoticeItem {
  kind: 'notice';
  id: string;
  level: 'info' | 'warning' | 'error';
  text: string;
}

export type ChatItem = UserItem | AssistantItem | ToolItem | EventItem | NoticeItem;

export interface Queue {
  steering: string[];
  followUp: string[];
}

type Json = Record<string, unknown>;

/** Pi's records in a transcript, in order; `apply` answers the ids of the items it changed. */
export class Transcript {
  items: ChatItem[] = [];
  streaming = false;
  compacting = false;
  queue: Queue = { steering: [], followUp: [] };
  /** Compactions that ended with an error (Pi's `compaction_end` with `errorMessage`), so a request's refusal is not said twice. */
  compactionFailures = 0;
  /** The last usage Pi reported (live while a reply streams): the gauge follows it. */
  lastUsage: Usage | null = null;
  sessionName: string | null = null;
  thinkingLevel: string | null = null;

  /** The text of the conversation's first user message (what names the conversation until Pi has a name for it). */
  firstUserText(): string | null {
    const first = this.items.find((i): i is UserItem => i.kind === 'user');
    return first ? first.text : null;
  }
  /**
   * Pi's estimate of the context after each compaction, by its tokens before (Pi's `compaction_end` says it; the
   * session's `compactionSummary` message does not): the host keeps it in the workspace state, so a transcript
   * rebuilt after a window reload still says "about N after".
   */
  compactionAfter = new Map<number, number>();

  private counter = 0;
  private current: AssistantItem | null = null;
  /** contentIndex -> the block or tool card it feeds, for the reply being streamed. */
  private slots = new Map<number, TextBlock | ToolItem>();
  private tools = new Map<string, ToolItem>();
  private lastError: EventItem | null = null;
  /** The retry line of the retries going on: one line per failed request and its retries. */
  private retry: EventItem | null = null;

  /** A transcript rebuilt from `pi/chat/messages` (Pi's `get_messages`). */
  static fromMessages(messages: readonly unknown[], compactionAfter?: ReadonlyMap<number, number>): Transcript {
    const t = new Transcript();
    for (const [before, after] of compactionAfter ?? []) {
      t.compactionAfter.set(before, after);
    }
    for (const raw of messages) {
      if (isObject(raw)) {
        t.addMessage(raw);
      }
    }
    return t;
  }

  /**
   * A transcript rebuilt from `pi/chat/messages`: Pi's messages, then the records of the run in
   * progress at the same point (`inFlight`: the reply being streamed, the tools running). Dialogs
   * (`extension_ui_request`) are left to the caller, which asks the user. The events numbered after
   * the snapshot's `seq` follow it.
   */
  static fromSnapshot(
    messages: readonly unknown[],
    inFlight: readonly unknown[],
    compactionAfter?: ReadonlyMap<number, number>,
  ): Transcript {
    const t = Transcript.fromMessages(messages, compactionAfter);
    for (const raw of inFlight) {
      if (isObject(raw) && raw.type !== 'extension_ui_request') {
        t.apply(raw);
      }
    }
    return t;
  }

  get(id: string): ChatItem | undefined {
    return this.items.find((item) => item.id === id);
  }

  /** Fold one Pi record; answers the ids of the items added or changed. */
  apply(event: Json): string[] {
    const changed = new Set<string>();
    const touch = (item: ChatItem | null | undefined): void => {
      if (item) {
        changed.add(item.id);
      }
    };
    switch (event.type) {
      case 'agent_start':
        this.streaming = true;
        break;
      case 'agent_settled':
        this.streaming = false;
        this.retry = null;
        if (this.current) {
          this.current.streaming = false;
          touch(this.current);
          this.current = null;
        }
        // A settled run's unfinished tool calls never get a result: Pi says the run was aborted, or (before
        // Pi 1.1.0, whose agent_settled has no `aborted`) cannot say, and such calls were left by a stop.
        for (const tool of this.tools.values()) {
          if (tool.status === 'pending' || tool.status === 'running') {
            tool.status = event.aborted !== false ? 'error' : tool.status;
            touch(tool);
          }
        }
        break;
      case 'message_start':
        this.messageStart(event.message, touch);
        break;
      case 'message_update':
        this.messageUpdate(event, touch);
        break;
      case 'message_end':
        this.messageEnd(event.message, touch);
        break;
      case 'tool_execution_start':
      case 'tool_execution_update':
      case 'tool_execution_end':
        this.toolExecution(event, touch);
        break;
      case 'auto_retry_start':
        touch(this.retryStart(event));
        break;
      case 'auto_retry_end':
        touch(this.retryEnd(event));
        break;
      case 'compaction_start':
        this.compacting = true;
        touch(this.compactionStart(event));
        break;
      case 'compaction_end':
        this.compacting = false;
        touch(this.compactionEnd(event));
        break;
      case 'queue_update':
        this.queue = { steering: strings(event.steering), followUp: strings(event.followUp) };
        break;
      case 'session_info_changed':
        this.sessionName = typeof event.name === 'string' ? event.name : null;
        break;
      case 'thinking_level_changed':
        this.thinkingLevel = typeof event.level === 'string' ? event.level : this.thinkingLevel;
        break;
      case 'extension_error':
        touch(this.notice('error', `A Pi extension failed (${str(event.event) || 'event'}): ${str(event.error)}`));
        break;
      default:
        break;
    }
    return [...changed];
  }

  /** A line of our own in the conversation (a fork, a notice from the server). */
  notice(level: NoticeItem['level'], text: string): NoticeItem {
    const item: NoticeItem = { kind: 'notice', id: this.nextId('n'), level, text };
    this.items.push(item);
    return item;
  }

  /**
   * The error notices of `from` (a transcript this one replaces: a chat taken up, a fork, a new
   * chat) at the end of this one: an error stays until the user dismisses it or sends again.
   * Answers the notices added.
   */
  keepErrors(from: Transcript): NoticeItem[] {
    return from.items
      .filter((item): item is NoticeItem => item.kind === 'notice' && item.level === 'error')
      .map((item) => this.notice('error', item.text));
  }

  /** The user closed a notice; answers whether there was one with that id. */
  dismiss(id: string): boolean {
    const before = this.items.length;
    this.items = this.items.filter((item) => !(item.kind === 'notice' && item.id === id));
    return this.items.length !== before;
  }

  /** A new prompt: the error notices of the attempts before it go; answers whether any did. */
  clearErrors(): boolean {
    const before = this.items.length;
    this.items = this.items.filter((item) => !(item.kind === 'notice' && item.level === 'error'));
    return this.items.length !== before;
  }

  /** Pi ended: nothing streams any more; the end is said inline. */
  exited(message: string, expected: boolean): EventItem {
    this.streaming = false;
    this.compacting = false;
    if (this.current) {
      this.current.streaming = false;
      this.current = null;
    }
    for (const tool of this.tools.values()) {
      if (tool.status === 'pending' || tool.status === 'running') {
        tool.status = 'error';
      }
    }
    const text = expected ? message : `${message}. The session file is kept: restart to resume it.`;
    const item = this.event('exited', text, null, false);
    return item;
  }

  /**
   * Give user messages their session entry ids from `pi/chat/forkPoints` (Pi's user messages on
   * the current branch, in order). Matched from the end, by text, since a compacted conversation
   * may show fewer messages than the branch holds. Answers the ids of the items it changed.
   */
  assignEntryIds(points: readonly { entryId: string; text: string }[]): string[] {
    const changed: string[] = [];
    let p = points.length - 1;
    for (let i = this.items.length - 1; i >= 0 && p >= 0; i--) {
      const item = this.items[i];
      if (item?.kind !== 'user') {
        continue;
      }
      let q = p;
      while (q >= 0 && points[q]?.text !== item.text) {
        q--;
      }
      if (q < 0) {
        continue;
      }
      const entryId = points[q]?.entryId ?? null;
      if (item.entryId !== entryId) {
        item.entryId = entryId;
        changed.push(item.id);
      }
      p = q - 1;
    }
    return changed;
  }

  /** The last user message's text (Up in an empty input edits it). */
  lastUserText(): string | null {
    for (let i = this.items.length - 1; i >= 0; i--) {
      const item = this.items[i];
      if (item?.kind === 'user') {
        return item.text;
      }
    }
    return null;
  }

  private nextId(prefix: string): string {
    this.counter += 1;
    return `${prefix}${this.counter}`;
  }

  private event(kind: EventKind, text: string, summary: string | null, running: boolean): EventItem {
    const item: EventItem = { kind: 'event', id: this.nextId('e'), event: kind, text, summary, running };
    this.items.push(item);
    return item;
  }

  private addMessage(message: Json): void {
    const noop = (): void => {};
    switch (message.role) {
      case 'user':
      case 'assistant':
      case 'toolResult':
        this.messageStart(message, noop);
        this.messageEnd(message, noop);
        break;
      case 'compactionSummary': {
        const before = num(message.tokensBefore);
        this.event('compaction', compactionText(before, this.compactionAfter.get(before) ?? null), str(message.summary), false);
        break;
      }
      case 'branchSummary':
        this.notice('info', `Branch summary: ${str(message.summary)}`);
        break;
      case 'bashExecution':
        this.notice('info', `$ ${str(message.command)}\n${str(message.output)}`);
        break;
      case 'custom':
        if (message.display !== false) {
          this.notice('info', contentText(message.content));
        }
        break;
      default:
        break;
    }
  }

  private messageStart(raw: unknown, touch: (item: ChatItem) => void): void {
    if (!isObject(raw)) {
      return;
    }
    if (raw.role === 'user') {
      const item: UserItem = { kind: 'user', id: this.nextId('u'), text: contentText(raw.content), entryId: null };
      this.items.push(item);
      touch(item);
    } else if (raw.role === 'assistant') {
      touch(this.openReply(raw));
    } else if (raw.role === 'toolResult') {
      this.toolResult(raw, touch);
    }
  }

  private openReply(message: Json | null): AssistantItem {
    const item: AssistantItem = {
      kind: 'assistant',
      id: this.nextId('a'),
      blocks: [],
      streaming: true,
      usage: null,
      model: message ? modelName(message) : null,
      stopReason: null,
      errorMessage: null,
    };
    this.items.push(item);
    this.current = item;
    this.slots = new Map();
    return item;
  }

  private messageUpdate(event: Json, touch: (item: ChatItem) => void): void {
    const reply = this.current ?? this.openReply(null);
    touch(reply);
    const usage = readUsage(event.usage);
    if (usage && usage.totalTokens > 0) {
      reply.usage = usage;
      this.lastUsage = usage;
    }
    const update = event.assistantMessageEvent;
    if (!isObject(update)) {
      return;
    }
    const index = typeof update.contentIndex === 'number' ? update.contentIndex : 0;
    switch (update.type) {
      case 'text_start':
      case 'thinking_start':
        this.block(reply, index, update.type === 'text_start' ? 'text' : 'thinking');
        break;
      case 'text_delta':
      case 'thinking_delta':
        this.block(reply, index, update.type === 'text_delta' ? 'text' : 'thinking').text += str(update.delta);
        break;
      case 'text_end':
      case 'thinking_end':
        this.block(reply, index, update.type === 'text_end' ? 'text' : 'thinking').text = str(update.content);
        break;
      case 'toolcall_start': {
        const tool = this.tool(str(update.id) || `call-${index}`, str(update.toolName));
        this.slots.set(index, tool);
        touch(tool);
        break;
      }
      case 'toolcall_delta': {
        const tool = this.slots.get(index);
        if (tool && 'toolCallId' in tool) {
          tool.args += str(update.delta);
          touch(tool);
        }
        break;
      }
      case 'toolcall_end':
        if (isObject(update.toolCall)) {
          const call = update.toolCall;
          const tool = this.tool(str(call.id), str(call.name));
          tool.args = argsText(call.arguments);
          this.slots.set(index, tool);
          touch(tool);
        }
        break;
      default:
        break;
    }
  }

  /** The text or thinking block at a content index of the streamed reply (opened when missing). */
  private block(reply: AssistantItem, index: number, type: TextBlock['type']): TextBlock {
    const slot = this.slots.get(index);
    if (slot && !('toolCallId' in slot) && slot.type === type) {
      return slot;
    }
    const block: TextBlock = { type, text: '' };
    this.slots.set(index, block);
    // Blocks are drawn in content order; tool calls are cards of their own.
    const ordered = [...this.slots.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
    reply.blocks = ordered.filter((s): s is TextBlock => !('toolCallId' in s));
    return block;
  }

  private messageEnd(raw: unknown, touch: (item: ChatItem) => void): void {
    if (!isObject(raw)) {
      return;
    }
    if (raw.role === 'user') {
      const last = [...this.items].reverse().find((i): i is UserItem => i.kind === 'user');
      if (last) {
        last.text = contentText(raw.content);
        touch(last);
      }
      return;
    }
    if (raw.role === 'toolResult') {
      this.toolResult(raw, touch);
      return;
    }
    if (raw.role !== 'assistant') {
      return;
    }
    const reply = this.current ?? this.openReply(raw);
    this.current = null;
    reply.streaming = false;
    reply.model = modelName(raw) ?? reply.model;
    reply.stopReason = typeof raw.stopReason === 'string' ? raw.stopReason : null;
    reply.errorMessage = typeof raw.errorMessage === 'string' ? raw.errorMessage : null;
    const usage = readUsage(raw.usage);
    if (usage) {
      reply.usage = usage;
      if (usage.totalTokens > 0) {
        this.lastUsage = usage;
      }
    }
    const blocks: TextBlock[] = [];
    for (const part of Array.isArray(raw.content) ? raw.content : []) {
      if (!isObject(part)) {
        continue;
      }
      if (part.type === 'text') {
        blocks.push({ type: 'text', text: str(part.text) });
      } else if (part.type === 'thinking') {
        blocks.push({ type: 'thinking', text: str(part.thinking) });
      } else if (part.type === 'toolCall') {
        const tool = this.tool(str(part.id), str(part.name));
        tool.args = argsText(part.arguments);
        touch(tool);
      }
    }
    reply.blocks = blocks;
    touch(reply);
    if (reply.stopReason === 'error') {
      const why = reply.errorMessage ?? 'The model answered with an error.';
      if (this.retry) {
        this.retry.text = `${why}: ${this.retry.text.replace(/^.*?: (retrying|retried)/, '$1')}`;
        touch(this.retry);
      } else {
        const item = this.event('error', why, null, false);
        this.lastError = item;
        touch(item);
      }
    }
    if (blocks.length === 0 && reply.stopReason === 'error') {
      // An error before any content: the error line says it all, an empty bubble would not.
      this.items = this.items.filter((i) => i !== reply);
    }
  }

  private tool(toolCallId: string, name: string): ToolItem {
    const known = this.tools.get(toolCallId);
    if (known) {
      if (name) {
        known.name = name;
      }
      return known;
    }
    const item: ToolItem = {
      kind: 'tool',
      id: `t-${toolCallId}`,
      toolCallId,
      name,
      args: '',
      output: '',
      status: 'pending',
      durationMs: null,
      patch: null,
      line: null,
    };
    this.tools.set(toolCallId, item);
    this.items.push(item);
    return item;
  }

  private toolExecution(event: Json, touch: (item: ChatItem) => void): void {
    const tool = this.tool(str(event.toolCallId), str(event.toolName));
    if (event.args !== undefined) {
      tool.args = argsText(event.args);
    }
    if (event.type === 'tool_execution_start') {
      tool.status = 'running';
    } else if (event.type === 'tool_execution_update') {
      tool.status = 'running';
      if (isObject(event.partialResult)) {
        tool.output = contentText(event.partialResult.content);
      }
    } else {
      tool.status = event.isError === true ? 'error' : 'done';
      if (isObject(event.result)) {
        tool.output = contentText(event.result.content);
        readDetails(tool, event.result.details);
      }
      tool.durationMs = typeof event.durationMs === 'number' ? event.durationMs : tool.durationMs;
    }
    touch(tool);
  }

  private toolResult(message: Json, touch: (item: ChatItem) => void): void {
    const tool = this.tool(str(message.toolCallId), str(message.toolName));
    tool.output = contentText(message.content);
    readDetails(tool, message.details);
    tool.status = message.isError === true ? 'error' : 'done';
    tool.durationMs = typeof message.durationMs === 'number' ? message.durationMs : tool.durationMs;
    touch(tool);
  }

  /** A retry after an error: the error line just shown becomes the retry line, and later attempts update it. */
  private retryStart(event: Json): EventItem {
    const attempt = num(event.attempt);
    const max = num(event.maxAttempts);
    const delay = num(event.delayMs);
    const why = str(event.errorMessage) || this.lastError?.text || 'the request failed';
    const text = `${why}: retrying (attempt ${attempt}${max ? ` of ${max}` : ''}) in ${formatDelay(delay)}`;
    let item = this.retry;
    if (!item) {
      const last = this.items[this.items.length - 1];
      item = last && last === this.lastError ? last : this.event('retry', text, null, true);
    }
    item.event = 'retry';
    item.text = text;
    item.running = true;
    this.retry = item;
    this.lastError = null;
    return item;
  }

  private retryEnd(event: Json): EventItem {
    const item = this.retry ?? this.event('retry', '', null, false);
    this.retry = null;
    item.running = false;
    const attempt = num(event.attempt);
    if (event.success === true) {
      item.text = `${item.text.replace(/: retrying .*$/, '')}: retried, attempt ${attempt} succeeded`;
    } else {
      item.event = 'error';
      item.text = `Gave up after ${attempt} ${attempt === 1 ? 'retry' : 'retries'}: ${str(event.finalError) || 'the request kept failing'}`;
    }
    return item;
  }

  private compactionStart(event: Json): EventItem {
    const why = { manual: 'on request', threshold: 'the context passed the threshold', overflow: 'the context overflowed' };
    const reason = why[str(event.reason) as keyof typeof why] ?? str(event.reason);
    return this.event('compaction', `Compacting (${reason})…`, null, true);
  }

  private compactionEnd(event: Json): EventItem {
    let item = [...this.items].reverse().find((i): i is EventItem => i.kind === 'event' && i.event === 'compaction' && i.running);
    item ??= this.event('compaction', '', null, false);
    item.running = false;
    if (isObject(event.result)) {
      const r = event.result;
      const after = typeof r.estimatedTokensAfter === 'number' ? r.estimatedTokensAfter : null;
      item.text = compactionText(num(r.tokensBefore), after);
      if (after !== null) {
        this.compactionAfter.set(num(r.tokensBefore), after);
      }
      item.summary = str(r.summary);
      if (event.willRetry === true) {
        item.text += '; Pi retries the prompt';
      }
    } else if (event.aborted === true) {
      item.text = 'Compaction aborted: nothing was written';
    } else {
      item.event = 'error';
      const why = str(event.errorMessage) || 'no reason given';
      item.text = /^Compaction failed\b/.test(why) ? why : `Compaction failed: ${why}`; // Pi's message says it already
      this.compactionFailures += 1;
    }
    return item;
  }
}

/** What a tool's `details` adds to its card: an edit's patch and where it starts. */
function readDetails(tool: ToolItem, details: unknown): void {
  if (!isObject(details)) {
    return;
  }
  if (typeof details.patch === 'string' && details.patch.length > 0) {
    tool.patch = details.patch;
  }
  if (typeof details.firstChangedLine === 'number' && Number.isInteger(details.firstChangedLine)) {
    tool.line = details.firstChangedLine;
  }
}

function compactionText(before: number, after: number | null): string {
  const b = before.toLocaleString('en-US');
  return after === null ? `Compacted: ${b} tokens before` : `Compacted: ${b} tokens before, about ${after.toLocaleString('en-US')} after`;
}

function formatDelay(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v : contentText(v))) : [];
}

function modelName(message: Json): string | null {
  const model = str(message.model);
  const provider = str(message.provider);
  return model ? (provider ? `${provider}/${model}` : model) : null;
}

/** A message's content as text: a string, or the text parts of an array (images as a marker). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') {
    return content;
  }
  if (!Array.isArray(content)) {
    return '';
  }
  return content
    .map((part) => {
      if (!isObject(part)) {
        return '';
      }
      if (part.type === 'text') {
        return str(part.text);
      }
      return part.type === 'image' ? '[image]' : '';
    })
    .filter((s) => s.length > 0)
    .join('\n');
}

function argsText(args: unknown): string {
  if (typeof args === 'string') {
    return args;
  }
  return args === undefined ? '' : JSON.stringify(args, null, 2);
}

/** Pi's usage object (`input`, `output`, `cacheRead`, `cacheWrite`, `totalTokens`, `cost.total`). */
export function readUsage(value: unknown): Usage | null {
  if (!isObject(value)) {
    return null;
  }
  const cost = isObject(value.cost) && typeof value.cost.total === 'number' ? value.cost.total : null;
  return {
    input: num(value.input),
    output: num(value.output),
    cacheRead: num(value.cacheRead),
    cacheWrite: num(value.cacheWrite),
    totalTokens: num(value.totalTokens),
    cost,
  };
}
