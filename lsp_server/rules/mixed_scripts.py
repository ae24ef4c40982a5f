"""Skill names that mix scripts with look-alike letters: ``pdf-tооls`` with two Cyrillic ``о``.

A skill's name is how the model and the user pick it (``/skill:pdf-tools``); a name that looks like
another skill's but is spelled with letters of another script is the homograph trick. Unicode's
confusables data (the ``confusable-homoglyphs`` package, which ships Unicode's ``confusables.txt``
and script tables) says which letters look alike. A name is reported when its letters come from
more than one script and a letter outside the name's main script (Latin when the name has a Latin
letter, else the script most of its letters are in) has a look-alike in the main script:
``日本-tools`` mixes scripts but imitates nothing and is not reported. The replacement is offered
only when each such letter has exactly one look-alike in the main script (ASCII look-alikes first).
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass

from confusable_homoglyphs import categories, confusables

_NEUTRAL = frozenset({"COMMON", "INHERITED"})


@dataclass(frozen=True)
class LookAlike:
    index: int  # code-point index in the name
    char: str
    script: str
    replacements: tuple[str, ...]  # look-alikes in the main script


@dataclass(frozen=True)
class MixedScripts:
    name: str
    main: str  # the main script (Unicode alias, e.g. LATIN)
    scripts: tuple[str, ...]  # every script of the name's letters, main first
    look_alikes: tuple[LookAlike, ...]

    @property
    def replaced(self) -> str | None:
        """The name with every look-alike replaced, when each has exactly one replacement."""
        if any(len(item.replacements) != 1 for item in self.look_alikes):
            return None
        chars = list(self.name)
        for item in self.look_alikes:
            chars[item.index] = item.replacements[0]
        return "".join(chars)

    def describe(self) -> str:
        parts: list[str] = []
        seen: set[str] = set()
        for item in self.look_alikes:
            if item.char in seen:
                continue
            seen.add(item.char)
            shown = " or ".join(f"'{r}'" for r in item.replacements)
            parts.append(f"'{item.char}' (U+{ord(item.char):04X} {unicodedata.name(item.char, '')}) looks like {shown}")
        return "; ".join(parts)


def _script(char: str) -> str:
    return str(categories.alias(char))


def find_mixed_scripts(name: str) -> MixedScripts | None:
    """The look-alike letters of ``name`` from another script than its main one, or None."""
    if name.isascii() or len(name) > 1024:
        return None
    counts = Counter(_script(c) for c in name if c.isalpha() and _script(c) not in _NEUTRAL)
    if len(counts) < 2:
        return None
    # Skill names are typed in ASCII (/skill:name): Latin is the main script whenever it is there.
    main = "LATIN" if "LATIN" in counts else max(counts, key=lambda script: counts[script])
    found = []
    for index, char in enumerate(name):
        script = _script(char)
        if not char.isalpha() or script in _NEUTRAL or script == main:
            continue
        matches = confusables.is_confusable(char, greedy=True, preferred_aliases=[main.lower()]) or []
        replacements = tuple(
            dict.fromkeys(
                glyph["c"]
                for match in matches
                for glyph in match["homoglyphs"]
                if len(glyph["c"]) == 1 and _script(glyph["c"]) == main
            )
        )
        ascii_only = tuple(r for r in replacements if r.isascii())
        replacements = ascii_only or replacements
        if replacements:
            found.append(LookAlike(index, char, script, replacements))
    if not found:
        return None
    scripts = (main, *sorted(s for s in counts if s != main))
    return MixedScripts(name, main, scripts, tuple(found))
