"""A breakdown of the context window into categories that add up, and how it is reconciled.

The gauge must never show parts that do not make the whole. Every breakdown therefore satisfies
``sum(category tokens) == window + overflow``: the used categories, then the part of the reply
reserve still available, then free space; when the request is larger than the window, the
categories exceed it by exactly ``overflow`` (reserve and free are 0 then).

*Used* comes in two flavours. Without a usable provider usage, every used token is an estimate
of a known piece, and the categories are those estimates. With one (Pi trusts the last
assistant's reported usage and estimates only the messages after it), the provider's number
``U`` covers the messages up to that response, and our per-category estimates ``S`` of the same
messages never match it exactly. The difference is made visible, never spread silently:

* ``U >= S``: the estimates stay as they are and the rest is one explicit category,
  ``other.unattributed`` ("not itemized": tool schemas the session does not store, message
  framing, the estimator's error);
* ``U < S``: the estimator over-counted; the covered messages are scaled down in proportion
  (largest remainder, integers) so that everything adds up to ``U``, and a note says by how much.
  The system prompt keeps its count: it is the same text in every request of the session, and a
  number that moved with each reply's usage (819, 1,582, 1,097, ... for one stored prompt) would say
  the prompt changed when it did not. Only when ``U`` is below the system prompt's own estimate is
  everything scaled.

Either way :class:`Reconciliation` carries ``U`` and ``S`` so a client can show both.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from lsp_server.budget.parts import MESSAGE_CATEGORIES, apportion, category_label
from lsp_server.tokens.counter import CounterChoice, TokenEstimator

Group = Literal["system", "messages", "other", "reserve", "free"]
EstimatorName = TokenEstimator
ReconcileMethod = Literal["exact", "unattributed", "scaled"]

UNATTRIBUTED: Final = "other.unattributed"
RESERVE: Final = "reserve"
FREE: Final = "free"
UNATTRIBUTED_LABEL: Final = "Not itemized (provider usage above the estimates)"


@dataclass(frozen=True)
class Category:
    id: str
    group: Group
    label: str
    tokens: int
    count: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "group": self.group, "label": self.label, "tokens": self.tokens}
        if self.count is not None:
            out["count"] = self.count
        return out


@dataclass(frozen=True)
class EstimatorInfo:
    """Which counter made a breakdown: Pi's chars/4, the weighted estimate, or a real tokenizer."""

    name: EstimatorName
    family: str | None
    exact: bool
    label: str
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "family": self.family, "exact": self.exact, "label": self.label}
        if self.note:
            out["note"] = self.note
        return out


PI_ESTIMATOR: Final = EstimatorInfo("pi", None, False, "Pi's estimate (chars/4)")


def estimator_info(choice: CounterChoice) -> EstimatorInfo:
    """The label of a counter chosen by :func:`lsp_server.tokens.counter.choose_counter`."""
    counter = choice.counter
    kind, _, family = counter.name.partition(":")
    if kind == "pi":
        return EstimatorInfo("pi", None, False, PI_ESTIMATOR.label, choice.note)
    if kind == "exact":
        return EstimatorInfo("exact", family or None, True, f"exact count ({family} tokenizer)", choice.note)
    return EstimatorInfo("weighted", family or None, counter.exact, f"weighted estimate ({family} family)", choice.note)


@dataclass(frozen=True)
class Reconciliation:
    """How the covered categories were matched to the provider's usage."""

    usage_tokens: int  # U: the provider's count for the request up to the last usable response
    estimated_tokens: int  # S: our estimate of the same messages
    method: ReconcileMethod

    def to_json(self) -> dict[str, Any]:
        return {"usageTokens": self.usage_tokens, "estimatedTokens": self.estimated_tokens, "method": self.method}


@dataclass(frozen=True)
class BudgetBreakdown:
    estimator: EstimatorInfo
    categories: tuple[Category, ...]
    used: int
    reserve: int  # the part of the reply reserve still inside the window
    free: int
    overflow: int
    reconciliation: Reconciliation | None = None
    notes: tuple[str, ...] = ()

    @property
    def total(self) -> int:
        return sum(category.tokens for category in self.categories)

    def category(self, category_id: str) -> Category | None:
        return next((c for c in self.categories if c.id == category_id), None)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "estimator": self.estimator.to_json(),
            "categories": [category.to_json() for category in self.categories],
            "used": self.used,
            "reserve": self.reserve,
            "free": self.free,
            "overflow": self.overflow,
            "notes": list(self.notes),
        }
        if self.reconciliation is not None:
            out["reconciliation"] = self.reconciliation.to_json()
        return out


@dataclass
class Tally:
    """Tokens and item counts per category id, in first-seen order."""

    rows: dict[str, list[Any]] = field(default_factory=dict)  # id -> [tokens, count or None]

    def add(self, category: str, tokens: int, count: int | None = 1) -> None:
        row = self.rows.setdefault(category, [0, None])
        row[0] += tokens
        if count is not None:
            row[1] = (row[1] or 0) + count

    def total(self) -> int:
        return sum(int(row[0]) for row in self.rows.values())

    def merge(self, other: Tally) -> None:
        for category, (tokens, count) in other.rows.items():
            self.add(category, tokens, count)

    def scaled_to(self, total: int) -> Tally:
        """The same categories with tokens apportioned to add up to ``total``."""
        ids = list(self.rows)
        shares = apportion(total, [int(self.rows[i][0]) for i in ids])
        return Tally({i: [share, self.rows[i][1]] for i, share in zip(ids, shares, strict=True)})


def reconcile(covered: Tally, usage_tokens: int) -> tuple[Tally, Reconciliation, str | None]:
    """Match the covered categories to the provider's usage (see the module docstring)."""
    estimated = covered.total()
    if usage_tokens == estimated:
        return covered, Reconciliation(usage_tokens, estimated, "exact"), None
    if usage_tokens > estimated:
        out = Tally({k: list(v) for k, v in covered.rows.items()})
        out.add(UNATTRIBUTED, usage_tokens - estimated, None)
        note = (
            f"The provider counted {usage_tokens:,} tokens for the request up to its last response; the itemized "
            f"estimates of the same content add up to {estimated:,}. The difference, {usage_tokens - estimated:,}, "
            "is shown as not itemized."
        )
        return out, Reconciliation(usage_tokens, estimated, "unattributed"), note
    system = Tally({k: list(v) for k, v in covered.rows.items() if _group(k) == "system"})
    rest = Tally({k: list(v) for k, v in covered.rows.items() if _group(k) != "system"})
    if system.rows and rest.rows and usage_tokens >= system.total():
        left = usage_tokens - system.total()
        note = (
            f"The provider counted {usage_tokens:,} tokens for the request up to its last response, fewer than the "
            f"{estimated:,} estimated for the same content; the system prompt keeps its {system.total():,} and the "
            f"messages are scaled by {left / rest.total():.3f} to match it."
        )
        out = Tally({k: list(v) for k, v in covered.rows.items()})
        for category, row in rest.scaled_to(left).rows.items():
            out.rows[category] = row
        return out, Reconciliation(usage_tokens, estimated, "scaled"), note
    note = (
        f"The provider counted {usage_tokens:,} tokens for the request up to its last response, fewer than the "
        f"{estimated:,} estimated for the same content; those categories are scaled by "
        f"{usage_tokens / estimated:.3f} to match it."
    )
    return covered.scaled_to(usage_tokens), Reconciliation(usage_tokens, estimated, "scaled"), note


def _group(category: str) -> Group:
    prefix = category.partition(".")[0]
    if prefix == "system":
        return "system"
    if prefix == "messages":
        return "messages"
    return "other"


def _order(rows: dict[str, list[Any]]) -> list[str]:
    system = [c for c in rows if _group(c) == "system"]
    messages: list[str] = [c for c in MESSAGE_CATEGORIES if c in rows]
    messages += [c for c in rows if _group(c) == "messages" and c not in messages]
    other = [c for c in rows if _group(c) == "other"]
    return system + messages + other


def finish(
    tally: Tally,
    *,
    estimator: EstimatorInfo,
    window: int,
    reserve_tokens: int,
    reconciliation: Reconciliation | None = None,
    notes: Iterable[str | None] = (),
) -> BudgetBreakdown:
    """The categories in display order, plus the available reserve and free space.

    ``reserve`` shown = ``min(reserveTokens, window - used)`` (never negative); ``free`` =
    ``max(0, window - used - reserveTokens)``; ``overflow`` = ``max(0, used - window)``. So the
    categories add up to ``window + overflow`` in every case.
    """
    categories: list[Category] = []
    for category in _order(tally.rows):
        tokens, count = tally.rows[category]
        if tokens == 0 and not count:
            continue
        label = UNATTRIBUTED_LABEL if category == UNATTRIBUTED else category_label(category)
        categories.append(Category(category, _group(category), label, int(tokens), count))
    used = sum(category.tokens for category in categories)
    reserve = max(0, min(reserve_tokens, window - used))
    free = max(0, window - used - reserve_tokens)
    overflow = max(0, used - window)
    categories.append(Category(RESERVE, "reserve", f"Reserved for the reply ({reserve_tokens:,})", reserve))
    categories.append(Category(FREE, "free", "Free", free))
    return BudgetBreakdown(
        estimator=estimator,
        categories=tuple(categories),
        used=used,
        reserve=reserve,
        free=free,
        overflow=overflow,
        reconciliation=reconciliation,
        notes=tuple(note for note in notes if note),
    )
