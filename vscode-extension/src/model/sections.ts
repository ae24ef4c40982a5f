/**
 * The sections list and its change highlights. After `pi/promptSectionsChanged` the rows of the
 * changed sections carry their status and token delta; removed sections stay visible as ghost rows
 * at the place they held, so the list shows the whole edit, not only what survived it.
 */
import type {
  PromptSection,
  PromptSectionsChangedParams,
  SectionChange,
  SectionSource,
  SystemPromptResult,
} from '../protocol.generated';
import { type EstimateChoice, pick } from './estimate';
import { formatDelta } from './format';
import { diffCacheLabel } from './saveCost';

export interface SourceLink {
  path: string;
  uri: string | null;
  kind: SectionSource['kind'];
  /** Shown text: the path relative to the prompt's cwd when inside it. */
  label: string;
}

export interface SectionHighlight {
  status: SectionChange['status'];
  delta: number;
  deltaLabel: string;
}

export interface SectionRow {
  name: string;
  position: number;
  tokens: number;
  piTokens: number;
  estimateTokens: number;
  sources: SourceLink[];
  piProse: boolean;
  /** Present when the last change notification touched this section. */
  change: SectionHighlight | null;
  /** A section the last change removed: shown struck through, no longer in the prompt. */
  removed: boolean;
}

export function highlights(
  change: PromptSectionsChangedParams | null | undefined,
  choice: EstimateChoice,
): Map<string, SectionHighlight> {
  const map = new Map<string, SectionHighlight>();
  for (const c of change?.changes ?? []) {
    const delta = pick(c.delta, choice);
    map.set(c.name, { status: c.status, delta, deltaLabel: formatDelta(delta) });
  }
  return map;
}

/**
 * Rows for the current prompt, highlighted by the last change; `previous` (the prompt before that
 * change) places removed sections where they were.
 */
export function sectionRows(
  current: SystemPromptResult,
  change: PromptSectionsChangedParams | null | undefined,
  choice: EstimateChoice,
  previous?: SystemPromptResult | null,
): SectionRow[] {
  const marks = highlights(change, choice);
  const rows = [...current.sections]
    .sort((a, b) => a.position - b.position)
    .map((s) => row(s, current.cwd, marks.get(s.name) ?? null, false, choice));
  const present = new Set(rows.map((r) => r.name));
  for (const c of change?.changes ?? []) {
    if (c.status !== 'removed' || present.has(c.name)) {
      continue;
    }
    const old = previous?.sections.find((s) => s.name === c.name);
    const ghost: SectionRow = old
      ? row(old, previous?.cwd ?? current.cwd, marks.get(c.name) ?? null, true, choice)
      : {
          name: c.name,
          position: Number.MAX_SAFE_INTEGER,
          tokens: pick(c.tokensBefore, choice),
          piTokens: c.tokensBefore?.pi ?? 0,
          estimateTokens: c.tokensBefore?.estimate ?? 0,
          sources: [],
          piProse: false,
          change: marks.get(c.name) ?? null,
          removed: true,
        };
    // Insert the ghost before the first surviving row that came after it in the old prompt.
    const oldOrder = previous ? previous.sections.map((s) => s.name) : [];
    const oldIndex = oldOrder.indexOf(c.name);
    let at = rows.length;
    if (oldIndex >= 0) {
      const later = new Set(oldOrder.slice(oldIndex + 1));
      const found = rows.findIndex((r) => later.has(r.name));
      if (found >= 0) {
        at = found;
      }
    }
    rows.splice(at, 0, ghost);
  }
  return rows;
}

function row(
  s: PromptSection,
  cwd: string,
  change: SectionHighlight | null,
  removed: boolean,
  choice: EstimateChoice,
): SectionRow {
  return {
    name: s.name,
    position: s.position,
    tokens: pick(s.tokens, choice),
    piTokens: s.tokens.pi,
    estimateTokens: s.tokens.estimate,
    sources: (s.sources ?? []).map((src) => ({
      path: src.path,
      uri: src.uri ?? null,
      kind: src.kind,
      label: relativeLabel(src.path, cwd),
    })),
    piProse: s.piProse ?? false,
    change,
    removed,
  };
}

/** `/repo/pkg/AGENTS.md` under cwd `/repo` -> `pkg/AGENTS.md`; outside it, the path unchanged. */
export function relativeLabel(path: string, cwd: string): string {
  const base = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return path.startsWith(base) ? path.slice(base.length) : path;
}

/** One section's before/after texts, what the diff editor shows. */
export interface SectionDiffEntry {
  name: string;
  status: SectionChange['status'];
  before: string;
  after: string;
  delta: number;
  deltaLabel: string;
}

export interface PromptDiff {
  /** Increases with each notification, so virtual document URIs of two diffs never collide. */
  id: number;
  workspaceFolder: string;
  triggerPaths: string[];
  totalDelta: number;
  totalDeltaLabel: string;
  renderedBefore: string | null;
  renderedAfter: string | null;
  entries: SectionDiffEntry[];
  renderedUpdate: string;
  /** The patch's size and where new sessions' prompts first differ, for the diff editor's title. */
  cacheLabel: string | null;
}

/**
 * Before/after text per changed section: "after" is the patch (Pi's patch carries the new text of
 * each changed section, null for a removed one); "before" is the section in the prompt the client
 * held before the notification (empty when the client never saw it, e.g. an added section).
 */
export function promptDiff(
  id: number,
  params: PromptSectionsChangedParams,
  before: SystemPromptResult | null | undefined,
  after: SystemPromptResult | null | undefined,
  choice: EstimateChoice,
): PromptDiff {
  const beforeText = new Map((before?.sections ?? []).map((s) => [s.name, s.text] as const));
  const afterText = new Map((after?.sections ?? []).map((s) => [s.name, s.text] as const));
  const entries = params.changes.map((c): SectionDiffEntry => {
    const patched = Object.prototype.hasOwnProperty.call(params.patch, c.name) ? params.patch[c.name] : undefined;
    const delta = pick(c.delta, choice);
    return {
      name: c.name,
      status: c.status,
      before: c.status === 'added' ? '' : (beforeText.get(c.name) ?? ''),
      after: c.status === 'removed' ? '' : (patched ?? afterText.get(c.name) ?? ''),
      delta,
      deltaLabel: formatDelta(delta),
    };
  });
  const totalDelta = pick(params.totalAfter, choice) - pick(params.totalBefore, choice);
  return {
    id,
    workspaceFolder: params.workspaceFolder,
    triggerPaths: params.triggerPaths ?? [],
    totalDelta,
    totalDeltaLabel: formatDelta(totalDelta),
    renderedBefore: before?.rendered ?? null,
    renderedAfter: after?.rendered ?? null,
    entries,
    renderedUpdate: params.renderedUpdate,
    cacheLabel: diffCacheLabel(params.cache, choice),
  };
}
