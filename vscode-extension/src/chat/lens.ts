/**
 * The chat header's one-line lens: how full the context is (the gauge's percent of the window), what the next
 * request will cost, and whether the prompt cache is still warm — the Context view's headline in a line, which
 * opens that view on click. Built from the same answers the Context view draws (`pi/contextBudget`'s gauge,
 * `pi/turnLedger`'s `nextRequest`); nothing computed here but words. No VS Code.
 */
import type { NextRequestCostInfo } from '../protocol.generated';
import { formatUsd } from '../model/money';
import { cacheExpired, nextRequestText } from '../model/nextRequest';
import type { GaugeView } from './replyUsage';

export interface LensView {
  /** "62% of 200k · next ≈ $0.01302 · cache warm" */
  text: string;
  /** The hover: the gauge's sentence and the next request's. */
  title: string;
  cache: 'warm' | 'cold' | 'none';
  level: GaugeView['level'];
}

export function lensView(gauge: GaugeView | null, next: NextRequestCostInfo | null | undefined, now: number): LensView | null {
  if (!gauge && !next) {
    return null;
  }
  const parts: string[] = [];
  const titles: string[] = [];
  if (gauge) {
    parts.push(gauge.label);
    titles.push(gauge.title);
  }
  let cache: LensView['cache'] = 'none';
  if (next) {
    const expired = cacheExpired(next, now);
    const expected = expired === true ? next.cold : next.warm;
    parts.push(`next ${expected.cost === null || expected.cost === undefined ? 'cost unknown' : `≈ ${formatUsd(expected.cost)}`}`);
    if (next.prefix !== null && next.prefix !== undefined && expired !== null) {
      cache = expired ? 'cold' : 'warm';
      parts.push(expired ? 'cache cold' : 'cache warm');
    }
    titles.push(nextRequestText(next, now).line);
  }
  titles.push('Click: the Context view');
  return { text: parts.join(' · '), title: titles.join('\n'), cache, level: gauge?.level ?? 'ok' };
}
