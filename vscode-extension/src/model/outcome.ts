/**
 * The preview document of a compaction or branch summary: what was produced, by which summarizer,
 * and a plain statement that nothing has been written yet, followed by the summary text itself.
 */
import type { CommandOutcome } from '../protocol.generated';
import { formatExact } from './format';

export type SummaryKind = 'compaction' | 'branch';

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
    `> **${what} — preview.** Nothing has been written to ${sessionName} yet: confirm in the notification to append it.`,
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
