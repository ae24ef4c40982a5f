"""How much YAML pi-context reads: one row per limit, each turning into a positioned error, not a hang.

A SKILL.md is a file anybody can write, and the parser runs on every keystroke in the editor.
ruamel.yaml's pure-Python scanner costs about 1.5 s per megabyte (or per 20,000 nodes) and grows
quadratically with flow nesting on one line, so without limits a hostile or broken frontmatter
hangs the server. Each limit below stops the work at the node that crosses it, with an error
naming the limit; the values are far beyond real skills (a few dozen nodes, three or four
levels) and were chosen against what Pi 1.6.0 itself does with the same input (measured with
the oracle):

- nesting: Pi's recursive composer runs out of stack somewhere between about 750 and 1,700
  levels (it depends on the construct and on V8's JIT state), so Pi has no stable limit to
  match; 100 levels keep every recursive walk over the value far from Python's 1,000 frames.
- keys per mapping: Pi's duplicate-key check is quadratic (10,000 keys take Pi 4 s, 50,000 keys
  140 s); ours is linear, and 5,000 keys are no skill's.
- characters and nodes bound the total work (Pi has no such limits): about 1.5 s at most.
- the expanded size bounds the value once aliases are expanded: Pi shares aliased objects and
  only stops an alias used too often for its size (``yaml``'s resource-exhaustion rule, which
  keeps its own error); whoever serializes the value expands it. Pi's alias lookup is quadratic
  too (5,000 aliases take it 10 s, 20,000 aliases 88 s); ours is constant per alias.
- tabs between tokens: ruamel rejects ``key:<TAB>value``, which ``yaml`` accepts; the text is
  re-read once per such tab with the tab replaced, so their number is bounded by the text size.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limit:
    code: str  # the YamlError code: LIMIT_<name>
    value: int
    what: str  # what crossing it means, with {value}

    def text(self, value: int | None = None) -> str:
        shown = self.value if value is None else value
        return f"{self.what.format(value=f'{shown:,}')} (pi-context stops at this limit)"


CHARACTERS = Limit("LIMIT_CHARACTERS", 1_000_000, "More than {value} characters of YAML")
DEPTH = Limit("LIMIT_DEPTH", 100, "Collections nested more than {value} deep")
KEYS = Limit("LIMIT_KEYS", 5_000, "More than {value} keys in one mapping")
NODES = Limit("LIMIT_NODES", 20_000, "More than {value} nodes in the document")
EXPANDED = Limit("LIMIT_EXPANDED", 1_000_000, "More than {value} nodes once aliases are expanded")
# At most 64 re-reads, and at most 1,000,000 characters re-read in total.
TABS = Limit("LIMIT_TABS", 64, "More than {value} tabs between tokens for YAML of this size")
TAB_REREAD_CHARACTERS = 1_000_000

LIMITS: tuple[Limit, ...] = (CHARACTERS, DEPTH, KEYS, NODES, EXPANDED, TABS)


def tabs_allowed(text_length: int) -> int:
    """How many separating tabs the text may hold: 64, fewer when re-reading it 64 times is too much."""
    return max(1, min(TABS.value, TAB_REREAD_CHARACTERS // max(text_length, 1)))
