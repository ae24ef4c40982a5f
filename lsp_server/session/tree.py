"""The session tree: entries by id, the path to a leaf, children, labels, the tree view.

A Pi session is an append-only tree: every entry names its parent, the *leaf* is where the next
entry goes, and the conversation the model sees is the path from the root to the leaf. After
loading, Pi's leaf is simply the **last entry in the file** (not the deepest node). Broken files
are common enough (hand edits, forks, crashes) that the rules for them matter: an entry whose
parent is missing ends the path there and shows as an extra root in the tree, as does an entry
that names itself as parent. A longer parent cycle would make Pi loop forever; we stop at the
repeated entry and report it instead.

Ids are compared as JavaScript compares them (``===``); an absent ``parentId`` is not ``null``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lsp_server.js.dates import js_date_ms
from lsp_server.js.values import UNDEFINED, js_get, js_truthy
from lsp_server.session.raw import Entry

EntryIndex = Mapping[Any, Entry]


def _key(value: Any) -> Any:
    """A dict key for an id value (``UNDEFINED`` and unhashable ids share one unusable key)."""
    try:
        hash(value)
    except TypeError:
        return UNDEFINED
    return value


def build_index(entries: Sequence[Entry]) -> dict[Any, Entry]:
    """``Map(id -> entry)``; with duplicate ids the last entry wins, as in Pi.

    Entries may be any JSON value (Pi's parser keeps them): one without an id shares the
    ``undefined`` key, an array migrated from v1 is indexed by the id Pi gave it.
    """
    index: dict[Any, Entry] = {}
    for entry in entries:
        key = entry.get("id", UNDEFINED) if isinstance(entry, dict) else js_get(entry, "id")
        index[key if key.__class__ is str else _key(key)] = entry  # a string id is the usual case
    return index


def _parent_key(entry: Any) -> Any:
    """The index key of ``entry``'s parent, or ``None`` when Pi follows no parent (a falsy ``parentId``)."""
    parent_id = entry.get("parentId", UNDEFINED) if isinstance(entry, dict) else js_get(entry, "parentId")
    if parent_id.__class__ is str:
        return parent_id or None
    return _key(parent_id) if js_truthy(parent_id) else None


def build_path(entries: Sequence[Entry], leaf_id: Any = UNDEFINED, by_id: EntryIndex | None = None) -> list[Entry]:
    """Pi's ``buildSessionPath``: the leaf and its ancestors, root first.

    ``leaf_id=None`` (JSON null) gives an empty path; ``UNDEFINED``, a falsy id or an unknown id
    uses the last entry. A missing parent ends the path (orphans give a partial path); a parent
    cycle ends it at the first repeated entry.
    """
    if leaf_id is None:
        return []
    index = by_id if by_id is not None else build_index(entries)
    leaf = index.get(_key(leaf_id)) if js_truthy(leaf_id) else None
    if leaf is None:
        if not entries:
            return []
        leaf = entries[-1]
        if not js_truthy(leaf):
            return []  # Pi's `if (!leaf) return []`: a last entry 0, false or "" (Pi's parser keeps them)
    # Without a cycle a path holds each indexed entry at most once (and the leaf): walk that far
    # without remembering what was seen, and only a longer walk, a cycle, is redone with a set.
    limit = len(index) + 1
    path: list[Entry] = []
    get = index.get
    current: Entry | None = leaf
    while current is not None and len(path) <= limit:
        path.append(current)
        key = _parent_key(current)
        current = None if key is None else get(key)
    if current is not None:
        path = _path_stopping_at_a_cycle(leaf, index)
    path.reverse()
    return path


def _path_stopping_at_a_cycle(leaf: Entry, index: EntryIndex) -> list[Entry]:
    """The leaf and its ancestors (leaf first) up to the first entry seen twice."""
    path: list[Entry] = []
    seen: set[int] = set()
    current: Entry | None = leaf
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        path.append(current)
        key = _parent_key(current)
        current = None if key is None else index.get(key)
    return path


@dataclass(frozen=True)
class Label:
    label: str
    timestamp: Any


def apply_label(labels: dict[Any, Label], entry: Entry) -> None:
    """A ``label`` entry sets (non-empty ``label``) or clears the label of its ``targetId``."""
    target = _key(js_get(entry, "targetId"))
    label = js_get(entry, "label")
    if js_truthy(label):
        labels[target] = Label(label if isinstance(label, str) else str(label), js_get(entry, "timestamp"))
    else:
        labels.pop(target, None)


def collect_labels(entries: Sequence[Entry]) -> dict[Any, Label]:
    """Labels in force after all ``label`` entries, in file order (the latest per target wins)."""
    labels: dict[Any, Label] = {}
    for entry in entries:
        if js_get(entry, "type") == "label":
            apply_label(labels, entry)
    return labels


@dataclass
class _Undo:
    key: Any
    previous: Entry | None
    previous_leaf: Any
    parent_key: Any
    label_target: Any = UNDEFINED
    previous_label: Label | None = None


@dataclass
class SessionIndex:
    """Incrementally maintained lookups over the entries of one session (header excluded).

    ``add`` is O(1) and returns a token that ``undo`` uses to take the entry back out, so a
    provisional last line (no newline yet) can be shown now and replaced when it is complete.
    """

    by_id: dict[Any, Entry] = field(default_factory=dict)
    children: dict[Any, list[Entry]] = field(default_factory=dict)
    labels: dict[Any, Label] = field(default_factory=dict)
    leaf_id: Any = None  # Pi: the id of the last entry, None before any entry
    duplicate_ids: list[Any] = field(default_factory=list)

    def add(self, entry: Entry) -> _Undo:
        key = _key(js_get(entry, "id"))
        previous = self.by_id.get(key)
        parent_key = _key(js_get(entry, "parentId"))
        undo = _Undo(key, previous, self.leaf_id, parent_key)
        if previous is not None and key is not UNDEFINED:
            self.duplicate_ids.append(key)
        self.by_id[key] = entry
        self.children.setdefault(parent_key, []).append(entry)
        self.leaf_id = js_get(entry, "id")
        if js_get(entry, "type") == "label":
            undo.label_target = _key(js_get(entry, "targetId"))
            undo.previous_label = self.labels.get(undo.label_target)
            apply_label(self.labels, entry)
        return undo

    def undo(self, undo: _Undo) -> None:
        if undo.previous is None:
            self.by_id.pop(undo.key, None)
        else:
            self.by_id[undo.key] = undo.previous
            if self.duplicate_ids and self.duplicate_ids[-1] == undo.key:
                self.duplicate_ids.pop()
        siblings = self.children.get(undo.parent_key)
        if siblings:
            siblings.pop()
            if not siblings:
                del self.children[undo.parent_key]
        self.leaf_id = undo.previous_leaf
        if undo.label_target is not UNDEFINED:
            if undo.previous_label is None:
                self.labels.pop(undo.label_target, None)
            else:
                self.labels[undo.label_target] = undo.previous_label

    def get_children(self, parent_id: Any) -> list[Entry]:
        """Direct children of ``parent_id`` in file order (``None`` gives the roots by ``null``)."""
        return list(self.children.get(_key(parent_id), ()))


@dataclass(eq=False)
class TreeNode:
    """One entry in the tree view (identity equality: trees may be large and, when broken, cyclic)."""

    entry: Entry
    children: list[TreeNode] = field(default_factory=list)
    label: str | None = None
    label_timestamp: Any = None


@dataclass(frozen=True)
class TreeProblem:
    """An entry the tree had to repair: index into the entries, a code and a sentence."""

    index: int
    code: str
    message: str


@dataclass
class TreeView:
    roots: list[TreeNode]
    problems: list[TreeProblem]


def _compare_by_time(a: TreeNode, b: TreeNode) -> int:
    # new Date(a).getTime() - new Date(b).getTime(); NaN counts as "equal", as Array.sort does.
    left, right = js_date_ms(js_get(a.entry, "timestamp")), js_date_ms(js_get(b.entry, "timestamp"))
    if left is None or right is None:
        return 0
    return (left > right) - (left < right)


def build_tree(entries: Sequence[Entry], labels: Mapping[Any, Label] | None = None) -> TreeView:
    """Pi's ``getTree``: roots are ``parentId: null``, self-parented and orphaned entries.

    Children are sorted by timestamp (stable, oldest first). Entries caught in a longer parent
    cycle are unreachable in Pi's tree; here the first of each cycle becomes a root and is reported.
    """
    resolved = labels if labels is not None else collect_labels(entries)
    nodes: dict[Any, TreeNode] = {}
    for entry in entries:
        key = _key(js_get(entry, "id"))
        label = resolved.get(key)
        nodes[key] = TreeNode(entry, [], label.label if label else None, label.timestamp if label else None)
    roots: list[TreeNode] = []
    problems: list[TreeProblem] = []
    placed: dict[int, TreeNode] = {}
    for index, entry in enumerate(entries):
        key = _key(js_get(entry, "id"))
        node = nodes[key]
        if node.entry is not entry:
            problems.append(TreeProblem(index, "session/duplicate-id", f"entry id {key!r} is used again later"))
            continue
        placed[index] = node
        parent_id = js_get(entry, "parentId")
        if parent_id is None:
            roots.append(node)
        elif parent_id == js_get(entry, "id") and parent_id is not UNDEFINED:
            roots.append(node)
            problems.append(TreeProblem(index, "session/self-parent", f"entry {key!r} names itself as its parent"))
        else:
            parent = nodes.get(_key(parent_id))
            if parent is not None:
                parent.children.append(node)
            else:
                roots.append(node)
                problems.append(
                    TreeProblem(
                        index, "session/missing-parent", f"parent {parent_id!r} of entry {key!r} does not exist"
                    )
                )
    reachable = _reachable(roots)
    for index, node in placed.items():
        if id(node) in reachable:
            continue
        # Part of a parent cycle: detach it from its parent and show it as a root.
        parent = nodes.get(_key(js_get(node.entry, "parentId")))
        if parent is not None and node in parent.children:
            parent.children.remove(node)
        roots.append(node)
        reachable |= _reachable([node])
        problems.append(
            TreeProblem(index, "session/parent-cycle", f"entry {js_get(node.entry, 'id')!r} is part of a parent cycle")
        )
    stack = list(roots)
    while stack:
        node = stack.pop()
        node.children.sort(key=functools.cmp_to_key(_compare_by_time))
        stack.extend(node.children)
    return TreeView(roots, problems)


def _reachable(roots: list[TreeNode]) -> set[int]:
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.extend(node.children)
    return seen
