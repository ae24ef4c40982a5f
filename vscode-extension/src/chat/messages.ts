/**
 * Messages between the Chat webview and the extension host. The host owns the chat (the
 * transcript outlives the webview) and posts display data; the webview posts user intents.
 * The webview is untrusted input: `parseChatMessage` accepts only these shapes, with bounded
 * strings, and drops everything else.
 */
import type { ChatCompactPreview } from '../protocol.generated';
import type { FeatureView } from './capabilities';
import type { NextRequestText } from '../model/nextRequest';
import type { AttachmentChip } from './attachments';
import type { Completion } from './commands';
import type { MentionItem } from './ports';
import type { LensView } from './lens';
import type { LiveAction, LiveNotice } from './live';
import type { ChatItem, Queue } from './transcript';
import type { GaugeView } from './replyUsage';
import { messageObject } from '../webviewMessage';

/** `data-state` of the view's root: what the input can do now. */
export type ChatPhase = 'untrusted' | 'no-pi' | 'starting' | 'idle' | 'streaming' | 'exited';

/** The Chat view in an untrusted workspace (Restricted Mode), next to a button that opens the trust editor. */
export const UNTRUSTED_TEXT = 'The chat runs Pi, which can change files and run commands in this folder, so it starts only once you trust the workspace.';

export interface ChatHeader {
  phase: ChatPhase;
  /** While the server or Pi starts, or a request is on its way: a line under the header. */
  status: string | null;
  /** Why sending is held now (the server or Pi starting, a fork being applied): the send button's title. */
  hold: string | null;
  /** Restricted Mode: the sentence that says the chat needs a trusted workspace (`UNTRUSTED_TEXT`), else null. */
  untrusted: string | null;
  /** Pi missing: one sentence, the command that installs it, and the setting that names another command. */
  noPi: { message: string; installCommand: string; help: string } | null;
  /** About the Pi that runs: the files changed after it read them, a project it does not trust; each with its action. */
  live: LiveNotice[];
  session: string;
  sessionTitle: string;
  model: string;
  thinkingLevel: string;
  hasPrices: boolean;
  gauge: GaugeView | null;
  /** The live lens in one line (gauge, next request's price, cache state); a click opens the Context view. */
  lens: LensView | null;
  queue: Queue;
  compacting: boolean;
  /** The preflight's sentence for the text being typed (it will pass the compaction threshold). */
  warning: string | null;
  /** The preflight's price of sending the text being typed (`nextRequest`, model/nextRequest.ts). */
  nextRequest?: NextRequestText | null;
  /** Files and selections attached to the next prompt: the chips above the input. */
  attachments?: AttachmentChip[];
  /** Under the input: what the message (text and attachments) adds to the next request, its price and the cache. */
  adds?: { line: string; title: string } | null;
  compactPreview: { preview: ChatCompactPreview; focus: string | null } | null;
  /** Pi exited: its message, and whether a restart can resume the session. */
  exited: { message: string; canRestart: boolean } | null;
  completions: Completion[];
  /** Pi's extension status entries (`setStatus`), key order. */
  extensionStatus: string[];
  /** What this Pi lacks, each with its sentence (capabilities.ts); the controls it backs are disabled with it. */
  features: FeatureView;
}

/**
 * The Pi-missing notice as one sentence naming the install command once, split around it (the
 * view draws the command as code). The server's sentence (`pi/chat/locate`'s `message`) names the
 * command when installing Pi is the fix ("…; install Pi with: npm install -g …"); only a sentence
 * that does not (Pi found but broken) gets it added, in the same sentence.
 */
export function noPiSentence(message: string, installCommand: string): { before: string; command: string; after: string } {
  const at = installCommand ? message.indexOf(installCommand) : -1;
  if (at >= 0) {
    return { before: message.slice(0, at), command: installCommand, after: message.slice(at + installCommand.length) };
  }
  const sentence = message.trim().replace(/[.;:]+$/, '');
  return { before: `${sentence}; install Pi with: `, command: installCommand, after: '' };
}

export type ChatHostMessage =
  | { type: 'header'; header: ChatHeader }
  | { type: 'reset'; items: ChatItem[] }
  | { type: 'items'; items: ChatItem[] }
  | { type: 'setInput'; text: string }
  /** A prompt the host could not send: back into the input, unless the user typed something else since. */
  | { type: 'restoreInput'; text: string }
  /** What Pi had queued and no longer sends (Stop, Take back): added to the input after what is typed there. */
  | { type: 'queuedBack'; steering: string[]; followUp: string[] }
  /** The `@` completions for `query` (workspace files, then symbols). */
  | { type: 'mentions'; query: string; items: MentionItem[] };

export type ChatWebviewMessage =
  | { type: 'ready' }
  | { type: 'send'; text: string }
  | { type: 'input'; text: string }
  | { type: 'abort' }
  | { type: 'fork'; itemId: string }
  /** Send an earlier user message again: a fork at it, then the same text. */
  | { type: 'retry'; itemId: string }
  /** Open an edit tool card's diff in VS Code's diff editor. */
  | { type: 'openDiff'; itemId: string }
  | { type: 'dismiss'; itemId: string }
  | { type: 'copy'; text: string }
  | { type: 'openFile'; path: string; line: number | null }
  | { type: 'pickModel' }
  | { type: 'pickThinking' }
  | { type: 'newChat' }
  | { type: 'resume' }
  | { type: 'restart' }
  | { type: 'compactConfirm' }
  | { type: 'compactCancel' }
  | { type: 'copyInstall' }
  /** Open VS Code's workspace trust editor (`workbench.trust.manage`). */
  | { type: 'manageTrust' }
  /** Reload or restart Pi so it takes up the files as they are now, or trust the project for Pi. */
  | { type: 'liveAction'; action: LiveAction }
  /** Take back what Pi has queued (Pi's `clear_queue`): the texts return to the input. */
  | { type: 'takeBackQueue' }
  /** Open the settings editor at `piContext.pi.command`. */
  | { type: 'openPiSetting' }
  /** `@` typed in the input: the completions for what follows it. */
  | { type: 'mention'; query: string }
  /** An `@` completion chosen: attach the file (or the symbol's lines). */
  | { type: 'attach'; path: string; startLine: number | null; endLine: number | null }
  | { type: 'removeAttachment'; id: string }
  /** Undo an edit or write tool card. */
  | { type: 'undo'; itemId: string }
  /** Review every file the turn of this item changed, in VS Code's multi-file diff. */
  | { type: 'review'; itemId: string }
  /** A reply's code block: into the editor at its cursor, or as a new untitled document. */
  | { type: 'insertCode'; text: string }
  | { type: 'newFile'; text: string; language: string | null }
  | { type: 'openContext' }
  | { type: 'rename' };

const SIMPLE = new Set([
  'ready',
  'abort',
  'pickModel',
  'pickThinking',
  'newChat',
  'resume',
  'restart',
  'compactConfirm',
  'compactCancel',
  'copyInstall',
  'manageTrust',
  'takeBackQueue',
  'openPiSetting',
  'openContext',
  'rename',
]);

/** A prompt can be long (a pasted file); anything beyond this is not a prompt typed in a chat box. */
export const MAX_PROMPT = 1_000_000;
const MAX_NAME = 4096;

export function parseChatMessage(raw: unknown): ChatWebviewMessage | undefined {
  const m = messageObject(raw);
  if (m === undefined) {
    return undefined;
  }
  const type = m.type;
  if (SIMPLE.has(type)) {
    return { type } as ChatWebviewMessage;
  }
  switch (type) {
    case 'send':
    case 'input':
    case 'copy':
      return typeof m.text === 'string' && m.text.length <= MAX_PROMPT ? { type, text: m.text } : undefined;
    case 'fork':
    case 'retry':
    case 'openDiff':
    case 'dismiss':
    case 'undo':
    case 'review':
      return bounded(m.itemId) ? { type, itemId: m.itemId } : undefined;
    case 'removeAttachment':
      return bounded(m.id) ? { type, id: m.id } : undefined;
    case 'mention':
      return typeof m.query === 'string' && m.query.length <= MAX_NAME ? { type, query: m.query } : undefined;
    case 'insertCode':
      return typeof m.text === 'string' && m.text.length <= MAX_PROMPT ? { type, text: m.text } : undefined;
    case 'newFile': {
      const language = typeof m.language === 'string' && /^[\w+#.-]{1,40}$/.test(m.language) ? m.language : null;
      return typeof m.text === 'string' && m.text.length <= MAX_PROMPT ? { type, text: m.text, language } : undefined;
    }
    case 'attach': {
      const line = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null);
      return bounded(m.path) ? { type, path: m.path, startLine: line(m.startLine), endLine: line(m.endLine) } : undefined;
    }
    case 'liveAction':
      return m.action === 'reload' || m.action === 'restart' || m.action === 'trust' ? { type, action: m.action } : undefined;
    case 'openFile': {
      const line = typeof m.line === 'number' && Number.isInteger(m.line) && m.line > 0 ? m.line : null;
      return bounded(m.path) ? { type, path: m.path, line } : undefined;
    }
    default:
      return undefined;
  }
}

function bounded(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_NAME;
}
