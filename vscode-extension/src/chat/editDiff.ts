/**
 * The two sides of an `edit` tool card's diff, built honestly from what is known.
 *
 * Pi's `edit` tool takes `{path, edits: [{oldText, newText}]}` (Pi 1.6.0 also accepts `edits` as
 * JSON text or as one object, and a top-level `oldText`/`newText`), matches every `oldText` in the
 * file as it was (line endings normalized to `\n`, a BOM ignored) and writes the file with each
 * replaced by its `newText`. The file as it was is not kept anywhere, so the "before" side is
 * rebuilt: the file as it is now, with each `newText` put back to its `oldText`. That is exact when
 * every `newText` occurs exactly once in the file now (right after the edit it does, unless the new
 * text was also elsewhere). When it does not (the file changed since, the new text is ambiguous or
 * empty, the file cannot be read) the diff falls back to the edit's own old and new text, and says
 * why. No VS Code here, so it is unit-tested.
 */

export interface EditChange {
  oldText: string;
  newText: string;
}

export interface EditCall {
  path: string;
  edits: EditChange[];
}

export type EditSides =
  /** `before`: the file now with this edit reversed; `after`: the file now. */
  | { source: 'file'; before: string; after: string }
  /** Only the edit's snippets (joined with a marker line), and why the file could not be used. */
  | { source: 'snippets'; before: string; after: string; reason: string };

const SNIPPET_SEPARATOR = '\n⋯\n';

/** The edit tool's arguments (the card's JSON text), in any of the forms Pi accepts; null if none. */
export function parseEditArgs(args: string): EditCall | null {
  let value: unknown;
  try {
    value = JSON.parse(args);
  } catch {
    return null;
  }
  if (!isObject(value) || typeof value.path !== 'string') {
    return null;
  }
  let edits: unknown = value.edits;
  if (typeof edits === 'string') {
    try {
      edits = JSON.parse(edits) as unknown;
    } catch {
      edits = undefined;
    }
  }
  const list: unknown[] = Array.isArray(edits) ? [...(edits as unknown[])] : isObject(edits) ? [edits] : [];
  if (typeof value.oldText === 'string' && typeof value.newText === 'string') {
    list.push({ oldText: value.oldText, newText: value.newText });
  }
  const changes = list.filter(
    (e): e is EditChange => isObject(e) && typeof e.oldText === 'string' && typeof e.newText === 'string',
  );
  return changes.length > 0 ? { path: value.path, edits: changes.map((e) => ({ oldText: e.oldText, newText: e.newText })) } : null;
}

/** The diff's sides: the file with the edit reversed when that is unambiguous, else the snippets. */
export function editSides(current: string | null, call: EditCall): EditSides {
  if (current === null) {
    return snippets(call, 'the file cannot be read now');
  }
  const text = current.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  const found: { at: number; change: EditChange }[] = [];
  for (const change of call.edits) {
    const newText = change.newText.replace(/\r\n/g, '\n');
    if (newText.length === 0) {
      return snippets(call, 'an edit removed its text, so where it was cannot be found in the file');
    }
    const at = text.indexOf(newText);
    if (at < 0) {
      return snippets(call, 'the text this edit wrote is no longer in the file (it changed since)');
    }
    if (text.indexOf(newText, at + 1) >= 0) {
      return snippets(call, 'the text this edit wrote occurs more than once in the file, so which one it wrote is ambiguous');
    }
    found.push({ at, change: { oldText: change.oldText.replace(/\r\n/g, '\n'), newText } });
  }
  found.sort((a, b) => a.at - b.at);
  for (let i = 1; i < found.length; i++) {
    const previous = found[i - 1];
    const next = found[i];
    if (previous && next && previous.at + previous.change.newText.length > next.at) {
      return snippets(call, "the texts this edit wrote overlap in the file, so they cannot be put back one by one");
    }
  }
  let before = text;
  for (const { at, change } of [...found].reverse()) {
    before = before.slice(0, at) + change.oldText + before.slice(at + change.newText.length);
  }
  return { source: 'file', before, after: text };
}

/** What the card says about its diff. */
export function editSidesNote(sides: EditSides): string {
  return sides.source === 'file'
    ? 'Diff: the file as it is now, against the same file with this edit reversed.'
    : `Diff of the edit's old and new text only: ${sides.reason}.`;
}

function snippets(call: EditCall, reason: string): EditSides {
  return {
    source: 'snippets',
    before: call.edits.map((e) => e.oldText).join(SNIPPET_SEPARATOR),
    after: call.edits.map((e) => e.newText).join(SNIPPET_SEPARATOR),
    reason,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The sides kept for the latest edits; an older card's diff is built again when asked. */
export const MAX_EDIT_DIFFS = 50;

/**
 * The edit cards' diff sides, by item id, the newest `MAX_EDIT_DIFFS` kept. The diff editor's two documents are
 * `/<itemId>/before/<name>` and `/<itemId>/after/<name>` (the host's `pi-context-edit:` URIs); `side` answers them.
 */
export class EditDiffs {
  private readonly kept = new Map<string, EditSides>();

  get(itemId: string): EditSides | undefined {
    return this.kept.get(itemId);
  }

  keep(itemId: string, sides: EditSides): void {
    this.kept.delete(itemId);
    this.kept.set(itemId, sides);
    for (const old of [...this.kept.keys()].slice(0, Math.max(0, this.kept.size - MAX_EDIT_DIFFS))) {
      this.kept.delete(old);
    }
  }

  /** The text of a diff document by its path; a side no longer kept says how to get it again. */
  side(documentPath: string): string {
    const match = /^\/([^/]+)\/(before|after)\//.exec(documentPath);
    const sides = match ? this.kept.get(match[1] ?? '') : undefined;
    if (!match || !sides) {
      return "(This edit is too old to show: open its card's diff again.)";
    }
    return match[2] === 'before' ? sides.before : sides.after;
  }
}

/** The diff editor's title for an edit card's sides. */
export function editDiffTitle(name: string, sides: EditSides): string {
  return sides.source === 'file'
    ? `${name}: with Pi's edit reversed ↔ now`
    : `${name}: the edit's old ↔ new text (not the whole file)`;
}
