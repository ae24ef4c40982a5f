"""What every op module of the ``debug eval`` harness is written against: the request context, the error
answer, the op table, and the oracle's content generators.

Apart from :mod:`.harness`, which lists the op modules and answers requests with them: the op modules
import this, the harness imports them, and no module imports back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsp_server.vocabulary.pi_releases import CURRENT, PiRules

Json = Any
OpHandler = Callable[[dict[str, Any], "EvalContext"], Json]
Mask = Callable[[dict[str, Any], Json], Json]


class OpError(Exception):
    """An error answer (``ok: false``) whose message is part of the contract."""


@dataclass(frozen=True)
class OpSpec:
    handler: OpHandler
    # Applied to both our result and the oracle's before comparing: hides what we do not
    # reproduce on purpose (Pi's prose, a YAML parser's own error wording).
    mask: Mask | None = None


class OpTable:
    """The ops one module answers, each registered by its ``@OPS.op(name)`` decorator.

    Every ``ops_*`` module has one (``OPS``); :func:`lsp_server.conformance.harness.load_ops` merges
    them from its explicit list of modules, and refuses a name two modules answer.
    """

    def __init__(self) -> None:
        self.ops: dict[str, OpSpec] = {}

    def op(self, name: str, *, mask: Mask | None = None) -> Callable[[OpHandler], OpHandler]:
        def register(fn: OpHandler) -> OpHandler:
            if name in self.ops:
                raise RuntimeError(f"op {name!r} registered twice")
            self.ops[name] = OpSpec(fn, mask)
            return fn

        return register


@dataclass
class EvalContext:
    """Per-request state: the temp dir, the fixtures dir, deterministic clock and ids, and the Pi release
    whose rules answer (where releases differ: docs/pi-versions.md)."""

    tmp: Path | None
    fixtures: Path
    package_dir: str | None = None
    rules: PiRules = CURRENT
    clock_start_ms: int = 1735689600000  # 2025-01-01T00:00:00.000Z, the oracle's default
    clock_step_ms: int = 1000
    deterministic_ids: bool = True
    _clock_now: int = field(default=0, init=False)
    _id_counter: int = field(default=0, init=False)
    retained: list[Any] = field(default_factory=list, init=False)
    """What the op read, kept past its return (:meth:`retain`)."""

    def __post_init__(self) -> None:
        self._clock_now = self.clock_start_ms

    def retain(self, value: Any) -> None:
        """Keep ``value`` alive until the harness's caller has written the answer (``handle(retained=...)``):
        a large session's values then cost their freeing after the answer, not before it."""
        self.retained.append(value)

    def now_ms(self) -> int:
        """The oracle's fake clock: starts at ``clock.start`` and advances on every read."""
        value = self._clock_now
        self._clock_now += self.clock_step_ms
        return value

    def new_uuid(self) -> str:
        """The oracle's deterministic ``crypto.randomUUID``: 00000001-0000-4000-8000-000000000001, ..."""
        if not self.deterministic_ids:
            import uuid

            return str(uuid.uuid4())
        self._id_counter += 1
        hex8 = f"{self._id_counter:08x}"
        return f"{hex8}-0000-4000-8000-{hex8.rjust(12, '0')}"


def map_strings(value: Json, fn: Callable[[str], str]) -> Json:
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, list):
        return [map_strings(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: map_strings(v, fn) for k, v in value.items()}
    return value


def gen_content(spec: Json) -> str:
    """The oracle's content generators, so requests need not embed megabytes of text."""
    if isinstance(spec, str):
        return spec
    if not isinstance(spec, dict):
        raise OpError("content spec must be a string or an object")
    if isinstance(spec.get("repeat"), str):
        return str(spec["repeat"]) * int(spec.get("times", 1))
    if isinstance(spec.get("lines"), int):
        template = str(spec.get("template", "Line {n}"))
        start = int(spec.get("startAt", 1))
        pad = str(spec.get("padChar", "x")) * int(spec.get("padLength", 0))
        lines = [
            template.replace("{n}", str(start + i)).replace("{i}", str(i)).replace("{pad}", pad)
            for i in range(spec["lines"])
        ]
        return str(spec.get("joiner", "\n")).join(lines) + ("\n" if spec.get("trailingNewline") else "")
    if isinstance(spec.get("concat"), list):
        return "".join(gen_content(part) for part in spec["concat"])
    raise OpError("unknown content spec")
