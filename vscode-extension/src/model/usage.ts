/**
 * The Usage panel, computed from `pi/usage` (no number is made up here): a headline (cost, turns,
 * cache share), a chart with one stacked bar per day (cache reads, new input, output) and the share
 * read from the cache as a line, and one row per group (day, week, month, project, model or session).
 * Days without a request get an empty slot, so the bars stand on a calendar; the chart shows at most
 * the last `MAX_DAYS` days and says so. The geometry is in a fixed viewBox; the webview only draws it.
 */
import type { UsageGroup, UsageResult, UsageTotalsInfo } from '../protocol.generated';
import { formatExact, formatTokens } from './format';
import { formatUsd } from './money';

export const USAGE_CHART_WIDTH = 600;
export const USAGE_CHART_HEIGHT = 140;
export const MAX_DAYS = 92;
const MAX_BAR_WIDTH = 24; // a few days would otherwise be wide blocks
const DAY_MS = 86_400_000;

export type UsageGroupBy = UsageResult['by'];
export type UsageRange = 'all' | '30' | '7';
export const RANGES: readonly UsageRange[] = ['all', '30', '7'];

export const GROUPINGS: readonly UsageGroupBy[] = ['day', 'week', 'month', 'project', 'model', 'session'];

export interface UsageBarPart {
  kind: 'cached' | 'input' | 'output';
  y: number;
  height: number;
}

export interface UsageBar {
  day: string;
  x: number;
  width: number;
  parts: UsageBarPart[];
  title: string;
}

export interface UsageChartView {
  width: number;
  height: number;
  bars: UsageBar[];
  /** The share read from the cache on each day with a prompt, as SVG polyline points (0% bottom, 100% top). */
  shareLine: string;
  /** The top of the token scale. */
  scaleMax: number;
  scaleLabel: string;
  firstDay: string;
  lastDay: string;
  note: string | null;
}

export interface UsageRow {
  key: string;
  label: string;
  sessions: string;
  turns: string;
  tokens: string;
  cached: string;
  cost: string;
  title: string;
}

export interface UsageView {
  by: UsageGroupBy;
  range: UsageRange;
  headline: string;
  detail: string;
  chart: UsageChartView | null;
  groupTitle: string;
  rows: UsageRow[];
  notes: string[];
  empty: string | null;
}

export function shareText(share: number | null | undefined): string {
  return share === null || share === undefined ? '–' : `${(share * 100).toFixed(1)}%`;
}

export function costText(totals: UsageTotalsInfo): string {
  const known = formatUsd(totals.cost);
  return totals.unknownCost > 0 ? `${known} + ${formatExact(totals.unknownCost)} unknown` : known;
}

function plural(n: number, word: string): string {
  return `${formatExact(n)} ${word}${n === 1 ? '' : 's'}`;
}

function newInput(totals: UsageTotalsInfo): number {
  return totals.input + totals.cacheWrite;
}

function tokensText(totals: UsageTotalsInfo): string {
  return `${formatTokens(totals.cacheRead)} cached · ${formatTokens(newInput(totals))} new · ${formatTokens(totals.output)} out`;
}

/** Midnight UTC of `YYYY-MM-DD` in ms (calendar arithmetic in UTC, so no time zone shifts a day). */
function dayMs(day: string): number {
  return Date.parse(`${day}T00:00:00.000Z`);
}

/** `YYYY-MM-DD` plus `n` days. */
export function addDays(day: string, n: number): string {
  return new Date(dayMs(day) + n * DAY_MS).toISOString().slice(0, 10);
}

/** The first day of a range ending today (`today` as `YYYY-MM-DD` in the user's zone); null: all. */
export function rangeSince(range: UsageRange, today: string): string | null {
  return range === 'all' ? null : addDays(today, -(Number(range) - 1));
}

/** The calendar from the first to the last day with data (at most the last `MAX_DAYS`), empty days included. */
function calendar(days: UsageGroup[]): { slots: string[]; total: number } {
  const dated = days.filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d.key)).map((d) => d.key).sort();
  const first = dated[0];
  const last = dated[dated.length - 1];
  if (first === undefined || last === undefined) {
    return { slots: [], total: 0 };
  }
  const total = Math.round((dayMs(last) - dayMs(first)) / DAY_MS) + 1;
  const shown = Math.min(total, MAX_DAYS);
  const slots: string[] = [];
  for (let i = shown - 1; i >= 0; i--) {
    slots.push(addDays(last, -i));
  }
  return { slots, total };
}

export function usageChart(days: UsageGroup[]): UsageChartView | null {
  const { slots, total } = calendar(days);
  const firstDay = slots[0];
  const lastDay = slots[slots.length - 1];
  if (firstDay === undefined || lastDay === undefined) {
    return null;
  }
  const byDay = new Map(days.map((d) => [d.key, d]));
  const scaleMax = Math.max(1, ...slots.map((day) => {
    const d = byDay.get(day);
    return d ? d.cacheRead + newInput(d) + d.output : 0;
  }));
  const slot = USAGE_CHART_WIDTH / slots.length;
  const width = Math.min(Math.max(slot * 0.8, 0.5), MAX_BAR_WIDTH);
  const h = USAGE_CHART_HEIGHT;
  const bars: UsageBar[] = [];
  const share: string[] = [];
  slots.forEach((day, i) => {
    const d = byDay.get(day);
    const x = i * slot + (slot - width) / 2;
    if (!d) {
      bars.push({ day, x, width, parts: [], title: `${day}: no requests` });
      return;
    }
    const parts: UsageBarPart[] = [];
    let top = h;
    for (const [kind, value] of [
      ['cached', d.cacheRead],
      ['input', newInput(d)],
      ['output', d.output],
    ] as const) {
      const height = (value / scaleMax) * h;
      if (height > 0) {
        top -= height;
        parts.push({ kind, y: top, height });
      }
    }
    bars.push({
      day,
      x,
      width,
      parts,
      title:
        `${day}: ${costText(d)} · ${plural(d.turns, 'turn')} · ${shareText(d.cacheShare)} from the cache · ` +
        tokensText(d),
    });
    if (d.cacheShare !== null && d.cacheShare !== undefined) {
      share.push(`${(x + width / 2).toFixed(1)},${(h - d.cacheShare * h).toFixed(1)}`);
    }
  });
  return {
    width: USAGE_CHART_WIDTH,
    height: h,
    bars,
    shareLine: share.join(' '),
    scaleMax,
    scaleLabel: `${formatTokens(scaleMax)} tokens`,
    firstDay,
    lastDay,
    note: total > slots.length ? `the last ${slots.length} of ${formatExact(total)} days` : null,
  };
}

const GROUP_TITLES: Record<UsageGroupBy, string> = {
  day: 'Day',
  week: 'Week',
  month: 'Month',
  project: 'Project',
  model: 'Model',
  session: 'Session',
};

function label(by: UsageGroupBy, key: string, result: UsageResult): string {
  if (by === 'session') {
    const session = result.sessions.find((s) => s.path === key);
    const name = key.split(/[\\/]/).pop() ?? key;
    return session?.cwd ? `${session.cwd.split(/[\\/]/).pop()} · ${name}` : name;
  }
  if (by === 'project') {
    return key.split(/[\\/]/).filter(Boolean).pop() ?? key;
  }
  return key;
}

export function usageView(result: UsageResult, range: UsageRange = 'all'): UsageView {
  const t = result.totals;
  const span = result.since || result.until ? ` · ${result.since ?? '…'} to ${result.until ?? '…'}` : '';
  const headline =
    t.requests === 0
      ? 'No paid requests'
      : `${costText(t)} · ${plural(t.turns, 'turn')} · ${shareText(t.cacheShare)} of the prompt from the cache`;
  const shared = result.sessions.reduce((sum, s) => sum + s.sharedRequests, 0);
  const detail =
    `${plural(t.sessions, 'session')} · ${tokensText(t)}${span} · ${result.timeZone}` +
    (shared > 0 ? ` · ${plural(shared, 'request')} copied by forks and clones counted once` : '');
  const rows = result.groups.map((g) => ({
    key: g.key,
    label: label(result.by, g.key, result),
    sessions: formatExact(g.sessions),
    turns: formatExact(g.turns),
    tokens: formatTokens(g.cacheRead + newInput(g) + g.output),
    cached: shareText(g.cacheShare),
    cost: costText(g),
    title: `${g.key}: ${plural(g.requests, 'request')} · ${tokensText(g)}`,
  }));
  const notes = [
    ...result.skipped.map((s) => `skipped ${s.path}: ${s.reason}`),
    ...result.notes,
  ];
  return {
    by: result.by,
    range,
    headline,
    detail,
    chart: usageChart(result.days),
    groupTitle: GROUP_TITLES[result.by],
    rows,
    notes,
    empty: t.requests === 0 ? `No paid requests in ${result.roots.join(', ')}${span}.` : null,
  };
}
