/**
 * Messages between the Usage panel's webview and the extension host. The webview is untrusted input:
 * `parseUsageMessage` accepts only these shapes. The host posts only a `UsageView` (display data built
 * by `model/usage.ts`) or a line saying why there is none.
 */
import { GROUPINGS, RANGES, type UsageGroupBy, type UsageRange, type UsageView } from '../model/usage';
import { messageObject } from '../webviewMessage';

export type UsageWebviewMessage =
  | { type: 'ready' }
  | { type: 'refresh' }
  | { type: 'group'; by: UsageGroupBy }
  | { type: 'range'; range: UsageRange };

export type UsageHostMessage =
  | { type: 'view'; view: UsageView; loading: boolean }
  | { type: 'status'; message: string; loading: boolean };

export function parseUsageMessage(raw: unknown): UsageWebviewMessage | undefined {
  const m = messageObject(raw);
  if (m === undefined) {
    return undefined;
  }
  if (m.type === 'ready' || m.type === 'refresh') {
    return { type: m.type };
  }
  if (m.type === 'group' && typeof m.by === 'string' && (GROUPINGS as readonly string[]).includes(m.by)) {
    return { type: 'group', by: m.by as UsageGroupBy };
  }
  if (m.type === 'range' && typeof m.range === 'string' && (RANGES as readonly string[]).includes(m.range)) {
    return { type: 'range', range: m.range as UsageRange };
  }
  return undefined;
}
