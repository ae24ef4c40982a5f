/**
 * The projected request as the sidebar shows it: the system prompt, then the messages grouped
 * into turns (a user message opens a turn; the assistant replies and tool results that follow belong
 * to it). Compaction and branch summaries stand alone and are marked, because they are the places
 * where the model no longer sees the original conversation.
 */
import type { ProjectedMessage, ProjectedRequestResult } from '../protocol.generated';
import { type EstimateChoice, pick } from './estimate';

export type SummaryMarker = 'compaction' | 'branch';

export interface MessageRow {
  index: number;
  role: string;
  kind: string;
  label: string;
  entryId: string | null;
  tokens: number;
  /** The text, cut to the display limit (the full request opens as a document). */
  text: string;
  /** Characters left out of `text` (0 when it is whole). */
  omitted: number;
  marker: SummaryMarker | null;
}

export interface MessageGroup {
  /** Stable across refreshes while the session only grows: the first message's entry id or index. */
  key: string;
  title: string;
  kind: 'turn' | 'summary' | 'preamble';
  marker: SummaryMarker | null;
  tokens: number;
  rows: MessageRow[];
}

export interface RequestView {
  modelLabel: string;
  /** "System prompt" and where it comes from (the session's stored prompt or the workspace's). */
  systemLabel: string;
  /** The system prompt's sections with their tokens, in prompt order. */
  systemSections: Array<{ name: string; tokens: number }>;
  thinkingLevel: string;
  systemTokens: number;
  messageTokens: number;
  total: number;
  messageCount: number;
  groups: MessageGroup[];
}

export const DEFAULT_TEXT_LIMIT = 2000;

const KIND_LABEL: Record<string, string> = {
  user: 'User',
  assistant: 'Assistant',
  toolResult: 'Tool result',
  compactionSummary: 'Compaction summary',
  branchSummary: 'Branch summary',
  bashExecution: 'Shell command',
  custom: 'Extension message',
};

export function summaryMarker(kind: string): SummaryMarker | null {
  if (kind === 'compactionSummary') {
    return 'compaction';
  }
  if (kind === 'branchSummary') {
    return 'branch';
  }
  return null;
}

export function messageLabel(m: Pick<ProjectedMessage, 'kind' | 'role'>): string {
  return KIND_LABEL[m.kind] ?? KIND_LABEL[m.role] ?? m.kind;
}

/** Cut at a code-point boundary so a surrogate pair is never split in the view. */
export function clipText(text: string, limit: number): { text: string; omitted: number } {
  if (text.length <= limit) {
    return { text, omitted: 0 };
  }
  let end = limit;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) {
    end -= 1;
  }
  return { text: text.slice(0, end), omitted: text.length - end };
}

export function groupMessages(
  messages: ProjectedMessage[],
  choice: EstimateChoice,
  limit: number = DEFAULT_TEXT_LIMIT,
): MessageGroup[] {
  const groups: MessageGroup[] = [];
  let current: MessageGroup | null = null;
  let turn = 0;
  for (const m of [...messages].sort((a, b) => a.index - b.index)) {
    const marker = summaryMarker(m.kind);
    const clipped = clipText(m.text, limit);
    const row: MessageRow = {
      index: m.index,
      role: m.role,
      kind: m.kind,
      label: messageLabel(m),
      entryId: m.entryId ?? null,
      tokens: pick(m.tokens, choice),
      text: clipped.text,
      omitted: clipped.omitted,
      marker,
    };
    const key = m.entryId ?? `#${m.index}`;
    if (marker) {
      groups.push({ key, title: row.label, kind: 'summary', marker, tokens: row.tokens, rows: [row] });
      current = null;
      continue;
    }
    if (m.role === 'user' && m.kind === 'user') {
      turn += 1;
      current = { key, title: `Turn ${turn}`, kind: 'turn', marker: null, tokens: 0, rows: [] };
      groups.push(current);
    } else if (!current) {
      current = { key, title: 'Before the first user message', kind: 'preamble', marker: null, tokens: 0, rows: [] };
      groups.push(current);
    }
    current.rows.push(row);
    current.tokens += row.tokens;
  }
  return groups;
}

export function requestView(
  result: ProjectedRequestResult,
  choice: EstimateChoice,
  modelLabel: string,
  limit: number = DEFAULT_TEXT_LIMIT,
): RequestView {
  const systemTokens = pick(result.system.total, choice);
  const groups = groupMessages(result.messages, choice, limit);
  const messageTokens = groups.reduce((t, g) => t + g.tokens, 0);
  const origin =
    result.systemOrigin === 'session' ? ' (stored in the session)' : result.systemOrigin === 'workspace' ? ' (from the workspace)' : '';
  return {
    modelLabel,
    systemLabel: `System prompt${origin}`,
    systemSections: [...result.system.sections]
      .sort((a, b) => a.position - b.position)
      .map((section) => ({ name: section.name, tokens: pick(section.tokens, choice) })),
    thinkingLevel: result.thinkingLevel,
    systemTokens,
    messageTokens,
    total: pick(result.total, choice),
    messageCount: result.messages.length,
    groups,
  };
}

/** The whole request as one Markdown document (the "open full request" virtual document). */
export function requestMarkdown(result: ProjectedRequestResult): string {
  const out: string[] = [];
  out.push(`# Projected request — ${result.session}`);
  out.push('');
  out.push(
    `Leaf \`${result.leafId ?? '(none)'}\` · thinking ${result.thinkingLevel} · ` +
      `${result.total.pi} tokens by Pi's estimate, ${result.total.estimate} by ${result.system.estimator.label}`,
  );
  out.push('');
  out.push(`## System prompt (${result.system.total.pi} tokens)`);
  out.push('');
  out.push(fence(result.system.rendered));
  for (const m of [...result.messages].sort((a, b) => a.index - b.index)) {
    out.push('');
    const marker = summaryMarker(m.kind);
    out.push(
      `## ${m.index}. ${messageLabel(m)}${marker ? ' ⟲' : ''} (${m.tokens.pi} tokens)` +
        (m.entryId ? ` — entry \`${m.entryId}\`` : ''),
    );
    out.push('');
    out.push(fence(m.text));
  }
  out.push('');
  return out.join('\n');
}

/** A fenced block that cannot be closed by the text inside it. */
export function fence(text: string): string {
  let ticks = '```';
  while (text.includes(ticks)) {
    ticks += '`';
  }
  return `${ticks}text\n${text}\n${ticks}`;
}
