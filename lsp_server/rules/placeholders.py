"""Values that stand for a secret without being one: ``mypassword``, ``<token>``, ``${API_KEY}``, ``sk-ant-...``.

Documentation and skills are full of them (``qpdf --password=mypassword`` in a PDF skill,
``export OPENAI_API_KEY=your-api-key``), and a secrets rule that reports them gets turned off.
:func:`is_placeholder` says a value is one when any of these holds, each a rule about its shape:

1. **a reference or template**: it holds ``${``, ``{{``, ``<``/``>``, ``%NAME%``, ``$(``, is
   ``$NAME``, or starts with ``[`` or ``{`` or ends with ``]`` or ``}`` (``[YOUR_KEY]``,
   ``{apiKey}``; a key never holds these characters);
2. **an elision or mask**: ``...``, ``…``, four or more of ``*``, ``•``, ``#`` or ``.`` in a row, or
   six or more ``x``/``X`` in a row;
3. **too few different characters**: at most three distinct characters (``aaaa``, ``abab``,
   ``0000-0000``);
4. **a marker word** anywhere, in any case, separators ignored: one of :data:`MARKERS`
   (``example``, ``placeholder``, ``changeme``, ``your-api-key``, ...), six letters or more, so that
   a random key holds one by chance less than once in ten million (AWS's documented
   ``AKIAIOSFODNN7EXAMPLE`` is one);
5. **an environment variable's name** (the value names where the secret is): upper case with
   underscores, one of its parts a word of :data:`WORDS` (``TWILIO_API_KEY``, ``MY_LLM_API_KEY``);
6. **made of words**: split at non-alphanumeric characters and at lower-to-upper case changes,
   every letter run is a concatenation of :data:`WORDS` (``mypassword`` = my + password,
   ``YOUR_API_KEY``, ``changeme``, ``secret123``) or one letter repeated three times or more, and
   every digit run is at most four digits or a run of one digit or of consecutive digits
   (``123456``), or digits alone; when every letter is a hex digit, also one word of three letters
   or more standing alone and at least as many letters as digits (random hex breaks into ``a``, ``be``, ``db`` and
   short digit runs).

What a real key looks like never meets these: it is random over 16 or more characters from an
alphabet of 16 to 64 (tests/rules/test_placeholders.py draws thousands of them in each provider's
shape and none is skipped; a random hex string of 8 to 12 characters can break into words and
short digit runs, and is no key). The rules look at the key's own part (a provider's prefix such as
``sk-ant-api03-`` is not part of it) and are linear in its length (a value of more than
:data:`MAX_VALUE` characters is never a placeholder).
"""

from __future__ import annotations

import itertools
import re
from functools import lru_cache

MAX_VALUE = 512

# Words a placeholder is made of (lower case). Rule 6 splits a letter run into these.
WORDS: frozenset[str] = frozenset(
    (
        "my",
        "your",
        "our",
        "their",
        "his",
        "her",
        "the",
        "a",
        "an",
        "new",
        "real",
        "actual",
        "own",
        "some",
        "any",
        "this",
        "that",
        "here",
        "there",
        "goes",
        "go",
        "put",
        "insert",
        "enter",
        "paste",
        "replace",
        "change",
        "changeme",
        "with",
        "of",
        "for",
        "to",
        "in",
        "on",
        "from",
        "is",
        "at",
        "be",
        "it",
        "me",
        "us",
        "you",
        "use",
        "api",
        "key",
        "keys",
        "apikey",
        "token",
        "tokens",
        "secret",
        "secrets",
        "password",
        "passwords",
        "passwd",
        "pass",
        "pwd",
        "passphrase",
        "pin",
        "code",
        "access",
        "auth",
        "bearer",
        "client",
        "id",
        "private",
        "public",
        "user",
        "username",
        "name",
        "login",
        "admin",
        "root",
        "account",
        "service",
        "app",
        "application",
        "project",
        "org",
        "organization",
        "credential",
        "credentials",
        "cred",
        "creds",
        "session",
        "signing",
        "webhook",
        "hook",
        "bot",
        "example",
        "examples",
        "sample",
        "samples",
        "placeholder",
        "dummy",
        "fake",
        "mock",
        "test",
        "testing",
        "tests",
        "demo",
        "temp",
        "tmp",
        "default",
        "none",
        "null",
        "nil",
        "empty",
        "undefined",
        "unset",
        "value",
        "values",
        "string",
        "str",
        "text",
        "foo",
        "bar",
        "baz",
        "qux",
        "quux",
        "abc",
        "xyz",
        "todo",
        "fixme",
        "tbd",
        "redacted",
        "hidden",
        "removed",
        "omitted",
        "masked",
        "secure",
        "strong",
        "super",
        "long",
        "random",
        "generated",
        "dev",
        "prod",
        "production",
        "staging",
        "local",
        "db",
        "database",
        "host",
        "server",
        "pg",
        "postgres",
        "mysql",
        "redis",
        "sk",
        "pk",
        "rk",
        "ant",
        "openai",
        "anthropic",
        "claude",
        "gemini",
        "google",
        "github",
        "gitlab",
        "aws",
        "azure",
        "slack",
        "stripe",
        "groq",
        "mistral",
        "huggingface",
        "hf",
        "xai",
        "openrouter",
        "perplexity",
        "deepseek",
        "cohere",
        "together",
        "fireworks",
        "replicate",
        "cerebras",
        "live",
        "pi",
        "different",
        "other",
        "another",
        "invalid",
        "wrong",
        "bad",
        "old",
        "custom",
        "unused",
        "fixed",
        "base",
        "url",
        "endpoint",
        "gateway",
        "proxy",
        "ollama",
        "vllm",
        "lmstudio",
        "mcp",
        "llm",
        "model",
        "provider",
    )
)
# Words that make any value a placeholder wherever they appear (rule 4; separators '-', '_', '.' and spaces
# ignored): six letters or more, which a random key of 40 characters holds less than once in ten million.
MARKERS: tuple[str, ...] = (
    "example",
    "sample",
    "placeholder",
    "changeme",
    "changethis",
    "redacted",
    "replaceme",
    "replacethis",
    "yourkey",
    "yourapikey",
    "yourtoken",
    "yoursecret",
    "yourpassword",
    "insertkey",
    "inserttoken",
)

_REFERENCE = re.compile(r"\$\{|\{\{|[<>]|%[A-Za-z_][A-Za-z0-9_]*%|\$\(")
_WHOLE_REFERENCE = re.compile(r"\$[A-Za-z_][A-Za-z0-9_]*|[\[{].*|.*[\]}]")
_ELISION = re.compile(r"\.\.\.|…|[*•#.]{4,}|[xX]{6,}")
_SEPARATORS = re.compile(r"[-_. ]+")
_LETTERS = re.compile(r"[^A-Za-z]+")
_HEX_LETTERS = re.compile(r"[a-fA-F]*")
_PARTS = re.compile(r"[A-Za-z]+|[0-9]+")
_CASE_CHANGE = re.compile(r"(?<=[a-z])(?=[A-Z])")
_LONGEST_WORD = max(map(len, WORDS))
_VARIABLE_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def is_placeholder(value: str) -> bool:
    """Whether ``value`` (a key's own part, a password, a token) is a stand-in rather than a secret."""
    if not value or len(value) > MAX_VALUE:
        return not value
    if _REFERENCE.search(value) or _WHOLE_REFERENCE.fullmatch(value) or _ELISION.search(value):
        return True
    if len(set(value)) <= 3:
        return True
    if _VARIABLE_NAME.fullmatch(value) and any(part.lower() in WORDS for part in value.split("_")):
        return True
    squeezed = _SEPARATORS.sub("", value).lower()
    if any(marker in squeezed for marker in MARKERS):
        return True
    return _made_of_words(value)


def _made_of_words(value: str) -> bool:
    """Rule 6. When every letter is a hex digit the value may be random hex, which breaks into short pieces
    that happen to be words ('a', 'be', 'db') and short digit runs: then it also needs a piece of three
    letters or more and at least as many letters as digits."""
    letters = digits = 0
    long_piece = False
    for part in _PARTS.findall(value):
        if part.isdigit():
            if not _placeholder_digits(part):
                return False
            digits += len(part)
            continue
        letters += len(part)
        for piece in _CASE_CHANGE.split(part):
            lowered = piece.lower()
            if not _segments(lowered) and not (len(lowered) >= 3 and len(set(lowered)) == 1):
                return False
            long_piece = long_piece or (len(lowered) >= 3 and (lowered in WORDS or len(set(lowered)) == 1))
    if letters == 0:
        return digits > 0  # digits alone: short, repeated or consecutive (1234, 000000, 12345678)
    if _HEX_LETTERS.fullmatch(_LETTERS.sub("", value)) is None:
        return True
    return long_piece and letters >= digits


def _placeholder_digits(digits: str) -> bool:
    if len(digits) <= 4 or len(set(digits)) == 1:
        return True
    return all((int(b) - int(a)) % 10 == 1 for a, b in itertools.pairwise(digits))


@lru_cache(maxsize=1024)
def _segments(run: str) -> bool:
    """Whether ``run`` (lower case) is a concatenation of :data:`WORDS` (linear: words are short)."""
    reachable = [False] * (len(run) + 1)
    reachable[0] = True
    for end in range(1, len(run) + 1):
        for start in range(max(0, end - _LONGEST_WORD), end):
            if reachable[start] and run[start:end] in WORDS:
                reachable[end] = True
                break
    return reachable[-1]
