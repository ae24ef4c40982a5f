/**
 * What a compaction or branch summary costs and saves, in words, from the server's `economics`
 * (`pi.compact` / `pi.branchSummary` outcomes, `pi/chat/compactPreview`; docs/cost.md lists where
 * every number comes from). Shown in the preview document and in the chat's compaction card. The
 * numbers are the server's; only the wording is made here.
 */
import type { CompactionEconomicsInfo } from '../protocol.generated';
import { formatExact } from './format';
import { formatUsd } from './money';

const PRICE_SOURCE: Record<CompactionEconomicsInfo['priceSource'], string> = {
  pi: "Pi's model catalog",
  'models.json': 'models.json',
  unknown: 'no known prices',
};

function money(value: number | null | undefined): string {
  return value === null || value === undefined ? 'cost unknown' : `≈ ${formatUsd(value)}`;
}

function plural(n: number, one: string, many: string): string {
  return `${formatExact(n)} ${n === 1 ? one : many}`;
}

/** Where the summary's length comes from when the summary is not written yet. */
function outputWords(e: CompactionEconomicsInfo): string {
  const out = `${formatExact(e.summaryOutput)} out`;
  switch (e.summaryOutputSource ?? 'summary') {
    case 'previous':
      return `${out} (estimated: as long as the previous summary)`;
    case 'assumed':
      return `${out} (estimated: an assumed length, no summary yet)`;
    default:
      return out;
  }
}

export interface EconomicsText {
  /** The summary request(s): calls, tokens in and out, the price. */
  request: string;
  /** What every later request saves (or, for a branch summary, carries on top). */
  saving: string;
  /** The break-even point in turns (each later turn is one request to the model), or why there is none. */
  breakEven: string;
}

/** Whose prices the summary requests are at: the summarizer's (a pi-context run), else the session model's. */
function summaryPrices(e: CompactionEconomicsInfo): string {
  const model = e.summaryModel ?? e.model;
  const source = e.summaryModel ? (e.summaryPriceSource ?? 'unknown') : e.priceSource;
  return source === 'unknown' ? `no prices known for ${model}` : `${model}'s prices from ${PRICE_SOURCE[source]}`;
}

export function economicsText(e: CompactionEconomicsInfo): EconomicsText {
  const calls = plural(e.requests, 'summary request', 'summary requests');
  const counted = e.summaryTokensSource === 'reported' ? ' as the provider reported them' : '';
  const request =
    `${calls}: ${formatExact(e.summaryInput)} tokens in (all new input: Pi sends them without caching), ` +
    `${outputWords(e)}${counted}; ${money(e.summaryCost)} (${summaryPrices(e)}).`;
  let saving: string;
  let breakEven: string;
  if (e.removedPerRequest > 0) {
    saving =
      `Every later request carries ${formatExact(e.removedPerRequest)} fewer tokens ` +
      `(${formatExact(e.contextBefore)} → ${formatExact(e.contextAfter)}): ${money(e.savingPerRequest)} less each with a warm cache; ` +
      `the first one writes the new context to the cache (${money(e.rewriteCost)} more than reading the old one).`;
    const turns = e.breakEvenRequests;
    breakEven =
      turns === null || turns === undefined
        ? 'Break-even: unknown without prices.'
        : `Pays for itself after ${plural(turns, 'later turn', 'later turns')} (one request to the model each).`;
  } else if (e.contextBefore > 0) {
    saving = `Every later request carries ${formatExact(-e.removedPerRequest)} more tokens: the summary is longer than the messages it replaces.`;
    breakEven = 'No break-even: it saves nothing.';
  } else {
    saving = `Every later request carries the summary: ${formatExact(-e.removedPerRequest)} more tokens.`;
    breakEven = 'No break-even: a branch summary adds context and removes none.';
  }
  return { request, saving, breakEven };
}

/** The three sentences as one Markdown block (the preview document). */
export function economicsMarkdown(e: CompactionEconomicsInfo): string[] {
  const t = economicsText(e);
  return [`> **Cost.** ${t.request}`, `> ${t.saving}`, `> ${t.breakEven}`];
}
