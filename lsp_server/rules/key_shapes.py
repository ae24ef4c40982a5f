"""The shapes of provider keys detect-secrets does not know: one row per kind, a prefix and a body.

detect-secrets 1.5 knows AWS, GitHub classic tokens, GitLab, Slack, Stripe, OpenAI's legacy
``T3BlbkFJ`` keys, npm, PyPI, JWTs, private keys and a few more (``secrets.PLUGINS``); it does not
know the keys a Pi user holds most: Anthropic's, Google's, OpenAI's project keys, and the other
model providers Pi talks to. A row here is a documented prefix and the alphabet and minimum length
of what follows it (:class:`KeyShape`); the body after the prefix is what the placeholder test
reads (:mod:`lsp_server.rules.placeholders`), so ``sk-ant-api03-your-key-here`` is not reported.

Minimum lengths are below the real ones (an Anthropic key has 95 characters after ``sk-ant-api03-``)
so that a key cut short in a paste is still found; the prefixes are specific enough that this does
not report prose. A key is matched where it starts after a character that cannot be part of it,
and as far as its alphabet goes.

Generic rows (``generic=True``, OpenAI-style ``sk-`` keys of several providers) run after
detect-secrets' own plugins, so that a key one of them names keeps its name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

B64URL = "A-Za-z0-9_-"
ALNUM = "A-Za-z0-9"
HEX = "0-9a-f"


@dataclass(frozen=True)
class KeyShape:
    """One kind of key: ``prefix`` (a regular expression; ``written`` is how real keys write it), then
    ``min_length`` or more characters of ``alphabet`` (``length``: how many real keys have)."""

    kind: str  # the name a finding shows, never any part of the key
    written: str  # the prefix as real keys write it ("sk-ant-api03-")
    alphabet: str  # a character class body: "A-Za-z0-9_-"
    min_length: int
    length: int  # the body's length in real keys
    prefix: str = ""  # the prefix's pattern when keys vary in it (version numbers); else ``written``
    exact: bool = False  # every real key has ``length`` characters: a longer run is not this key
    generic: bool = False

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        prefix = self.prefix or re.escape(self.written)
        counts = f"{{{self.length}}}" if self.exact else f"{{{self.min_length},}}"
        return re.compile(rf"(?<![A-Za-z0-9])({prefix})([{self.alphabet}]{counts})(?![{self.alphabet}])")

    @cached_property
    def characters(self) -> str:
        """Every character of ``alphabet`` (its ``a-z`` ranges expanded)."""
        out: list[str] = []
        body = self.alphabet
        index = 0
        while index < len(body):
            if index + 2 < len(body) and body[index + 1] == "-":
                out.extend(chr(c) for c in range(ord(body[index]), ord(body[index + 2]) + 1))
                index += 3
            else:
                out.append(body[index])
                index += 1
        return "".join(out)


KEY_SHAPES: tuple[KeyShape, ...] = (
    KeyShape("Anthropic API Key", "sk-ant-api03-", B64URL, 20, 95, r"sk-ant-api\d\d-"),
    KeyShape("Anthropic Admin Key", "sk-ant-admin01-", B64URL, 20, 95, r"sk-ant-admin\d\d-"),
    KeyShape("Anthropic OAuth Token", "sk-ant-oat01-", B64URL, 20, 95, r"sk-ant-o(?:at|rt)\d\d-"),
    KeyShape("OpenAI API Key", "sk-proj-", B64URL, 20, 156, r"sk-(?:proj|svcacct|admin)-"),
    KeyShape("OpenRouter API Key", "sk-or-v1-", HEX, 32, 64, r"sk-or-v\d-"),
    KeyShape("Google API Key", "AIza", B64URL, 35, 35, exact=True),
    KeyShape("Google OAuth Client Secret", "GOCSPX-", B64URL, 24, 28),
    KeyShape("Google OAuth Access Token", "ya29.", B64URL, 20, 120),
    KeyShape("Groq API Key", "gsk_", ALNUM, 40, 52),
    KeyShape("xAI API Key", "xai-", ALNUM, 60, 80),
    KeyShape("Hugging Face Token", "hf_", ALNUM, 30, 34),
    KeyShape("Hugging Face Organization Token", "api_org_", ALNUM, 30, 34),
    KeyShape("Perplexity API Key", "pplx-", ALNUM, 40, 48),
    KeyShape("Replicate API Token", "r8_", ALNUM, 30, 37),
    KeyShape("Fireworks API Key", "fw_", ALNUM, 20, 24),
    KeyShape("Together AI API Key", "tgp_v1_", B64URL, 30, 43),
    KeyShape("Cerebras API Key", "csk-", ALNUM, 40, 48),
    KeyShape("Tavily API Key", "tvly-", ALNUM, 30, 32, r"tvly-(?:dev-|prod-)?"),
    KeyShape("LangSmith API Key", "lsv2_pt_", HEX + "_", 40, 43, r"lsv2_(?:pt|sk)_"),
    KeyShape("ElevenLabs API Key", "sk_", HEX, 48, 48, exact=True),
    KeyShape("Amazon Bedrock API Key", "ABSK", ALNUM + "+/=", 60, 100),
    KeyShape("GitHub Fine-Grained Token", "github_pat_", ALNUM + "_", 60, 82),
    KeyShape("Linear API Key", "lin_api_", ALNUM, 40, 40),
    KeyShape("Notion Token", "ntn_", ALNUM, 40, 46),
    KeyShape("Supabase Token", "sbp_", HEX, 40, 40),
    KeyShape("OpenAI-Style API Key", "sk-", ALNUM, 32, 48, generic=True),  # DeepSeek, Moonshot, DashScope, ...
)

# Every prefix at once, where a key may start: what makes a line worth the per-row patterns (and what a hover
# must not echo).
ANY_PREFIX = re.compile(
    "(?<![A-Za-z0-9])(?:" + "|".join(f"(?:{shape.prefix or re.escape(shape.written)})" for shape in KEY_SHAPES) + ")"
)
# The prefixes of tokens detect-secrets knows, so that 'xoxb-your-bot-token-here' is judged by its own part.
KNOWN_PREFIXES: tuple[str, ...] = (
    r"gh[pousr]_",
    r"github_pat_",
    r"glpat-",
    r"xox[abposr]-",
    r"xapp-",
    r"[sr]k_(?:live|test)_",
    r"pk_(?:live|test)_",
    r"npm_",
    r"pypi-",
    r"AKIA",
)
_LEADING_PREFIX = re.compile(
    "|".join([*(f"(?:{shape.prefix or re.escape(shape.written)})" for shape in KEY_SHAPES), *KNOWN_PREFIXES])
)


def own_part(value: str) -> str:
    """``value`` without a provider's prefix at its start (a row's, or one of :data:`KNOWN_PREFIXES`):
    what the placeholder test reads."""
    match = _LEADING_PREFIX.match(value)
    return value[match.end() :] if match else value


@dataclass(frozen=True)
class KeyMatch:
    """A key of ``shape`` at [start, end) of the searched text; ``body`` is what follows the prefix."""

    shape: KeyShape
    start: int
    end: int
    body: str


def find_keys(text: str, *, generic: bool | None = None) -> list[KeyMatch]:
    """The keys in ``text`` (rows with ``generic`` equal to the argument; all rows when ``None``), by position."""
    if ANY_PREFIX.search(text) is None:
        return []
    found: list[KeyMatch] = []
    for shape in KEY_SHAPES:
        if generic is not None and shape.generic != generic:
            continue
        for match in shape.pattern.finditer(text):
            if not any(k.start < match.end() and match.start() < k.end for k in found):
                found.append(KeyMatch(shape, match.start(), match.end(), match.group(2)))
    return sorted(found, key=lambda k: k.start)
