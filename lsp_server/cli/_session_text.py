"""Text for ``pi-context session``: the tree's shape, a compact ASCII tree, and aligned tables.

A session of a thousand entries is mostly one long chain, so the tree prints only the entries
that tell its shape -- roots, branch points, leaves, labelled entries, compactions and branch
summaries, the current leaf -- and folds every run of plain entries between them into one
``┊ N entries`` line. Branches are drawn with ``├─``/``└─``; the active path uses ``●``.
The walk uses an explicit stack: a deep tree must not hit Python's recursion limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lsp_server.js.values import js_get, js_to_string
from lsp_server.session.gist import entry_gist, one_line
from lsp_server.session.tree import TreeNode, TreeView

PREVIEW_CHARS = 60


def preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    """One line of at most ``limit`` characters (see :func:`lsp_server.session.gist.one_line`)."""
    return one_line(text, limit)


def entry_summary(entry: Any) -> str:
    """``user "text…"``, ``compaction "summary…"``, ``model_change anthropic/x``, ``label → id``, …"""
    gist = entry_gist(entry)
    if gist.sections is not None:
        return f"system [{', '.join(gist.sections)}]" if gist.sections else "system"
    if gist.text is not None and gist.detail is None:
        return f'{gist.kind} "{preview(gist.text)}"'
    return f"{gist.kind} {gist.detail}" if gist.detail is not None else gist.kind


@dataclass(frozen=True)
class TreeShape:
    roots: list[str]
    branch_points: list[tuple[str, list[str]]]
    leaves: list[str]
    labels: dict[str, str]

    def to_json(self, leaf_id: str | None, leaf_depth: int) -> dict[str, Any]:
        return {
            "roots": self.roots,
            "leafId": leaf_id,
            "leafDepth": leaf_depth,
            "branchPoints": [{"id": node, "children": children} for node, children in self.branch_points],
            "leaves": self.leaves,
            "labels": self.labels,
        }


def _id(node: TreeNode) -> str:
    return js_to_string(js_get(node.entry, "id"))


def tree_shape(tree: TreeView) -> TreeShape:
    roots = [_id(root) for root in tree.roots]
    branch_points: list[tuple[str, list[str]]] = []
    leaves: list[str] = []
    labels: dict[str, str] = {}
    stack = list(reversed(tree.roots))
    while stack:
        node = stack.pop()
        if node.label:
            labels[_id(node)] = node.label
        if len(node.children) > 1:
            branch_points.append((_id(node), [_id(child) for child in node.children]))
        if not node.children:
            leaves.append(_id(node))
        stack.extend(reversed(node.children))
    return TreeShape(roots, branch_points, leaves, labels)


def render_tree(tree: TreeView, leaf_id: str | None, active: set[str]) -> list[str]:
    """The compact ASCII tree (see the module docstring)."""

    def interesting(node: TreeNode) -> bool:
        kind = js_get(node.entry, "type")
        return (
            len(node.children) != 1
            or bool(node.label)
            or kind in ("compaction", "branch_summary")
            or _id(node) == leaf_id
        )

    def describe(node: TreeNode) -> str:
        node_id = _id(node)
        mark = "●" if node_id in active else "○"
        text = f"{mark} {node_id} {entry_summary(node.entry)}"
        if node.label:
            text += f" [{node.label}]"
        if node_id == leaf_id:
            text += "  ← leaf"
        return text

    lines: list[str] = []
    # (node, prefix for its own line, prefix for what follows under it)
    stack: list[tuple[TreeNode, str, str]] = [(root, "", "") for root in reversed(tree.roots)]
    while stack:
        node, head, body = stack.pop()
        lines.append(head + describe(node))
        current = node
        while len(current.children) == 1:
            skipped = 0
            nxt = current.children[0]
            while not interesting(nxt):
                skipped += 1
                nxt = nxt.children[0]
            if skipped:
                lines.append(f"{body}┊ {skipped:,} {'entry' if skipped == 1 else 'entries'}")
            lines.append(body + describe(nxt))
            current = nxt
        children = current.children
        for position in range(len(children) - 1, -1, -1):
            last = position == len(children) - 1
            stack.append((children[position], body + ("└─" if last else "├─"), body + ("  " if last else "│ ")))
    return lines


def table(rows: Sequence[Sequence[str]], align: str) -> list[str]:
    """Rows as aligned columns; ``align`` has one ``<`` or ``>`` per column."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(align))]
    out: list[str] = []
    for row in rows:
        cells = [cell.ljust(widths[i]) if align[i] == "<" else cell.rjust(widths[i]) for i, cell in enumerate(row)]
        out.append("  ".join(cells).rstrip())
    return out
