/**
 * What the chat attaches to the next prompt (files and selections, shown as chips above the input) and the line
 * under the input that says what the message adds to the next request. The server builds the text Pi receives
 * (`pi/chat/prompt {attachments}`: Pi's `@file` blocks, docs/chat.md) and counts each attachment with the budget's
 * estimator (`pi/chat/preflight`'s `attachments`); this module only keeps the list and words the numbers. No VS Code.
 */
import { formatExact } from '../model/format';
import type { NextRequestText } from '../model/nextRequest';
import type { ChatAttachment, ChatAttachmentInfo, ChatPreflightResult } from '../protocol.generated';

export interface AttachmentChip {
  id: string;
  /** Absolute path: the `<file name>` Pi gets. */
  path: string;
  /** What the chip reads: the file's name, with the lines of a selection. */
  label: string;
  startLine: number | null;
  endLine: number | null;
  /** A selection's text as the editor had it when attached (an unsaved buffer's). */
  text: string | null;
  /** The server's count of the block (the budget's estimator), once the preflight answered. */
  tokens: number | null;
  /** Why the server will not attach it (too large, binary, unreadable): one sentence naming the file. */
  refused: string | null;
}

/** The most chips at once (the server refuses more than 32 attachments too). */
export const MAX_CHIPS = 32;

function baseName(file: string): string {
  const parts = file.split(/[\\/]/);
  return parts[parts.length - 1] || file;
}

export function chipLabel(file: string, startLine: number | null, endLine: number | null): string {
  const name = baseName(file);
  if (startLine === null) {
    return name;
  }
  return endLine !== null && endLine !== startLine ? `${name}:${startLine}-${endLine}` : `${name}:${startLine}`;
}

export class Attachments {
  private chips: AttachmentChip[] = [];
  private next = 0;

  get list(): readonly AttachmentChip[] {
    return this.chips;
  }

  /** Attach a file or lines of it; the same file (or the same lines) twice is one chip. Answers whether it was added. */
  add(file: string, lines: { start: number; end: number; text: string | null } | null = null): boolean {
    const startLine = lines?.start ?? null;
    const endLine = lines?.end ?? null;
    if (this.chips.some((c) => c.path === file && c.startLine === startLine && c.endLine === endLine)) {
      return false;
    }
    if (this.chips.length >= MAX_CHIPS) {
      throw new Error(`A prompt takes at most ${MAX_CHIPS} attachments.`);
    }
    this.chips.push({
      id: `a${++this.next}`,
      path: file,
      label: chipLabel(file, startLine, endLine),
      startLine,
      endLine,
      text: lines?.text ?? null,
      tokens: null,
      refused: null,
    });
    return true;
  }

  remove(id: string): boolean {
    const before = this.chips.length;
    this.chips = this.chips.filter((c) => c.id !== id);
    return this.chips.length !== before;
  }

  clear(): void {
    this.chips = [];
  }

  /** What `pi/chat/prompt` and `pi/chat/preflight` take. */
  wire(): ChatAttachment[] {
    return this.chips.map((c) => ({
      path: c.path,
      ...(c.startLine !== null ? { startLine: c.startLine, endLine: c.endLine ?? c.startLine } : {}),
      ...(c.text !== null ? { text: c.text } : {}),
    }));
  }

  /** The preflight's answer: each chip's tokens or refusal (matched by file and lines). */
  counted(infos: readonly ChatAttachmentInfo[]): void {
    for (const chip of this.chips) {
      const info = infos.find(
        (i) => i.path === chip.path && (i.startLine ?? null) === chip.startLine && (i.endLine ?? null) === chip.endLine,
      );
      if (info) {
        chip.tokens = info.tokens?.estimate ?? null;
        chip.refused = info.refused ?? null;
      }
    }
  }
}

/**
 * The start of the line under the input: what sending the message now adds to the next request (its tokens by the
 * budget's estimator, those of the attachments among them); the next request's price and the cache's state follow it
 * (the view puts `nextRequestText`'s line beside it); the hover has both.
 */
export function addsLine(result: ChatPreflightResult, price: NextRequestText | null): { line: string; title: string } {
  const attached = (result.attachments ?? []).filter((a) => a.tokens);
  const fromFiles = attached.reduce((sum, a) => sum + (a.tokens?.estimate ?? 0), 0);
  const files = attached.length === 1 ? '1 attachment' : `${attached.length} attachments`;
  // The price and the cache's state follow on the same line (the next request's own element, `nextRequest.ts`).
  const line =
    `Adds ${formatExact(result.textTokens.estimate)} tokens` + (attached.length > 0 ? ` (${formatExact(fromFiles)} from ${files})` : '');
  const title =
    `This message (text and attachments, as Pi receives them) is about ${formatExact(result.textTokens.estimate)} tokens ` +
    `(Pi's own count: ${formatExact(result.textTokens.pi)}); the context becomes about ${formatExact(result.afterPrompt)} ` +
    `of ${formatExact(result.window)}, compaction at ${formatExact(result.threshold)}.` +
    (price ? `\n${price.title}` : '');
  return { line, title };
}

/** One `<file>` block at the start of a sent message, as the transcript shows it (a chip, the text in its hover). */
export interface SentFile {
  name: string;
  label: string;
  /** A selection (the block has `lines`). */
  selection: boolean;
  startLine: number | null;
  endLine: number | null;
  content: string;
}

const BLOCK_HEAD = /^<file name="([^"\n]*)"(?: lines="(\d+)-(\d+)")?>\n/;

/**
 * A user message Pi received with attachments, split for display: the `<file>` blocks it starts with (Pi's `@file`
 * format, docs/chat.md) and the text typed after them. Only well-formed blocks at the start are taken; anything else
 * stays text.
 */
export function splitFileBlocks(text: string): { files: SentFile[]; text: string } {
  const files: SentFile[] = [];
  let rest = text;
  for (;;) {
    const head = BLOCK_HEAD.exec(rest);
    if (!head) {
      break;
    }
    const body = rest.slice(head[0].length);
    const end = body.indexOf('\n</file>\n');
    if (end < 0) {
      break;
    }
    const start = head[2] ? Number(head[2]) : null;
    const stop = head[3] ? Number(head[3]) : null;
    const name = head[1] ?? '';
    const content = body.slice(0, end);
    files.push({ name, label: chipLabel(name, start, stop), selection: start !== null, startLine: start, endLine: stop, content });
    rest = body.slice(end + '\n</file>\n'.length);
  }
  return { files, text: rest };
}
