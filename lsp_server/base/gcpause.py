"""Python's cycle collector paused around work that builds many objects without reference cycles."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector off while lines are parsed, on again after (if it was on).

    Parsed JSON holds no reference cycles, so the collector finds nothing to free in it; but a big
    session creates hundreds of thousands of dicts, and the collector would walk all of them again
    and again as they pile up: a third of the parse time of a 100 MB session (and as much again in
    the first collections after the parse, which the move to the oldest generation avoids). The
    same holds for a skill walk's frontmatter nodes and values (about 20,000 objects per 1,000
    skills), and for usage rows.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # What was parsed is long-lived: straight into the oldest generation (a list splice, no walk),
        # or the first young collections after this would walk every new dict again.
        gc.freeze()
        gc.unfreeze()
        if was_enabled:
            gc.enable()
