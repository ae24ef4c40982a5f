/**
 * A Pi session is an append-only tree that is almost always a long chain with a few branch points.
 * Nesting each entry under its parent would indent a 500-message chat 500 levels deep, so the
 * Sessions view shows it the way Pi's `/tree` does: a chain is a flat list, and only a node with
 * several children opens one nested list per branch. This module computes those lists.
 */
import type { SessionSummary, SessionTreeResult, TreeNode } from '../protocol.generated';
import { formatUsd } from './money';

export interface TreeIndex {
  nodes: Map<string, TreeNode>;
  children: Map<string, string[]>;
  roots: string[];
  leafId: string | null;
}

export function indexTree(tree: SessionTreeResult): TreeIndex {
  const nodes = new Map(tree.nodes.map((n) => [n.id, n] as const));
  const children = new Map<string, string[]>();
  for (const n of tree.nodes) {
    // The node's own children list is authoritative; parent links fill in when it is absent.
    if (n.children && n.children.length > 0) {
      children.set(n.id, n.children.filter((c) => nodes.has(c)));
    }
  }
  for (const n of tree.nodes) {
    const parent = n.parentId ?? null;
    if (parent && nodes.has(parent) && !(nodes.get(parent)?.children?.length ?? 0)) {
      const list = children.get(parent) ?? [];
      if (!list.includes(n.id)) {
        list.push(n.id);
      }
      children.set(parent, list);
    }
  }
  const roots = tree.roots.length > 0 ? tree.roots.filter((r) => nodes.has(r)) : tree.nodes.filter((n) => !n.parentId).map((n) => n.id);
  return { nodes, children, roots, leafId: tree.leafId ?? null };
}

/** The chain that starts at `id`: the node, then its only child, and so on, up to a branch point or leaf. */
export function chainFrom(index: TreeIndex, id: string): string[] {
  const chain = [id];
  const seen = new Set(chain);
  let at = id;
  for (;;) {
    const kids = index.children.get(at) ?? [];
    if (kids.length !== 1) {
      return chain;
    }
    const next = kids[0] as string;
    if (seen.has(next)) {
      return chain; // a cycle would be a corrupt file; stop rather than loop
    }
    chain.push(next);
    seen.add(next);
    at = next;
  }
}

/** Where a displayed item sits: at the head of a branch it opens the rest of its chain. */
export type TreeItemKey = { kind: 'head'; id: string } | { kind: 'inChain'; id: string };

/** Items shown directly under a session: the chain of each root (several roots show as branches). */
export function sessionChildren(index: TreeIndex): TreeItemKey[] {
  if (index.roots.length === 1) {
    return chainFrom(index, index.roots[0] as string).map((id) => ({ kind: 'inChain', id }));
  }
  return index.roots.map((id) => ({ kind: 'head', id }));
}

/** Items under a displayed item (empty when it has none). */
export function itemChildren(index: TreeIndex, item: TreeItemKey): TreeItemKey[] {
  if (item.kind === 'head') {
    const chain = chainFrom(index, item.id);
    if (chain.length > 1) {
      return chain.slice(1).map((id) => ({ kind: 'inChain', id }));
    }
  }
  const kids = index.children.get(item.id) ?? [];
  return kids.length > 1 ? kids.map((id) => ({ kind: 'head', id })) : [];
}

export function hasChildren(index: TreeIndex, item: TreeItemKey): boolean {
  return itemChildren(index, item).length > 0;
}

export interface NodeDisplay {
  label: string;
  description: string;
  tooltip: string;
  isLeaf: boolean;
  onActivePath: boolean;
  branchCount: number;
}

const TYPE_LABEL: Record<string, string> = {
  compaction: 'Compaction',
  branch_summary: 'Branch summary',
  model_change: 'Model change',
  thinking_level_change: 'Thinking level',
  custom_message: 'Extension message',
  custom: 'Extension data',
  label: 'Label',
  session_info: 'Session info',
};

export function nodeDisplay(index: TreeIndex, id: string): NodeDisplay {
  const n = index.nodes.get(id);
  if (!n) {
    return { label: id, description: '', tooltip: id, isLeaf: false, onActivePath: false, branchCount: 0 };
  }
  const who = n.type === 'message' ? (n.role ?? 'message') : (TYPE_LABEL[n.type] ?? n.type);
  const preview = (n.preview ?? '').replace(/\s+/g, ' ').trim();
  const isLeaf = index.leafId === id;
  const branchCount = (index.children.get(id) ?? []).length;
  const label = preview ? `${who}: ${preview}` : who;
  const parts: string[] = [];
  if (n.label) {
    parts.push(`🏷 ${n.label}`);
  }
  if (isLeaf) {
    parts.push('current leaf');
  }
  if (branchCount > 1) {
    parts.push(`${branchCount} branches`);
  }
  const tooltip = [`${who} · ${id}`, n.timestamp ?? '', n.label ? `label: ${n.label}` : '', preview]
    .filter(Boolean)
    .join('\n');
  return { label, description: parts.join(' · '), tooltip, isLeaf, onActivePath: n.onActivePath ?? false, branchCount };
}

/** "fix the login bug · 42 entries · 3 min ago" style session descriptions. */
export function sessionLabel(s: SessionSummary): string {
  return s.title || s.name?.trim() || baseName(s.path);
}

export function sessionDescription(s: SessionSummary, nowSeconds: number): string {
  const parts: string[] = [];
  if (s.entryCount !== undefined && s.entryCount !== null) {
    parts.push(`${s.entryCount} entries`);
  }
  if (s.model) {
    parts.push(s.model.replace(/^.*\//, ''));
  }
  if (s.cost !== undefined && s.cost !== null) {
    parts.push(formatUsd(s.cost));
  }
  parts.push(ago(nowSeconds - s.modified));
  return parts.join(' · ');
}

export function ago(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) {
    return 'just now';
  }
  const m = Math.round(s / 60);
  if (m < 60) {
    return `${m} min ago`;
  }
  const h = Math.round(m / 60);
  if (h < 48) {
    return `${h} h ago`;
  }
  return `${Math.round(h / 24)} days ago`;
}

function baseName(path: string): string {
  const i = path.lastIndexOf('/');
  return i >= 0 ? path.slice(i + 1) : path;
}

/**
 * Nodes a branch summary can move to: every node but the current leaf. Nodes on the active path come
 * first, newest first (going back along the path summarizes the tail), then the other branches' nodes,
 * newest first (switching branch summarizes the branch being left).
 */
export function branchTargets(index: TreeIndex): TreeNode[] {
  const all = [...index.nodes.values()].filter((n) => n.id !== index.leafId).reverse();
  return [...all.filter((n) => n.onActivePath ?? false), ...all.filter((n) => !(n.onActivePath ?? false))];
}
