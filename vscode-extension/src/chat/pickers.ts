/**
 * The chat's quick picks as items: the models Pi can use (its window, whether it thinks, whether it has prices),
 * the thinking levels, the sessions to resume. No VS Code here: the controller shows them through `ChatUi.pick`.
 */
import { formatExact, formatTokens } from '../model/format';
import type { ChatItemsResult, SessionsResult } from '../protocol.generated';
import type { PickItem } from './ports';
import { modelHasPrices } from './replyUsage';

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

/** `pi/sessions`' answer as items (name, else file name), the chat's own session marked. */
export function sessionItems(result: SessionsResult, shown: string | null | undefined): (PickItem & { path: string })[] {
  return result.sessions.map((s) => ({
    label: s.name ?? s.path.replace(/^.*[\\/]/, '').replace(/\.jsonl$/, ''),
    description: s.path === shown ? 'this chat' : new Date(s.modified * 1000).toLocaleString(),
    detail: `${s.entryCount ?? '?'} entries · ${formatExact(s.size)} bytes`,
    path: s.path,
  }));
}
