/**
 * Budget gauge arithmetic. The server sends categories that add up to the context window; this
 * module lays them out as bar segments (used by system prompt and messages, then free space, then
 * the reserve for the reply, so the compaction threshold falls on the free/reserve boundary), checks
 * that they really add up, and writes the text equivalent. Users distrust gauges whose parts do not
 * sum to the whole (ecosystem §3.5), so a mismatch is shown, never hidden.
 */
import type { BudgetCategory, Breakdown, ContextBudgetResult } from '../protocol.generated';
import type { EstimateChoice } from './estimate';
import { formatExact, formatPercent, formatTokens } from './format';

export type SegmentGroup = BudgetCategory['group'] | 'overflow';

export interface GaugeSegment {
  id: string;
  group: SegmentGroup;
  label: string;
  tokens: number;
  count: number | null;
  /** Left edge and width as percentages of the bar (the window, or more when over it). */
  start: number;
  width: number;
  /** Index of the colour in the group's palette (segments of one group alternate shades). */
  shade: number;
}

export interface LegendGroup {
  group: SegmentGroup;
  label: string;
  tokens: number;
  items: GaugeSegment[];
}

export interface BudgetView {
  choice: EstimateChoice;
  estimatorLabel: string;
  modelLabel: string;
  window: number;
  windowLabel: string;
  segments: GaugeSegment[];
  legend: LegendGroup[];
  used: number;
  free: number;
  reserve: number;
  overflow: number;
  threshold: number;
  /** Position of the compaction threshold marker, percent of the bar. */
  thresholdAt: number;
  /** Position of the window's end, percent of the bar (100 unless the categories overflow it). */
  windowAt: number;
  /** Pi's own context-token count and where it comes from (usage reported by the provider, or estimate). */
  contextTokens: number;
  contextTokensSource: ContextBudgetResult['contextTokensSource'];
  percentOfWindow: string;
  overThreshold: boolean;
  shouldCompact: boolean;
  compactionEnabled: boolean;
  /** The categories add up to window + overflow. */
  reconciles: boolean;
  /** One sentence per line that says everything the bar shows, for screen readers and tooltips. */
  textEquivalent: string;
  /** "12k system + 80k messages + 92k free + 16k reserve = 200k window". */
  equation: string;
  /** How the numbers were made (the server's notes, the estimator's caveat, the prompt's origin). */
  notes: string[];
  /** Problems the server found on the way (e.g. a models.json Pi would ignore). */
  problems: string[];
}

const GROUP_ORDER: SegmentGroup[] = ['system', 'messages', 'other', 'free', 'reserve', 'overflow'];
const GROUP_LABEL: Record<SegmentGroup, string> = {
  system: 'System prompt',
  messages: 'Messages',
  other: 'Not itemized',
  free: 'Free',
  reserve: 'Reserved for the reply',
  overflow: 'Over the window',
};

export function breakdownFor(result: ContextBudgetResult, choice: EstimateChoice): Breakdown {
  return choice === 'pi' ? result.pi : result.estimated;
}

/** "anthropic/claude-sonnet-4-5 · 200k window"; `model.detail` (the server's sentence) goes in tooltips. */
export function modelLabel(result: ContextBudgetResult): string {
  const model = result.model;
  const name = model.id ? (model.provider ? `${model.provider}/${model.id}` : model.id) : 'unknown model';
  const origin = model.source === 'default' ? ' (default window)' : '';
  return `${name} · ${formatTokens(result.window)} window${origin}`;
}

/** Lay the breakdown out as segments; stable order, zero-token categories kept in the legend only. */
export function budgetView(result: ContextBudgetResult, choice: EstimateChoice): BudgetView {
  const breakdown = breakdownFor(result, choice);
  const window = result.window;
  const ordered = orderCategories(breakdown.categories);
  const overflow = Math.max(0, breakdown.overflow);
  const sum = ordered.reduce((total, c) => total + Math.max(0, c.tokens), 0);
  // Two honest shapes: the categories fill the window and the overflow comes on top, or the
  // categories already include the overflow. Anything else does not reconcile and is said so.
  const overflowOnTop = overflow > 0 && sum === window;
  const reconciles = sum === window || sum === window + overflow;
  const bar = Math.max(window, sum + (overflowOnTop ? overflow : 0), 1);

  const segments: GaugeSegment[] = [];
  const shades = new Map<SegmentGroup, number>();
  let at = 0;
  for (const category of ordered) {
    const shade = shades.get(category.group) ?? 0;
    shades.set(category.group, shade + 1);
    const tokens = Math.max(0, category.tokens);
    segments.push({
      id: category.id,
      group: category.group,
      label: category.label,
      tokens,
      count: category.count ?? null,
      start: (at / bar) * 100,
      width: (tokens / bar) * 100,
      shade,
    });
    at += tokens;
  }
  if (overflowOnTop) {
    segments.push({
      id: 'overflow',
      group: 'overflow',
      label: GROUP_LABEL.overflow,
      tokens: overflow,
      count: null,
      start: (at / bar) * 100,
      width: (overflow / bar) * 100,
      shade: 0,
    });
  }

  const groupTotal = (g: SegmentGroup): number =>
    segments.filter((s) => s.group === g).reduce((t, s) => t + s.tokens, 0);
  const legend: LegendGroup[] = GROUP_ORDER.filter((g) => segments.some((s) => s.group === g)).map((g) => ({
    group: g,
    label: GROUP_LABEL[g],
    tokens: groupTotal(g),
    items: segments.filter((s) => s.group === g),
  }));

  const reserve = groupTotal('reserve');
  const free = groupTotal('free');
  const used = breakdown.used;
  const overThreshold = result.contextTokens > result.threshold;
  const equation =
    legend.map((g) => `${formatTokens(g.tokens)} ${g.label.toLowerCase()}`).join(' + ') +
    (reconciles
      ? ` = ${formatTokens(window)} window` + (overflow > 0 ? ` + ${formatTokens(overflow)} over` : '')
      : ` = ${formatTokens(sum)} ≠ ${formatTokens(window)} window`);

  // The server's notes already explain the prompt's origin and the reconciliation with usage.
  const notes = [...(breakdown.notes ?? [])];
  if (breakdown.estimator.note) {
    notes.push(breakdown.estimator.note);
  }
  const lines = [
    `${modelLabel(result)}.`,
    `Pi counts ${formatExact(result.contextTokens)} context tokens (${sourceText(result.contextTokensSource)}), ` +
      `${formatPercent(result.contextTokens, window)} of the window; it compacts above ${formatExact(result.threshold)}` +
      (result.compactionEnabled ? '.' : ' (auto-compaction is off).'),
    `Breakdown by ${breakdown.estimator.label}:`,
    ...legend.map(
      (g) =>
        `${g.label}: ${formatExact(g.tokens)} tokens (${formatPercent(g.tokens, window)})` +
        (g.items.length > 1 ? ` — ${g.items.map((i) => `${i.label} ${formatExact(i.tokens)}`).join(', ')}` : ''),
    ),
  ];
  if (typeof result.footerTokens === 'number') {
    lines.push(`Pi's footer shows ${formatExact(result.footerTokens)} tokens.`);
  }
  if (!reconciles) {
    lines.push(`The categories add up to ${formatExact(sum)}, not to the ${formatExact(window)}-token window.`);
  } else if (overflow > 0) {
    lines.push(`${formatExact(overflow)} tokens do not fit in the window.`);
  }

  return {
    choice,
    estimatorLabel: breakdown.estimator.label,
    modelLabel: modelLabel(result),
    window,
    windowLabel: formatTokens(window),
    segments,
    legend,
    used,
    free,
    reserve,
    overflow,
    threshold: result.threshold,
    thresholdAt: (Math.min(result.threshold, bar) / bar) * 100,
    windowAt: (window / bar) * 100,
    contextTokens: result.contextTokens,
    contextTokensSource: result.contextTokensSource,
    percentOfWindow: formatPercent(result.contextTokens, window),
    overThreshold,
    shouldCompact: result.shouldCompact,
    compactionEnabled: result.compactionEnabled,
    reconciles,
    textEquivalent: [...lines, ...notes].join('\n'),
    equation,
    notes,
    problems: [...(result.problems ?? [])],
  };
}

function orderCategories(categories: BudgetCategory[]): BudgetCategory[] {
  // A stable sort by group: the server's order inside a group is kept.
  return categories
    .map((c, i) => ({ c, i }))
    .sort((a, b) => GROUP_ORDER.indexOf(a.c.group) - GROUP_ORDER.indexOf(b.c.group) || a.i - b.i)
    .map(({ c }) => c);
}

function sourceText(source: ContextBudgetResult['contextTokensSource']): string {
  switch (source) {
    case 'usage':
      return "the provider's reported usage plus an estimate of later messages";
    case 'estimate':
      return 'estimated, no usage reported yet';
    default:
      return 'no session';
  }
}

export interface StatusBarView {
  text: string;
  tooltip: string;
  level: 'normal' | 'warning' | 'error';
}

/** "62% of 200k": Pi's own context tokens against the window; warning past Pi's compaction threshold. */
export function statusBarView(result: ContextBudgetResult): StatusBarView {
  const tokens = result.contextTokens;
  const text = `$(dashboard) ${formatPercent(tokens, result.window)} of ${formatTokens(result.window)}`;
  const level = tokens > result.window ? 'error' : tokens > result.threshold ? 'warning' : 'normal';
  const lines = [
    `Pi Context: ${formatExact(tokens)} of ${formatExact(result.window)} tokens (${modelLabel(result)})`,
    `Compaction threshold: ${formatExact(result.threshold)} (window − ${formatExact(result.reserveTokens)} reserve)` +
      (result.compactionEnabled ? '' : ', auto-compaction off'),
  ];
  if (level !== 'normal') {
    lines.push(tokens > result.window ? 'Over the context window.' : 'Past the compaction threshold: Pi compacts before the next request.');
  }
  lines.push('Click to open the Pi Context view.');
  return { text, tooltip: lines.join('\n'), level };
}
