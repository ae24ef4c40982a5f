/**
 * The sidebar's "Cost" chart, computed from `pi/turnLedger` (no number is made up here): one
 * stacked bar per turn (cache reads, new input, output), the context size after each turn as a
 * line, Pi's compaction threshold, and marks for compactions, branch points and model changes.
 * The geometry is in a fixed viewBox so the webview only draws it; every bar carries the hover
 * text with its numbers.
 */
import type { LedgerMarker, LedgerRequest, NextRequestCostInfo, TurnLedgerResult } from '../protocol.generated';
import { formatTokens } from './format';
import { formatUsd } from './money';

export const CHART_WIDTH = 300;
export const CHART_HEIGHT = 120;

export interface BarPart {
  kind: 'cached' | 'input' | 'output';
  y: number;
  height: number;
}

export interface CostBar {
  index: number;
  entryId: string | null;
  x: number;
  width: number;
  parts: BarPart[];
  title: string;
}

export interface CostMark {
  kind: LedgerMarker['kind'];
  x: number;
  title: string;
}

export interface CostChartView {
  width: number;
  height: number;
  bars: CostBar[];
  /** The context size after each turn, as SVG polyline points ("x,y x,y ..."). */
  contextLine: string;
  thresholdY: number | null;
  thresholdTitle: string | null;
  /** Set when the threshold is far above the data and left off the scale (the bars would be slivers). */
  thresholdNote: string | null;
  marks: CostMark[];
  /** The top of the scale, in tokens. */
  scaleMax: number;
  summary: string;
  next: string | null;
}


function percent(ratio: number | null | undefined): string {
  return ratio === null || ratio === undefined ? '–' : `${Math.round(ratio * 100)}%`;
}

function gap(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) {
    return '';
  }
  const s = ms / 1000;
  if (s < 60) {
    return `${s.toFixed(1)} s`;
  }
  if (s < 3600) {
    return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
  }
  if (s < 2 * 86400) {
    return `${(s / 3600).toFixed(1)} h`;
  }
  return `${Math.round(s / 86400)} days`;
}

const SOURCE: Record<LedgerRequest['costSource'], string> = {
  recorded: 'as Pi recorded it',
  computed: "from the model's prices",
  unknown: 'unknown',
};

/** The hover text of one turn's bar. */
export function turnTitle(turn: LedgerRequest): string {
  const lines = [
    `Turn ${(turn.index ?? 0) + 1}${turn.entryId ? ` · ${turn.entryId}` : ''}${turn.model ? ` · ${turn.model}` : ''}`,
    `cache read ${formatTokens(turn.cacheRead)} · new input ${formatTokens(turn.input + turn.cacheWrite)} · output ${formatTokens(turn.output)}`,
    `cost ${formatUsd(turn.cost)} (${SOURCE[turn.costSource]}) · ${percent(turn.cacheHitRatio)} of the prompt cached`,
    `context ${formatTokens(turn.totalTokens)}`,
  ];
  const since = gap(turn.sincePreviousMs);
  if (since) {
    lines.push(`${since} after the previous request`);
  }
  return lines.join('\n');
}

const MARK_WORDS: Record<LedgerMarker['kind'], string> = {
  compaction: 'Compaction',
  branchSummary: 'Branch summary',
  branchPoint: 'Branch point',
  modelChange: 'Model change',
};

/** "Next request" in one line: what it costs if the cache still holds, and after it expired. */
export function nextLine(next: NextRequestCostInfo, now: number): string {
  const warm = next.warm;
  const cold = next.cold;
  let cache = 'cache lifetime unknown';
  if (next.expiresAt !== null && next.expiresAt !== undefined) {
    cache = now >= next.expiresAt ? 'cache probably expired' : `cache alive for ${gap(next.expiresAt - now)}`;
  }
  return (
    `Next request: ${cache}; cached ${formatTokens(warm.cacheRead)} + new ${formatTokens(warm.newInput)} ≈ ` +
    `${formatUsd(warm.cost)}, or ${formatUsd(cold.cost)} if it expired (prompt only)`
  );
}

export function costChart(
  ledger: TurnLedgerResult,
  now: number = Date.now(),
  width: number = CHART_WIDTH,
  height: number = CHART_HEIGHT,
): CostChartView {
  const turns = ledger.turns;
  // A loop, not Math.max(...spread): a long session (past ~100k turns) overflows the call's arguments.
  let dataMax = 0;
  for (const t of turns) {
    dataMax = Math.max(dataMax, t.cacheRead + t.input + t.cacheWrite + t.output, t.totalTokens);
  }
  const threshold = ledger.threshold !== null && ledger.threshold !== undefined && ledger.threshold > 0 ? ledger.threshold : null;
  // The threshold sets the top when the data reaches at least a third of it; further up it is named, not drawn.
  const onScale = threshold !== null && dataMax * 3 >= threshold;
  const scaleMax = Math.max(dataMax, onScale && threshold !== null ? threshold : 0, 1) * 1.05;
  const y = (tokens: number): number => height - (tokens / scaleMax) * height;
  const slot = turns.length > 0 ? width / turns.length : width;
  const barWidth = Math.max(slot * 0.8, 0.5);
  const bars: CostBar[] = turns.map((turn, i) => {
    const x = i * slot + (slot - barWidth) / 2;
    let base = 0;
    const parts: BarPart[] = [];
    for (const [kind, tokens] of [
      ['cached', turn.cacheRead],
      ['input', turn.input + turn.cacheWrite],
      ['output', turn.output],
    ] as const) {
      if (tokens > 0) {
        parts.push({ kind, y: y(base + tokens), height: (tokens / scaleMax) * height });
        base += tokens;
      }
    }
    return { index: i, entryId: turn.entryId ?? null, x, width: barWidth, parts, title: turnTitle(turn) };
  });
  const contextLine = turns.map((t, i) => `${round(i * slot + slot / 2)},${round(y(t.totalTokens))}`).join(' ');
  const marks: CostMark[] = (ledger.markers ?? []).map((m) => ({
    kind: m.kind,
    x: m.afterTurn * slot,
    title:
      `${MARK_WORDS[m.kind]}${m.entryId ? ` (${m.entryId})` : ''} after turn ${m.afterTurn}` +
      (m.tokensBefore !== null && m.tokensBefore !== undefined ? `: ${formatTokens(m.tokensBefore)} before` : ''),
  }));
  const totals = ledger.totals;
  const unknown = totals.unknownCost > 0 ? ` (+${totals.unknownCost} unknown)` : '';
  const summary =
    `${turns.length} turn${turns.length === 1 ? '' : 's'} · ${formatUsd(totals.cost)}${unknown} · ` +
    `${percent(totals.cacheHitRatio)} of input from the cache`;
  return {
    width,
    height,
    bars,
    contextLine,
    thresholdY: onScale && threshold !== null ? y(threshold) : null,
    thresholdTitle: threshold !== null ? `Pi compacts above ${formatTokens(threshold)} tokens` : null,
    thresholdNote:
      threshold !== null && !onScale
        ? `Pi compacts above ${formatTokens(threshold)} tokens, ${Math.round(threshold / Math.max(dataMax, 1))}× the largest turn here`
        : null,
    marks,
    scaleMax,
    summary,
    next: ledger.nextRequest ? nextLine(ledger.nextRequest, now) : null,
  };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
