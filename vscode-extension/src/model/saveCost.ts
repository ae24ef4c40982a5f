/**
 * What a saved context file costs in prompt-cache terms, in words (docs/cost.md, "What a save costs"):
 * for new sessions from `pi/promptSectionsChanged`'s `cache` (where the prompt first differs, in tokens
 * from the start), and for the selected session from `pi/turnLedger`'s `promptUpdate` (the patch Pi
 * records when the session next loads the files, which of Pi's two cases its model gets, the prefix it
 * keeps and the next request's price with and without it). The server decides the case; only the
 * wording is made here.
 */
import type {
  LiveChatInfo,
  NextRequestCostInfo,
  PromptSectionsChangedParams,
  SaveCacheImpactInfo,
  SessionPromptUpdateInfo,
} from '../protocol.generated';
import { type EstimateChoice, pick } from './estimate';
import { formatExact } from './format';
import { formatUsd } from './money';

export interface SaveCostText {
  /** New sessions: where the prompt first differs and what that leaves cached. */
  newSessions: string | null;
  /** The selected session: what Pi sends it, the prefix kept, the price (null: no session or nothing recorded). */
  session: string | null;
  /** Both with the details, for the hover. */
  title: string;
  /** The selected session is open in a chat whose Pi does not hold the change yet: the action that takes it up. */
  liveAction: { label: string; action: 'reload' | 'restart' } | null;
}

function money(value: number | null | undefined): string {
  return value === null || value === undefined ? 'cost unknown' : `≈ ${formatUsd(value)}`;
}

function tokens(n: number): string {
  return `${formatExact(n)} token${n === 1 ? '' : 's'}`;
}

/** The new-session sentence from the cache figures of a prompt change. */
export function newSessionsText(cache: SaveCacheImpactInfo, choice: EstimateChoice): string {
  if (cache.firstDifference === null || cache.firstDifference === undefined) {
    return 'New sessions: the rendered prompt is unchanged, nothing more to pay.';
  }
  const kept = pick(cache.keptTokens, choice);
  const resent = pick(cache.resentTokens, choice);
  return (
    `New sessions: the prompt first differs at token ${formatExact(kept)} of ${formatExact(kept + resent)}; ` +
    `the ${tokens(resent)} from there on miss the prompt cache in every new session.`
  );
}

function sectionNames(patch: Record<string, string | null>): string {
  const names = Object.keys(patch).map((name) => (patch[name] === null ? `${name} (removed)` : name));
  return names.join(', ');
}

/** The selected session's sentence: what Pi records and sends when it next loads the workspace's files. */
export function sessionText(
  update: SessionPromptUpdateInfo,
  without: NextRequestCostInfo | null | undefined,
  choice: EstimateChoice,
): string {
  const names = Object.keys(update.patch);
  if (names.length === 0) {
    return 'This session already has this prompt: Pi sends it no patch.';
  }
  const patch = pick(update.cache.patchTokens, choice);
  const next = update.nextRequest;
  const price = next
    ? ` Next request if its cache holds: ${formatExact(next.warm.cacheRead)} cached + ${formatExact(next.warm.newInput)} new, ` +
      `${money(next.warm.cost)}${without ? ` (${money(without.warm.cost)} without the change)` : ''}.`
    : '';
  if (update.mode === 'patch') {
    return (
      `This session: its model takes the change as a patch. When Pi next loads the files it appends ` +
      `${sectionNames(update.patch)} (${tokens(patch)}) at the end of the next request and the cached prefix` +
      `${next ? ` (${tokens(next.warm.cacheRead)})` : ''} is kept.${price}`
    );
  }
  const kept = pick(update.cache.keptTokens, choice);
  return (
    `This session: its model gets the whole prompt again. When Pi next loads the files the prompt (${sectionNames(update.patch)} changed) ` +
    `is sent at the start of the next request: the cache holds its first ${tokens(kept)} at most, the rest and the whole ` +
    `conversation are new input.${price}`
  );
}

/**
 * The selected session is open in a chat: what its Pi sends next (the prompt it holds: a running Pi does not read
 * the files again), and what Reload Pi would make it record and send (`liveChat.reload`). One price for the next
 * request, the one the Next Request line shows; the reload's price is said as the price after the reload.
 */
export function liveSessionText(live: LiveChatInfo, next: NextRequestCostInfo | null | undefined, choice: EstimateChoice): string {
  const price = next
    ? ` (${formatExact(next.warm.cacheRead)} cached + ${formatExact(next.warm.newInput)} new, ${money(next.warm.cost)})`
    : '';
  const drift = live.drift;
  if (!drift || drift.sections.length === 0) {
    return `This session is open in the chat, whose Pi holds this prompt: its next request sends it${price}.`;
  }
  const reload = live.reload;
  let after = '';
  if (reload && Object.keys(reload.patch).length > 0) {
    const names = sectionNames(reload.patch);
    const then = reload.nextRequest ? `; its next request then costs ${money(reload.nextRequest.warm.cost)} if the cache holds` : '';
    after =
      reload.mode === 'patch'
        ? `: Pi then records ${names} and appends it (${tokens(pick(reload.cache.patchTokens, choice))}) at the end of its next request, keeping the cached prefix${then}`
        : `: Pi then records ${names} and sends the new prompt at the start of its next request, so the cache holds its first ${tokens(pick(reload.cache.keptTokens, choice))} at most${then}`;
  }
  return (
    `This session is open in the chat, whose Pi read its files before this change: its next request is sent with ` +
    `the prompt Pi holds${price}. ${drift.actionLabel} to take the change up${after}.`
  );
}

/** Both sentences and the hover for the change banner. */
export function saveCostText(
  change: PromptSectionsChangedParams,
  update: SessionPromptUpdateInfo | null | undefined,
  without: NextRequestCostInfo | null | undefined,
  choice: EstimateChoice,
  live: LiveChatInfo | null = null,
): SaveCostText {
  const cache = change.cache;
  const newSessions = cache ? newSessionsText(cache, choice) : null;
  const session = live ? liveSessionText(live, without, choice) : update ? sessionText(update, without, choice) : null;
  const drift = live?.drift;
  const liveAction = drift && drift.sections.length > 0 ? { label: drift.actionLabel, action: drift.action } : null;
  const lines: string[] = [];
  if (cache) {
    lines.push(`Pi's patch for a session that had the old prompt: ${tokens(pick(cache.patchTokens, choice))}.`);
    if (newSessions) {
      lines.push(newSessions);
    }
    lines.push(
      "A provider that caches any prefix reads the tokens before the first difference; Anthropic's reads only up to a " +
        "cache breakpoint, and Pi's first one is after the whole prompt.",
    );
  }
  if (live) {
    if (session) {
      lines.push(session);
    }
  } else if (update) {
    if (session) {
      lines.push(session);
    }
    lines.push(
      `This session's patch is against the prompt it recorded (${update.mode === 'patch' ? 'its model takes system messages mid-conversation' : 'its model does not take system messages mid-conversation'}); ` +
        `a new session on it reads ${tokens(pick(update.newSessionCacheRead, choice))} of that prompt from the cache.`,
    );
  }
  return { newSessions, session, title: lines.join('\n'), liveAction };
}

/** A short label for the diff editor's title: the patch's size and where new sessions' prompts differ. */
export function diffCacheLabel(cache: SaveCacheImpactInfo | null | undefined, choice: EstimateChoice): string | null {
  if (!cache) {
    return null;
  }
  const patch = `patch ${tokens(pick(cache.patchTokens, choice))}`;
  if (cache.firstDifference === null || cache.firstDifference === undefined) {
    return patch;
  }
  return `${patch}; new sessions differ from token ${formatExact(pick(cache.keptTokens, choice))}`;
}
