/**
 * The chat's quick picks as items: the models Pi can use (its window, whether it thinks, whether it has prices),
 * the thinking levels, the sessions to resume. No VS Code here: the controller shows them through `ChatUi.pick`.
 */
import { formatExact, formatTokens } from '../model/format';
import type { ChatItemsResult, SessionsResult } from '../protocol.generated';
import type { PickItem } from './ports';
import { modelHasPrices } from './replyUsage';
import { formatUsd } from '../model/money';

export const THINKING_LEVELS = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

/** `pi/chat/models`'s answer as items (`provider/id`), the current one marked. */
export function modelItems(models: ChatItemsResult, current: string): (PickItem & { id: string })[] {
  return models.items.map((m) => {
    const id = `${String(m.provider)}/${String(m.id)}`;
    const window = typeof m.contextWindow === 'number' ? `${formatTokens(m.contextWindow)} window` : '';
    const prices = modelHasPrices(m) ? 'priced' : 'no prices';
    return {
      label: id,
      description: id === current ? 'current' : typeof m.name === 'string' && m.name !== m.id ? m.name : '',
      detail: [window, m.reasoning === true ? 'thinking' : '', prices].filter(Boolean).join(' · '),
      id,
    };
  });
}

export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

export function thinkingItems(current: string): (PickItem & { label: ThinkingLevel })[] {
  return THINKING_LEVELS.map((level) => ({ label: level, description: level === current ? 'current' : '' }));
}

/** When a session was last written, for a quick pick: "today 14:05", "yesterday 09:12", "2026-12-01 18:40". */
export function sessionDate(modifiedSeconds: number, now: Date): string {
  const at = new Date(modifiedSeconds * 1000);
  const pad = (n: number): string => String(n).padStart(2, '0');
  const time = `${pad(at.getHours())}:${pad(at.getMinutes())}`;
  const day = (d: Date): number => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const days = Math.round((day(now) - day(at)) / 86_400_000);
  if (days === 0) {
    return `today ${time}`;
  }
  if (days === 1) {
    return `yesterday ${time}`;
  }
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${time}`;
}

/**
 * `pi/sessions`' answer as the history's items: the title (Pi's name, else the first message), then when, the
 * model and what Pi recorded it cost; the first message under it when the session has a name, else its size. The
 * quick pick searches all three lines. The chat's own session is marked.
 */
export function sessionItems(
  result: SessionsResult,
  shown: string | null | undefined,
  now: Date = new Date(),
): (PickItem & { path: string })[] {
  return result.sessions.map((s) => {
    const title = s.title || s.name || s.path.replace(/^.*[\\/]/, '').replace(/\.jsonl$/, '');
    const description = [
      s.path === shown ? 'this chat' : '',
      sessionDate(s.modified, now),
      s.model ?? '',
      s.cost === null || s.cost === undefined ? '' : formatUsd(s.cost),
    ]
      .filter(Boolean)
      .join(' · ');
    const first = s.firstMessage ? s.firstMessage.replace(/\s+/g, ' ').trim() : '';
    const detail = s.name && first ? first : `${s.entryCount ?? '?'} entries · ${formatExact(s.size)} bytes`;
    return { label: title, description, detail, path: s.path };
  });
}
