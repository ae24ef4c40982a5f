/**
 * The preview document of a compaction or branch summary: what was produced, by which summarizer,
 * what it costs and saves (the server's `economics`), and a plain statement that nothing has been
 * written yet, followed by the summary text itself.
 * Once the user decides, the same document is rewritten to say what happened (`settledDocument`):
 * a tab that still said "Nothing has been written" after the append would contradict the session.
 */
import type { CommandOutcome } from '../protocol.generated';
import { economicsMarkdown } from './economics';
import { formatExact } from './format';

export type SummaryKind = 'compaction' | 'branch';

/** Where the user confirms: the buttons of the preview's own editor (see `previewConfirm.ts`). */
export const CONFIRM_HINT =
  'Use **Append to Session** (✓) at the top of this editor or in its title bar; **Discard** (✕) leaves the session as it is.';

export function previewTitle(kind: SummaryKind): string {
  return kind === 'compaction' ? 'Compaction Summary (preview)' : 'Branch Summary (preview)';
}

export function previewDocument(kind: SummaryKind, outcome: CommandOutcome, sessionName: string): string {
  if (outcome.chatId) {
    return livePreviewDocument(outcome, sessionName);
  }
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
    ...costBlock(outcome),
    '',
    '---',
    '',
    outcome.summary,
    '',
  ].join('\n');
}

/**
 * The preview of a compaction of a session a chat holds (`chatId` set): Pi writes that one with its own
 * model, so there is no summary to show yet, only Pi's plan read from the file (`plan`).
 */
function livePreviewDocument(outcome: CommandOutcome, sessionName: string): string {
  const lines = [
    `> **Compaction — Pi's plan, preview.** Nothing has been written to ${sessionName} yet. It is open in chat ${outcome.chatId}, so Pi writes the compaction itself, with its own model, when you apply; pi-context only read the plan below from the file, with Pi's rules.`,
    `> ${confirmText('compaction', outcome, sessionName)} ${CONFIRM_HINT}`,
    '>',
    `> ${planFacts(outcome).join(' · ')}`,
    '',
    '---',
    '',
    ...planLines(outcome),
  ];
  return lines.join('\n');
}

/** What Pi's compaction will summarize and keep, as a short list (from the server's `plan`). */
function planLines(outcome: CommandOutcome): string[] {
  const plan = outcome.plan;
  const lines: string[] = [];
  if (plan) {
    const prefix = plan.isSplitTurn ? ` and the first ${formatExact(plan.turnPrefixMessages)} of the current turn's messages` : '';
    lines.push(
      `- **Summarized by Pi:** ${formatExact(plan.messagesToSummarize)} message(s)${prefix}.`,
      `- **Kept as they are:** ${formatExact(plan.keptEntries)} entr${plan.keptEntries === 1 ? 'y' : 'ies'}, about ${formatExact(plan.keptTokens)} tokens by Pi's estimate (the summary comes on top).`,
    );
    if (plan.readFiles.length || plan.modifiedFiles.length) {
      lines.push(
        `- **Files the summary lists:** read ${plan.readFiles.map((f) => `\`${f}\``).join(', ') || '—'}; modified ${plan.modifiedFiles.map((f) => `\`${f}\``).join(', ') || '—'}.`,
      );
    }
  }
  lines.push('');
  return lines;
}

function planFacts(outcome: CommandOutcome): string[] {
  const facts = [`Summarizer: ${outcome.summarizer}`];
  if (typeof outcome.tokensBefore === 'number') {
    facts.push(`context before: ${formatExact(outcome.tokensBefore)} tokens`);
  }
  if (outcome.firstKeptEntryId) {
    facts.push(`first kept entry: \`${outcome.firstKeptEntryId}\``);
  }
  return facts;
}

/**
 * The confirmation question, with the summary's size so the user knows what the append costs. The
 * size is the server's count by Pi's rule (`summaryTokens.pi`): the extension computes no numbers of
 * its own, so an answer without the count (an older server) leaves the size out instead of guessing.
 */
export function confirmText(kind: SummaryKind, outcome: CommandOutcome, sessionName: string): string {
  if (outcome.chatId) {
    return `Have ${outcome.summarizer} compact ${sessionName} now?`;
  }
  const tokens = outcome.summaryTokens?.pi;
  const what = kind === 'compaction' ? 'compaction summary' : 'branch summary';
  const size = typeof tokens === 'number' ? `about ${formatExact(tokens)} tokens, ` : '';
  return `Append this ${what} (${size}${outcome.summarizer}) to ${sessionName}?`;
}

export function appliedText(kind: SummaryKind, outcome: CommandOutcome, sessionName: string): string {
  const id = outcome.entry && typeof outcome.entry.id === 'string' ? ` as entry ${outcome.entry.id}` : '';
  if (outcome.chatId) {
    return `${outcome.summarizer} compacted ${sessionName}${id}.`;
  }
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
    if (applied.chatId) {
      const head = `> **Compaction — done by Pi.** ${applied.summarizer} wrote it to ${sessionName}${id}; the summary below is Pi's.`;
      return [head, `> ${planFacts(applied).join(' · ')}`, '', '---', '', applied.summary, ''].join('\n');
    }
    const which = applied.fromPreview
      ? 'the summary below is the one previewed'
      : 'the preview could not be reused, so the summarizer was asked again: the summary below is the one written';
    head = `> **${what} — appended.** Written to ${sessionName}${id}; ${which}.`;
  } else if (settlement.state === 'discarded') {
    head = `> **${what} — discarded.** Nothing was written to ${sessionName}.`;
  } else {
    head = `> **${what} — not appended.** ${settlement.reason} Nothing was written to ${sessionName}.`;
  }
  if (shown.chatId) {
    return [head, `> ${planFacts(shown).join(' · ')}`, '', '---', '', ...planLines(shown)].join('\n');
  }
  const facts = [`Summarizer: ${shown.summarizer}`];
  if (typeof shown.tokensBefore === 'number') {
    facts.push(`context before: ${formatExact(shown.tokensBefore)} tokens`);
  }
  if (shown.firstKeptEntryId) {
    facts.push(`first kept entry: \`${shown.firstKeptEntryId}\``);
  }
  return [head, `> ${facts.join(' · ')}`, ...costBlock(shown), '', '---', '', shown.summary, ''].join('\n');
}

/** The cost lines under the facts, when the server priced the summary (an older server does not). */
function costBlock(outcome: CommandOutcome): string[] {
  return outcome.economics ? ['>', ...economicsMarkdown(outcome.economics)] : [];
}
