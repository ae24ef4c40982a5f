/**
 * What one reply cost, in a line under it: Pi's own usage numbers (tokens in and out, cache
 * reads and writes) and the cost Pi computed from the model's prices. The cost is shown only when
 * the model has prices (a local or custom model without them has `cost: 0` everywhere, which is
 * "unknown", not "free"). Nothing here is estimated: every number is Pi's.
 */
import { formatExact, formatPercent, formatTokens } from '../model/format';
import { formatUsd } from '../model/money';
import type { Usage } from './transcript';

/** Whether a Pi model object (`get_state.model`, `get_available_models` items) has prices. */
export function modelHasPrices(model: unknown): boolean {
  if (typeof model !== 'object' || model === null) {
    return false;
  }
  const cost = (model as { cost?: unknown }).cost;
  if (typeof cost !== 'object' || cost === null) {
    return false;
  }
  return Object.values(cost as Record<string, unknown>).some((v) => typeof v === 'number' && v > 0);
}


export interface UsageText {
  /** The short line: "in 120 · out 9 · cache read 1.2k · $0.0005". */
  text: string;
  /** The same with exact counts, for the tooltip and screen readers. */
  title: string;
}

/** The per-reply line, or null when Pi reported no usage (a provider that sends none). */
export function usageText(usage: Usage | null, hasPrices: boolean): UsageText | null {
  if (!usage || usage.input + usage.output + usage.cacheRead + usage.cacheWrite === 0) {
    return null;
  }
  const short = [`in ${formatTokens(usage.input)}`, `out ${formatTokens(usage.output)}`];
  const long = [`${formatExact(usage.input)} input tokens`, `${formatExact(usage.output)} output tokens`];
  short.push(`cache read ${formatTokens(usage.cacheRead)}`);
  long.push(`${formatExact(usage.cacheRead)} read from the cache`);
  if (usage.cacheWrite > 0) {
    short.push(`cache write ${formatTokens(usage.cacheWrite)}`);
    long.push(`${formatExact(usage.cacheWrite)} written to the cache`);
  }
  if (hasPrices && usage.cost !== null) {
    short.push(formatUsd(usage.cost));
    long.push(`cost ${formatUsd(usage.cost)} at the model's prices`);
  }
  return { text: short.join(' · '), title: long.join(', ') };
}

export interface GaugeView {
  tokens: number;
  window: number;
  threshold: number;
  percent: number;
  level: 'ok' | 'warning' | 'error';
  label: string;
  title: string;
}

/**
 * The header's small gauge: Pi's context tokens against the window, from `pi/contextBudget` on the chat's
 * session, the same answer the Context view and the status bar draw (one computation, one figure). It moves
 * when the server says the session changed (after each message Pi writes), not with the usage a reply streams:
 * a reply's usage arrives with its last chunk, right before the message is written, and the usage seen before
 * that belongs to an earlier request (before a compaction it is the old context: 18% against the 6% Pi
 * counts after it).
 */
export function gaugeView(budget: { contextTokens: number; window: number; threshold: number } | null): GaugeView | null {
  if (!budget || budget.window <= 0) {
    return null;
  }
  const tokens = budget.contextTokens;
  const percent = Math.round((tokens / budget.window) * 1000) / 10;
  const level = tokens > budget.window ? 'error' : tokens > budget.threshold ? 'warning' : 'ok';
  return {
    tokens,
    window: budget.window,
    threshold: budget.threshold,
    percent,
    level,
    label: `${formatPercent(tokens, budget.window)} of ${formatTokens(budget.window)}`,
    title:
      `${formatExact(tokens)} of ${formatExact(budget.window)} tokens in the context; ` +
      `Pi compacts past ${formatExact(budget.threshold)}`,
  };
}
