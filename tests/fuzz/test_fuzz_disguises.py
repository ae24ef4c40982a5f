"""Generated keys and prompt tags in every disguise must be found; generated placeholders must not be.

Issue 18's red team hid keys (base64, in URLs, behind a zero-width space, in fullwidth letters, as
an assignment on a prose line) and tags (entities, fullwidth brackets, a soft hyphen, a line break
inside) from the rules. These properties generate such texts around generated Markdown, in a
context file, a skill's body and SYSTEM.md, and hold the rules to three things: every generated
key is reported and no 8 characters of it (or of its disguised form) appear in any finding; every
generated placeholder (tests/support/secret_disguises.py, built from the placeholder rules' own
shapes) is not; every disguised tag is reported at its exact range. Nothing may raise.
"""

from __future__ import annotations

import random
import re

from hypothesis import given
from hypothesis import strategies as st

from lsp_server.base.findings import Finding, Position
from lsp_server.rules.context_rules import check_context_text
from lsp_server.rules.forged_tags import PROMPT_TAGS
from lsp_server.rules.key_shapes import KEY_SHAPES
from lsp_server.rules.skill_rules import check_skill_text
from lsp_server.rules.system_prompt_rules import check_system_prompt_text
from tests.fuzz._tier import cases, timed
from tests.fuzz.strategies import markdown_bodies
from tests.support.secret_disguises import DISGUISES, PLACEHOLDER_PLACES, PLACEHOLDER_VALUES, real_looking_key

KINDS = ("context", "skill", "system")


def _check(kind: str, body: str) -> tuple[list[Finding], int]:
    """The findings of ``body`` placed in a file of ``kind``, and the line the body starts on."""
    if kind == "skill":
        head = "---\nname: s\ndescription: d\n---\n"
        return list(check_skill_text("/fuzz/.pi/skills/s/SKILL.md", head + body).findings), 4
    if kind == "system":
        return check_system_prompt_text("/fuzz/.pi/SYSTEM.md", body), 0
    return check_context_text("/fuzz/AGENTS.md", body), 0


def _breaks(text: str) -> int:
    """Line breaks as the rules count them (``\r\n``, ``\r`` and ``\n``)."""
    return len(_LINE_BREAK.findall(text))


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _pieces(text: str) -> list[str]:
    return [text[i : i + 8] for i in range(len(text) - 7)]


@given(
    shape=st.sampled_from(KEY_SHAPES),
    seed=st.integers(0, 2**32),
    disguise=st.sampled_from(sorted(DISGUISES)),
    before=markdown_bodies(),
    after=markdown_bodies(),
    kind=st.sampled_from(KINDS),
)
@cases(default=40, fuzz=8_000)
def test_a_generated_key_in_any_disguise_is_found_and_never_echoed(
    shape: object, seed: int, disguise: str, before: str, after: str, kind: str
) -> None:
    key = real_looking_key(shape, random.Random(seed))  # type: ignore[arg-type]
    written = DISGUISES[disguise](key)
    body = f"{before}\n\n{written}\n\n{after}\n"
    with timed("disguises: a key", written[:120]):
        findings, first = _check(kind, body)
    line = first + _breaks(body[: body.index(written)])
    lines = range(line, line + written.count("\n") + 1)
    secrets = [f for f in findings if f.code == "prompt/secret"]
    assert any(f.range.start.line in lines for f in secrets), (disguise, written, [f.range for f in secrets])
    shown = " ".join(f"{f.message} {f.data}" for f in findings)
    for piece in _pieces(key):
        assert piece not in shown, piece


_WORDS = ("my", "your", "api", "key", "secret", "token", "password", "here", "test", "example", "dummy", "change")
_IDENTIFIER = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,20}", fullmatch=True)


@st.composite
def placeholders(draw: st.DrawFn) -> str:
    """A stand-in for a secret, built from the shapes the placeholder rules name."""
    choice = draw(st.integers(0, 5))
    if choice == 0:
        return draw(st.sampled_from(PLACEHOLDER_VALUES))
    if choice == 1:
        name = draw(_IDENTIFIER)
        return draw(st.sampled_from(["${%s}", "$%s", "{{ %s }}", "<%s>", "%%%s%%", "[%s]"])) % name
    if choice == 2:
        mask = draw(st.sampled_from(["x", "X", "*", "•", "#"])) * draw(st.integers(6, 60))
        return draw(st.sampled_from(["", "sk-ant-api03-", "AIza", "ghp_", "sk-proj-", "hf_"])) + mask
    if choice == 3:
        words = draw(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=5))
        separator = draw(st.sampled_from(["", "-", "_", "."]))
        digits = draw(st.sampled_from(["", "1", "123", "2024", "123456"]))
        text = separator.join(words) + digits
        return text.upper() if draw(st.booleans()) else text
    if choice == 4:
        return draw(st.sampled_from(["sk-ant-api03-", "AIza", "sk-proj-", ""])) + draw(st.sampled_from(["...", "…"]))
    return draw(st.sampled_from("abcxyz0*")) * draw(st.integers(1, 80))


@given(
    value=placeholders(),
    place=st.sampled_from(sorted(PLACEHOLDER_PLACES)),
    before=markdown_bodies(),
    kind=st.sampled_from(KINDS),
)
@cases(default=40, fuzz=8_000)
def test_a_generated_placeholder_is_not_a_secret(value: str, place: str, before: str, kind: str) -> None:
    written = PLACEHOLDER_PLACES[place](value)
    with timed("disguises: a placeholder", written[:120]):
        body = f"{before}\n\n{written}\n"
        findings, first = _check(kind, body)
    line = first + _breaks(body[: body.rindex(written)])
    lines = range(line, line + written.count("\n") + 1)
    assert [f for f in findings if f.code == "prompt/secret" and f.range.start.line in lines] == [], (written,)


_ENTITIES_OPEN = ("&lt;", "&LT;", "&#60;", "&#060;", "&#x3c;", "&#X3C;", "&lt", "＜", "﹤")
_ENTITIES_CLOSE = ("&gt;", "&GT;", "&#62;", "&#x3e;", "&gt", "＞", "﹥")


@st.composite
def disguised_tags(draw: st.DrawFn) -> tuple[str, str]:
    """A prompt tag written in a disguise, and its name."""
    name = draw(st.sampled_from(sorted(PROMPT_TAGS)))
    spelled = name
    if draw(st.booleans()):
        at = draw(st.integers(1, len(name) - 1))
        hidden = draw(st.sampled_from(["\u00ad", "\u200b", "\u2060", "\ufe0f", "&shy;", "\U000e0041"]))
        spelled = name[:at] + hidden + name[at:]
    if draw(st.booleans()):
        spelled = "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalpha() else c for c in spelled)
    opening = draw(st.sampled_from(("<", *_ENTITIES_OPEN)))
    closing = draw(st.sampled_from((">", *_ENTITIES_CLOSE)))
    slash = draw(st.sampled_from(["", "/", "&sol;", "／"]))
    inner = draw(st.sampled_from(["", " ", "\n", "  ", "\t"]))
    return f"{opening}{slash}{spelled}{inner}{closing}", name


@given(tag=disguised_tags(), before=markdown_bodies(), kind=st.sampled_from(KINDS))
@cases(default=40, fuzz=8_000)
def test_a_generated_disguised_tag_is_found_at_its_place(tag: tuple[str, str], before: str, kind: str) -> None:
    written, _name = tag
    body = f"{before}\n\nText {written} more\n"
    with timed("disguises: a tag", written):
        findings, first = _check(kind, body)
    line = first + _breaks(body[: body.index(f"Text {written}")])
    tags = [f for f in findings if f.code == "prompt/forged-tag" and f.range.start == Position(line, 5)]
    assert tags, (written, [(f.code, f.range) for f in findings])
    end_line = line + written.count("\n")
    end_column = len(written.rsplit("\n", 1)[-1]) + (5 if "\n" not in written else 0)
    assert (tags[0].range.end.line, tags[0].range.end.column) == (end_line, end_column)
