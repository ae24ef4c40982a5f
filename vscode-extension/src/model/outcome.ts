/**
 * The preview document of a compaction or branch summary: what was produced, by which summarizer,
 * and a plain statement that nothing has been written yet, followed by the summary text itself.
 * Once the user decides, the same document is rewritten to say what happened (`settledDocument`):
 * a tab that still said "Nothing has been written" after the append would contradict the session.
 */
import type { CommandOutcome } from '../protocol.generated';
import { formatExact } from './format';

export type SummaryKind = 'compaction' | 'branch';

/** Where the user confirms: the buttons of the preview's own editor (see `previewConfirm.ts`). */
export const CONFIRM_HINT =
  'Use **Append to Session** (✓) at the top of this editor or in its title bar; **Discard** (✕) leaves the session as it is.';

export function previewTitle(kind: SummaryKind): string {
  return kind === 'compaction' ? 'Compaction Summary (preview)' : 'Branch Summary (preview)';
}

export function previewDocument(kind: SummaryKind, outcome: CommandOutcome, sessionName: string): string {
  const facts = [`Summarizer: ${outcome.summarizer}`];
  if (typeof outcome.tokensBefore === 'number') {
    facts.push(`context before: ${formatExact(outcome.tokensBefore)} tokens`);
  }
  if (outcome.firstKeptEntryId) {
    facts.push(`first kept entry: \`${outcome.firstKeptEntryId}\``);
  }
  const what = kind === 'compaction' ? 'Compaction summary' : 'Branch summary';
  return [
    `> **${what} — preview.** Nothing has been written to ${sessionName} yet.`,
    `> ${confirmText(kind, outcome, sessionName)} ${CONFIRM_HINT}`,
    '>',
    `> ${facts.join(' · ')}`,
    '',
    '---',
    '',
    outcome.summary,
    '',
  ].join('\n');
}

/**
 * The confirmation question, with the summary's size so the user knows what the append costs. The
 * size is the server's count by Pi's rule (`summaryTokens.pi`): the extension computes no numbers of
 * its own, so an answer without the count (an older server) leaves the size out instead of guessing.
 */
export function confirmText(kind: SummaryKind, outcome: CommandOutcome, sessionName: string): string {
  const tokens = outcome.summaryTokens?.pi;
  const what = kind === 'compaction' ? 'compaction summary' : 'branch summary';
  const size = typeof tokens === 'number' ? `about ${formatExact(tokens)} tokens, ` : '';
  return `Append this ${what} (${size}${outcome.summarizer}) to ${sessionName}?`;
}

export function appliedText(kind: SummaryKind, outcome: CommandOutcome, sessionName: string): string {
  const id = outcome.entry && typeof outcome.entry.id === 'string' ? ` as entry ${outcome.entry.id}` : '';
  const what = kind === 'compaction' ? 'Compaction' : 'Branch summary';
  // fromPreview: the server wrote the summary the user read; otherwise it had to ask the summarizer again.
  const which = outcome.fromPreview ? ' (the previewed summary)' : ' (summarized again: the preview could not be reused)';
  return `${what} appended to ${sessionName}${id}${which}.`;
}

/**
 * The error shown when a long summary command fails: the server's message as it is, since it says
 * what happened and that nothing was written (for a session Pi itself would fail on: "Pi would fail
 * on this session: content is not iterable (entry a1): nothing written to …").
 */
export function failedText(title: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `Pi Context: ${title.toLowerCase()} failed: ${message}`;
}

/** What became of a preview: appended (with the server's answer), discarded, or not written and why. */
export type PreviewSettlement =
  | { state: 'appended'; applied: CommandOutcome }
  | { state: 'discarded' }
  | { state: 'not-written'; reason: string };

/** The preview document after the decision: the outcome first, then the facts and the summary. */
export function settledDocument(
  kind: SummaryKind,
  preview: CommandOutcome,
  sessionName: string,
  settlement: PreviewSettlement,
): string {
  const what = kind === 'compaction' ? 'Compaction summary' : 'Branch summary';
  let head: string;
  let shown = preview;
  if (settlement.state === 'appended') {
    const applied = settlement.applied;
    shown = applied;
    const id = applied.entry && typeof applied.entry.id === 'string' ? ` as entry \`${applied.entry.id}\`` : '';
    const which = applied.fromPreview
      ? 'the summary below is the one previewed'
      : 'the preview could not be reused, so the summarizer was asked again: the summary below is the one written';
    head = `> **${what} — appended.** Written to ${sessionName}${id}; ${which}.`;
  } else if (settlement.state === 'discarded') {
    head = `> **${what} — discarded.** Nothing was written to ${sessionName}.`;
  } else {
    head = `> **${what} — not appended.** ${settlement.reason} Nothing was written to ${sessionName}.`;
  }
  const facts = [`Summarizer: ${shown.summarizer}`];
  if (typeof shown.tokensBefore === 'number') {
    facts.push(`context before: ${formatExact(shown.tokensBefore)} tokens`);
  }
  if (shown.firstKeptEntryId) {
    facts.push(`first kept entry: \`${shown.firstKeptEntryId}\``);
  }
  return [head, `> ${facts.join(' · ')}`, '', '---', '', shown.summary, ''].join('\n');
}
