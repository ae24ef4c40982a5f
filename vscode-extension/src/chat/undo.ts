/**
 * Undo for an `edit` or `write` tool card, and a turn's changes for review: pure decisions, no VS Code.
 *
 * The content before the tool call: for `edit`, the file right after Pi wrote it with the edit reversed (exact
 * when every new text occurs once, `editDiff.ts`); for `write`, the file as it was read when the model finished
 * the call (before Pi runs tools; `null` when there was no file). Undo puts that content back only while the file
 * on disk is still what the tool wrote; otherwise it is refused with one sentence.
 */

export interface UndoRecord {
  tool: 'edit' | 'write';
  path: string;
  /** The file before the tool call; null: there was no file (a write created it). */
  before: string | null;
  /** The file as the tool left it (line endings as `\n`, no BOM). */
  after: string;
}

export type UndoDecision =
  | { kind: 'restore'; content: string }
  | { kind: 'delete' }
  | { kind: 'refuse'; reason: string };

function normalized(text: string): string {
  return text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
}

/** The file's own line ending and BOM, put back on `text` (Pi's tools keep them: so does Undo). */
function inStyleOf(text: string, like: string): string {
  const bom = like.startsWith('\uFEFF') ? '\uFEFF' : '';
  const body = like.includes('\r\n') ? text.replace(/\r?\n/g, '\r\n') : text;
  return bom + body;
}

/**
 * What Undo does: `record` is what is known of the tool call (or why nothing is: the edit could not be reversed
 * exactly, the file was not seen before a write), `now` the file on disk now (null: it does not exist).
 */
export function undoDecision(record: UndoRecord | { unknown: string; path: string }, now: string | null): UndoDecision {
  const name = record.path.split(/[\\/]/).pop() ?? record.path;
  if ('unknown' in record) {
    return { kind: 'refuse', reason: `Cannot undo this change to ${name}: ${record.unknown}.` };
  }
  if (now === null) {
    return { kind: 'refuse', reason: `Cannot undo: ${name} was deleted since Pi wrote it.` };
  }
  if (normalized(now) !== normalized(record.after)) {
    return { kind: 'refuse', reason: `Cannot undo: ${name} changed on disk since Pi's ${record.tool} wrote it.` };
  }
  if (record.before === null) {
    return { kind: 'delete' };
  }
  return { kind: 'restore', content: inStyleOf(normalized(record.before), now) };
}

/** A tool card as the review sees it. */
export interface TurnTool {
  kind: 'user' | 'tool' | 'other';
  name?: string;
  status?: string;
  path?: string;
  id: string;
}

/**
 * The files a turn changed, in the order first changed, each with the id of the first card that changed it (whose
 * "before" is the file before the turn): the turn is the items after the last user message at or before `itemId`,
 * up to the next user message.
 */
export function turnChanges(items: readonly TurnTool[], itemId: string): { path: string; firstItemId: string }[] {
  const at = items.findIndex((i) => i.id === itemId);
  if (at < 0) {
    return [];
  }
  let start = at;
  while (start > 0 && items[start]?.kind !== 'user') {
    start--;
  }
  const seen = new Map<string, string>();
  for (let i = start + 1; i < items.length; i++) {
    const item = items[i];
    if (!item || item.kind === 'user') {
      break;
    }
    if (item.kind === 'tool' && (item.name === 'edit' || item.name === 'write') && item.status === 'done' && item.path) {
      if (!seen.has(item.path)) {
        seen.set(item.path, item.id);
      }
    }
  }
  return [...seen.entries()].map(([path, firstItemId]) => ({ path, firstItemId }));
}
