/**
 * The next request's price in words, from the server's `nextRequest` (`pi/turnLedger`,
 * `pi/chat/preflight`; docs/cost.md explains every number): a short line for beside the
 * projected request and under the chat input, and a longer hover text with the prefix, the
 * cache's state and where its lifetime came from. Nothing is computed here but the words and
 * the cache's state at `now` (the server gives the expiry instant, not a verdict that would age).
 */
import type { NextRequestCostInfo } from '../protocol.generated';
import { formatExact, formatTokens } from './format';
import { formatUsd } from './money';

export interface NextRequestText {
  /** One line: what is cached, what is new, the cache's state and the expected cost. */
  line: string;
  /** The line without its "Next request:" label, for under a title that already says so. */
  summary: string;
  /** The hover text: the same with the prefix, the lifetime's source and the server's notes. */
  title: string;
  /** Whether the cache has probably expired at `now` (null: lifetime or last request unknown). */
  expired: boolean | null;
}

const SOURCE_WORDS: Record<NextRequestCostInfo['cacheSource'], string> = {
  pi: "Pi's model catalog",
  'models.json': 'models.json',
  unknown: 'no source gives one',
};

/** Whether the cache has probably expired at `now`; null when the server knows no expiry instant. */
export function cacheExpired(next: NextRequestCostInfo, now: number): boolean | null {
  const at = next.expiresAt;
  return at === null || at === undefined ? null : now >= at;
}

/** A duration in whole units a reader takes in at a glance: 45 s, 4 min 10 s, 1.5 h, 12 days. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) {
    return `${s} s`;
  }
  if (s < 3600) {
    const rest = s % 60;
    return rest === 0 ? `${Math.floor(s / 60)} min` : `${Math.floor(s / 60)} min ${rest} s`;
  }
  if (s < 2 * 86400) {
    return `${(s / 3600).toFixed(1)} h`;
  }
  return `${Math.round(s / 86400)} days`;
}

function cost(value: number | null | undefined): string {
  return value === null || value === undefined ? 'cost unknown' : `≈ ${formatUsd(value)}`;
}

function stateWords(next: NextRequestCostInfo, expired: boolean | null, now: number): string {
  if (next.prefix === null || next.prefix === undefined) {
    return 'nothing cached yet';
  }
  if (expired === null) {
    return 'cache lifetime unknown';
  }
  const at = next.expiresAt ?? now;
  return expired ? `cache probably expired ${formatDuration(now - at)} ago` : `cache alive for ${formatDuration(at - now)}`;
}

/** The line and hover text for `next` as it stands at `now` (Unix ms). */
export function nextRequestText(next: NextRequestCostInfo, now: number): NextRequestText {
  const expired = cacheExpired(next, now);
  // Expired: the whole prompt is new input. Alive or unknown: the warm case, which is what Pi's
  // breakpoints aim for; the hover gives both.
  const expected = expired === true ? next.cold : next.warm;
  const summary =
    `${formatTokens(expected.cacheRead)} cached + ${formatTokens(expected.newInput)} new · ` +
    `${stateWords(next, expired, now)} · ${cost(expected.cost)}`;
  const line = `Next request: ${summary}`;

  const lines: string[] = [];
  const total = next.warm.cacheRead + next.warm.newInput;
  lines.push(`Next request: about ${formatExact(total)} prompt tokens (scaled to the provider's count of the previous request)`);
  const prefix = next.prefix;
  if (prefix === null || prefix === undefined) {
    lines.push('No earlier request on this branch: nothing is cached.');
  } else {
    const prefixTokens = Math.round(prefix.tokens * next.scale);
    const against = next.previousEntryId ? ` (the request of reply ${next.previousEntryId})` : '';
    const extent = prefix.wholePrevious
      ? 'the whole previous request'
      : `${prefix.segments} of its ${prefix.previousSegments} segments` +
        (prefix.brokenAt ? `, then it differs in a ${prefix.brokenAt.kind} segment` : '');
    lines.push(`Byte-identical prefix with the previous request${against}: ${extent}, about ${formatExact(prefixTokens)} tokens.`);
  }
  const lifetime =
    next.cacheLifetimeS === null || next.cacheLifetimeS === undefined
      ? `lifetime unknown (${SOURCE_WORDS[next.cacheSource]})`
      : `lifetime ${formatDuration(next.cacheLifetimeS * 1000)} for ${next.retention} retention, from ${SOURCE_WORDS[next.cacheSource]}`;
  lines.push(`Cache: ${stateWords(next, expired, now)}; ${lifetime}.`);
  lines.push(
    `If the cache holds: ${formatExact(next.warm.cacheRead)} cache-read + ${formatExact(next.warm.newInput)} new input tokens, ${cost(next.warm.cost)}.`,
  );
  lines.push(`If it expired: ${formatExact(next.cold.newInput)} new input tokens, ${cost(next.cold.cost)}.`);
  lines.push(
    next.priceSource === 'unknown'
      ? 'No prices known for this model (neither Pi’s catalog nor models.json).'
      : `Prompt side only (output not included); prices from ${SOURCE_WORDS[next.priceSource]}.`,
  );
  for (const note of next.notes ?? []) {
    lines.push(note);
  }
  return { line, summary, title: lines.join('\n'), expired };
}
