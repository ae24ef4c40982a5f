/**
 * The first checks both webview message parsers make (`sidebar/messages.ts`, `chat/messages.ts`):
 * an object with a string `type`. Each parser then checks its own contract. No Node and no VS Code
 * here: the webview bundles import those modules.
 */

/** A message from a webview as an object with a string `type`, else `undefined` (each parser goes on from here). */
export function messageObject(raw: unknown): (Record<string, unknown> & { type: string }) | undefined {
  if (typeof raw !== 'object' || raw === null) {
    return undefined;
  }
  const m = raw as Record<string, unknown>;
  return typeof m.type === 'string' ? (m as Record<string, unknown> & { type: string }) : undefined;
}
