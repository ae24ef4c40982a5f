"""Secrets in text that goes into the prompt, in every disguise a model reads through, never echoed.

A key in AGENTS.md, SYSTEM.md or a skill is sent to the model provider with every request (a
skill's body when the skill is used). Each line is looked at by, in this order (the first to claim
a place names it):

1. **provider key shapes** detect-secrets does not know (:mod:`lsp_server.rules.key_shapes`:
   Anthropic, Google, OpenAI project keys, OpenRouter, Groq, xAI, Hugging Face, Perplexity, ...),
   anywhere on the line (prose, unlabeled fences, YAML values, URLs), on the line as the model
   reads it (:mod:`lsp_server.rules.model_reading`: a zero-width space or fullwidth letters inside
   a key do not hide it), inside a percent-encoded URL, and inside a **base64** blob (alone or as a
   Basic ``user:key`` value) that decodes to one;
2. Yelp's **detect-secrets** plugins (AWS, GitHub, GitLab, Slack, Stripe, OpenAI, JWT, private
   keys, basic-auth URLs, keyword assignments, high-entropy strings, ...) with their false-positive
   filters (sequential strings, UUIDs, ``${TEMPLATES}``, ``$VARIABLES``, indirect references,
   ``id`` fields) and the ``pragma: allowlist secret`` comment honoured as detect-secrets does.
   ``IPPublicDetector`` is left out (an address is not a secret); verification against the
   providers is never run. Its keyword plugin reads assignments by file type, so each line is read
   as the language it is written in: a skill's frontmatter as YAML, a fenced block by its info
   string (``bash``/``sh``/``env``/``ini`` as INI, ``yaml``, ``python``, ``js``, ...), a line shaped
   like a shell assignment (``NAME=value``, ``export NAME=value``) as INI wherever it is, other
   prose as text (quotes required);
3. the generic ``sk-`` key shape, **environment-style assignments** whose name says secret
   (``GITHUB_TOKEN=…``, ``STRIPE_SECRET: …``; detect-secrets' keyword list has no ``TOKEN``) and
   **URL query parameters** named like a key (``?api_key=…``, ``&token=…``, ``sig=…``).

Every value goes through :func:`lsp_server.rules.placeholders.is_placeholder` first: ``mypassword``,
``<token>``, ``${VAR}``, ``sk-ant-api03-...`` and their kind are documentation, not secrets.

Bounded work: detect-secrets gets a line only when it could hold a secret (a keyword of the keyword
plugin, a private-key header, a URL with credentials, a run of 16 or more token characters with a
digit, an Artifactory-like token, a quoted token, a provider prefix: :func:`could_hold_secret`, a
superset of what the plugins match); the own scans are regular expressions over the line. At most
the first :data:`MAX_LINE_CHARS` characters of a line, :data:`MAX_SCAN_CHARS` characters and
:data:`MAX_FINDINGS` secrets per file, and base64 blobs of at most :data:`MAX_BLOB_CHARS` characters.
detect-secrets is imported on the first line that passes the gate (it takes half a second or more,
mostly for ``requests``), so workspaces without candidates never pay for it. What a line holds is
remembered by its text, its type and the line above it (:data:`CACHED_LINES` lines of at most
:data:`CACHED_LINE_CHARS` characters), so a check on every keystroke rescans only the lines an edit changed.

A hit carries its kind ("AWS Access Key", "Anthropic API Key (base64-encoded)") and its columns;
the secret's value never leaves this module (not in the finding's message or data).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import unquote

from lsp_server.rules.key_shapes import ANY_PREFIX, find_keys, own_part
from lsp_server.rules.model_reading import read_line, read_text, reads_as_written
from lsp_server.rules.placeholders import is_placeholder

MAX_LINE_CHARS = 4096
MAX_SCAN_CHARS = 1024 * 1024
MAX_FINDINGS = 50
MAX_BLOB_CHARS = 4096

# detect-secrets' plugins, by module and class (every plugin it ships except IPPublicDetector).
PLUGINS: tuple[tuple[str, str], ...] = (
    ("aws", "AWSKeyDetector"),  # the specific kinds first: one hit per place keeps the first kind
    ("artifactory", "ArtifactoryDetector"),
    ("azure_storage_key", "AzureStorageKeyDetector"),
    ("basic_auth", "BasicAuthDetector"),
    ("cloudant", "CloudantDetector"),
    ("discord", "DiscordBotTokenDetector"),
    ("github_token", "GitHubTokenDetector"),
    ("gitlab_token", "GitLabTokenDetector"),
    ("ibm_cloud_iam", "IbmCloudIamDetector"),
    ("ibm_cos_hmac", "IbmCosHmacDetector"),
    ("jwt", "JwtTokenDetector"),
    ("mailchimp", "MailchimpDetector"),
    ("npm", "NpmDetector"),
    ("openai", "OpenAIDetector"),
    ("private_key", "PrivateKeyDetector"),
    ("pypi_token", "PypiTokenDetector"),
    ("sendgrid", "SendGridDetector"),
    ("slack", "SlackDetector"),
    ("softlayer", "SoftlayerDetector"),
    ("square_oauth", "SquareOAuthDetector"),
    ("stripe", "StripeDetector"),
    ("telegram_token", "TelegramBotTokenDetector"),
    ("twilio", "TwilioKeyDetector"),
    ("keyword", "KeywordDetector"),  # then the generic ones
    ("high_entropy_strings", "Base64HighEntropyString"),
    ("high_entropy_strings", "HexHighEntropyString"),
)

# Fenced-block info strings -> the file name detect-secrets' keyword plugin reads the type from.
FENCE_LANGUAGES: dict[str, str] = {
    **dict.fromkeys(("bash", "sh", "shell", "zsh", "console", "env", "dotenv", "ini", "cfg", "conf"), "block.ini"),
    **dict.fromkeys(("yaml", "yml"), "block.yaml"),
    "toml": "block.toml",
    "properties": "block.properties",
    **dict.fromkeys(("python", "py"), "block.py"),
    **dict.fromkeys(("js", "javascript", "ts", "typescript", "jsx", "tsx"), "block.js"),
    "go": "block.go",
    "java": "block.java",
}
PROSE = "text.md"
YAML = "frontmatter.yaml"
ASSIGNMENT = "line.ini"  # a prose line shaped like a shell assignment

# The gate: every plugin needs one of these to fire. Tokens of 16+ characters cover the fixed-format
# keys (AWS 20, GitLab 20+, GitHub 40, Stripe, Slack, JWT, ...) and base64 entropy (4.5 bits needs 23+);
# shorter ones matter only for Artifactory's AP/AKC tokens (11+) and quoted hex strings (entropy 3.0).
_TOKEN = re.compile(r"[A-Za-z0-9+/=_.-]{16,}")
_HINT_WORDS = ("key", "pass", "pwd", "secret", "contrase", "authtoken", "://")  # every _HINT has one
_SHORT_TOKEN = re.compile(r"(?:AP[0-9A-F]|AKC)[a-zA-Z0-9]{8,}|['\"][A-Za-z0-9+/=_.-]{8,}['\"]")
# The keyword plugin's DENYLIST (its values may be short: 'password = "hunter2"'), the private-key
# headers and a URL with credentials (basic auth); tests/rules/test_prompt_rules.py checks the list.
_HINT = re.compile(
    r"(?:api|auth|service|account|db|database|priv|private|client)_?key|(?:db|database|key)_?pass|passw(?:or)?d"
    r"|pwd|secret|contrase|private key|putty-user-key|authtoken|://[^\s/@]*:[^\s/@]*@",
    re.IGNORECASE,
)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([A-Za-z0-9_+.-]*)")
_ASSIGNMENT_LINE = re.compile(r"^\s*(?:export\s+|set\s+|\$env:)?[A-Za-z_][A-Za-z0-9_.]*=\S")

# Environment-style names that say secret (detect-secrets' keyword list lacks TOKEN, CREDENTIALS, AUTH).
_ENV_ASSIGNMENT = re.compile(
    r"(?<![A-Za-z0-9_])([A-Z][A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD|PASS|CREDENTIALS?|AUTH)[A-Z0-9_]*)"
    r"(=|:[ \t]+)[ \t]*([\"']?)([^\s\"'`,;\\]+)"
)
_ENV_WORDS = ("KEY", "TOKEN", "SECRET", "PASS", "PWD", "CREDENTIAL", "AUTH")  # one is in every _ENV_ASSIGNMENT
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s<>\"'`]+")
_QUERY = re.compile(r"[?&;]([A-Za-z][A-Za-z0-9_.-]{0,40})=([^&#\s\"'<>`)\]]+)")
_QUERY_NAMES = re.compile(
    r"(?:^|[_.-])(?:api[_-]?key|apikey|key|token|access[_-]?token|auth|secret|password|passwd|pwd|sig|signature)$",
    re.IGNORECASE,
)
_BLOB = re.compile(rf"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{{24,{MAX_BLOB_CHARS}}}={{0,2}}(?![A-Za-z0-9+/=_-])")
_PRINTABLE = re.compile(r"[\x20-\x7e\t]+")


@dataclass(frozen=True)
class SecretHit:
    """Where a secret is (0-based line, code-point columns [start, end)) and what kind it is."""

    line: int
    start: int
    end: int
    kind: str  # the plugin's secret type, e.g. "AWS Access Key"


def could_hold_secret(line: str) -> bool:
    """The gate before detect-secrets' plugins: a keyword of theirs, a private-key header, a URL with
    credentials, a token of 16+ characters with a digit, an Artifactory-like token, a quoted token of 8+
    characters, or a provider key's prefix. Also what says a value must not be echoed (hovers, messages)."""
    return ANY_PREFIX.search(line) is not None or _gate(line)


def _gate(line: str) -> bool:
    """:func:`could_hold_secret` without the provider prefixes (``find_secrets`` has looked for them)."""
    lowered = line.lower()
    if any(word in lowered for word in _HINT_WORDS) and _HINT.search(line):
        return True
    if _SHORT_TOKEN.search(line):
        return True
    return any(any(c.isdigit() for c in match.group()) for match in _TOKEN.finditer(line))


class _Detector:
    """detect-secrets' plugins and filters, imported and built once per process."""

    def __init__(self) -> None:
        import importlib

        from detect_secrets.filters import allowlist, heuristic
        from detect_secrets.util.code_snippet import get_code_snippet

        self.plugins: list[Any] = []
        for module, name in PLUGINS:
            loaded = importlib.import_module(f"detect_secrets.plugins.{module}")
            self.plugins.append(getattr(loaded, name)())
        self.heuristic = heuristic
        self.allowlist = allowlist
        self.snippet = get_code_snippet

    def filtered(self, secret: str, line: str, plugin: Any) -> bool:
        """detect-secrets' default false-positive filters (its ``Settings`` defaults)."""
        h = self.heuristic
        return bool(
            h.is_sequential_string(secret)
            or h.is_potential_uuid(secret)
            or h.is_likely_id_string(secret, line, plugin)
            or h.is_templated_secret(secret)
            or h.is_prefixed_with_dollar_sign(secret)
            or h.is_indirect_reference(line)
            or h.is_not_alphanumeric_string(secret)
        )

    def scan(
        self, lines: list[str], index: int, filename: str, *, plugins: bool = True
    ) -> list[tuple[str, str]] | None:
        """(kind, secret) for line ``index`` of ``lines`` (cut to MAX_LINE_CHARS), read as ``filename``'s type
        (``plugins=False``: none, only the allowlist's answer); ``None`` when the line is allowlisted."""
        line = lines[index].rstrip()
        context = self.snippet(lines=lines, line_number=index + 1)
        if self.allowlist.is_line_allowlisted(filename=filename, line=line, context=context):
            return None
        found: list[tuple[str, str]] = []
        for plugin in self.plugins if plugins else ():
            for secret in plugin.analyze_line(filename=filename, line=line, line_number=index + 1, context=context):
                value = secret.secret_value
                if value and not self.filtered(value, line, plugin):
                    found.append((str(secret.type), value))
        return found


@lru_cache(maxsize=1)
def _detector() -> _Detector:
    return _Detector()


def _filenames(lines: Sequence[str], yaml_lines: range) -> list[str]:
    """The type each line is read as: YAML for the frontmatter, a fence's language, a shell assignment's
    INI, else prose."""
    names: list[str] = []
    fence: str | None = None
    language = PROSE
    for number, line in enumerate(lines):
        if number in yaml_lines:
            names.append(YAML)
            continue
        match = _FENCE.match(line) if "`" in line or "~" in line else None  # most lines hold neither
        if fence is None and match is not None:
            fence, language = match.group(1), FENCE_LANGUAGES.get(match.group(2).lower(), PROSE)
            names.append(PROSE)
        elif fence is not None and match is not None and match.group(1)[0] == fence[0] and not match.group(2):
            fence, language = None, PROSE
            names.append(PROSE)
        else:
            name = language if fence is not None else PROSE
            names.append(ASSIGNMENT if name == PROSE and "=" in line and _ASSIGNMENT_LINE.match(line) else name)
    return names


_TOKEN_CHAR = re.compile(r"[A-Za-z0-9+/_.~-]")  # "=" only after a token (base64 padding), not before it


def _place(line: str, value: str) -> tuple[int, int, str]:
    """The columns of ``value`` in ``line`` widened to the whole token around it (a plugin may yield only a
    prefix of what it matched: the GitHub plugin yields ``ghp``), and that token; the whole line and the
    value itself when the value is not on the line as written."""
    start = line.find(value)
    if start < 0:
        return 0, len(line), value
    end = start + len(value)
    while start > 0 and _TOKEN_CHAR.match(line[start - 1]):
        start -= 1
    while end < len(line) and (_TOKEN_CHAR.match(line[end]) or line[end] == "="):
        end += 1
    return start, end, line[start:end]


_VALUE_END = re.compile(r"[\s\"'`]")


def _value_of(secret: str) -> str:
    """A plugin's value cut to its first word (the keyword plugin takes the rest of an INI line:
    'mypassword --decrypt in.pdf'), without closing punctuation."""
    cut = _VALUE_END.search(secret)
    value = secret[: cut.start()] if cut else secret
    return value.rstrip(";,)]}")


Span = tuple[int, int, str]  # start, end, kind


def _key_hits(line: str, prefixed: bool) -> tuple[list[Span], list[Span]]:
    """Provider keys on the line as the model reads it, mapped back to the written columns: the specific
    rows' and the generic ones'. The exact reading (a column map) is made only when the line (``prefixed``),
    or its quick reading, holds a provider's prefix."""
    if not prefixed and (reads_as_written(line) or ANY_PREFIX.search(read_text(line)) is None):
        return [], []
    read = read_line(line)
    specific: list[Span] = []
    generic: list[Span] = []
    for key in find_keys(read.text):
        if not is_placeholder(key.body):
            start, end = read.original(key.start, key.end)
            (generic if key.shape.generic else specific).append((start, end, key.shape.kind))
    return specific, generic


def _decoded_hits(line: str) -> list[Span]:
    """Keys inside percent-encoded URLs and base64 blobs (the whole URL or blob is the place)."""
    hits: list[Span] = []
    if len(line) < 24:
        return hits
    if "%" in line:
        for url in _URL.finditer(line):
            text = url.group()
            if "%" in text and any(not is_placeholder(k.body) for k in find_keys(unquote(text))):
                hits.append((url.start(), url.end(), _kind_of_first(unquote(text), "")))
    for blob in _BLOB.finditer(line):
        decoded = _base64_text(blob.group())
        if decoded is not None:
            kind = _kind_of_first(decoded, " (base64-encoded)")
            if kind:
                hits.append((blob.start(), blob.end(), kind))
    return hits


def _kind_of_first(text: str, suffix: str) -> str:
    for key in find_keys(text):
        if not is_placeholder(key.body):
            return key.shape.kind + suffix
    return ""


def _base64_text(blob: str) -> str | None:
    """The printable ASCII text a base64 or base64url blob decodes to, else ``None``."""
    data = blob.rstrip("=")
    padded = data + "=" * (-len(data) % 4)
    try:
        if "-" in data or "_" in data:
            raw = base64.urlsafe_b64decode(padded)
        else:
            raw = base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        return None
    return text if _PRINTABLE.fullmatch(text) else None


def _assignment_hits(line: str) -> list[Span]:
    """``NAME=value`` / ``NAME: value`` with an environment-style name that says secret and a token's value:
    16 characters or more, not a path or a URL; after a colon it must mix letters and digits (prose writes
    'TOKEN: see below'). Shorter passwords are detect-secrets' keyword plugin's (``DB_PASSWORD=…``)."""
    hits: list[Span] = []
    if not any(word in line for word in _ENV_WORDS):
        return hits
    for match in _ENV_ASSIGNMENT.finditer(line):
        value = match.group(4)
        if len(value) < 16 or _path_like(value) or is_placeholder(own_part(value)):
            continue
        if match.group(2) != "=" and not (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)):
            continue
        hits.append((match.start(4), match.end(4), "Secret Assignment"))
    return hits


def _path_like(value: str) -> bool:
    return value.startswith(("/", "~", ".")) or "://" in value or ("/" in value and "." in value)


def _query_hits(line: str) -> list[Span]:
    """URL query parameters named like a key whose value looks random (16+ characters, letters and digits)."""
    if "://" not in line:
        return []
    hits: list[Span] = []
    for url in _URL.finditer(line):
        for match in _QUERY.finditer(url.group()):
            value = unquote(match.group(2))
            if not _QUERY_NAMES.search(match.group(1)) or len(value) < 16 or is_placeholder(own_part(value)):
                continue
            if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
                start = url.start() + match.start(2)
                hits.append((start, start + len(match.group(2)), "Secret in a URL"))
    return hits


# An edit changes a line or two of a file that is checked again on every keystroke, so what a line holds
# is remembered by its text: the rest of the file costs a dictionary look-up. A line's hits depend on the
# line, the type it is read as and, through the allowlist's ``pragma: allowlist nextline secret``, the line
# above it (detect-secrets hands its plugins the lines around as well, but only verification reads them,
# and verification is never run). Lines longer than :data:`CACHED_LINE_CHARS` are scanned every time, so
# the keys hold at most ``3 * CACHED_LINES`` lines of that length (a line, and a line with the one above).
CACHED_LINES = 4096
CACHED_LINE_CHARS = 512

_Claims = tuple[tuple[Span, ...], tuple[Span, ...], bool]  # the first spans, the last spans, past the gate


def _claims(line: str) -> _Claims | None:
    """What the own scans find on ``line`` (cut to MAX_LINE_CHARS) before and after detect-secrets, and
    whether detect-secrets must read it; ``None`` when neither (most lines)."""
    prefixed = ANY_PREFIX.search(line) is not None
    specific, generic = _key_hits(line, prefixed)
    first = specific + _decoded_hits(line)
    last = generic + _assignment_hits(line) + _query_hits(line)
    gated = prefixed or _gate(line)
    if not (gated or first or last):
        return None
    return tuple(first), tuple(last), gated


_cached_claims = lru_cache(maxsize=CACHED_LINES)(_claims)


def _line_hits(raw: str, filename: str, above: str) -> tuple[Span, ...]:
    """The places and kinds of the secrets on ``raw`` read as ``filename``'s type, ``above`` being the line
    before it cut to MAX_LINE_CHARS (``""`` for the first line), one hit per place."""
    line = raw[:MAX_LINE_CHARS]
    claims = _cached_claims(line) if len(line) <= CACHED_LINE_CHARS else _claims(line)
    if claims is None:
        return ()
    first, last, gated = claims
    found = _detector().scan([above, line] if above else [line], 1 if above else 0, filename, plugins=gated)
    if found is None:
        return ()  # allowlisted ('pragma: allowlist secret')
    spans = list(first)
    for kind, secret in found:
        value = _value_of(secret)
        if value:
            start, end, token = _place(raw, value)
            if not is_placeholder(own_part(token)):
                spans.append((start, end, kind))
    kept: list[Span] = []
    for start, end, kind in spans + list(last):
        if not any(a < end and start < b for a, b, _ in kept):
            kept.append((start, end, kind))  # one hit per place: the first kind that claimed it
    return tuple(kept)


_cached_line_hits = lru_cache(maxsize=CACHED_LINES)(_line_hits)


def find_secrets(lines: Sequence[str], first_line: int = 0, *, yaml_lines: range = range(0)) -> list[SecretHit]:
    """The secrets in ``lines`` (``yaml_lines``: the indexes of frontmatter lines), bounded as above."""
    hits: list[SecretHit] = []
    names: list[str] | None = None
    scanned = 0
    for index, raw in enumerate(lines):
        scanned += len(raw) + 1
        if scanned > MAX_SCAN_CHARS:
            break
        short = len(raw) <= CACHED_LINE_CHARS
        line = raw if short else raw[:MAX_LINE_CHARS]
        if (_cached_claims(line) if short else _claims(line)) is None:
            continue
        if names is None:
            names = _filenames(lines, yaml_lines)
        above = lines[index - 1][:MAX_LINE_CHARS] if index else ""
        if "pragma" not in above:
            above = ""  # only a nextline pragma above the line changes what it holds
        if short and len(above) <= CACHED_LINE_CHARS:
            spans = _cached_line_hits(raw, names[index], above)
        else:
            spans = _line_hits(raw, names[index], above)
        for start, end, kind in spans:
            hits.append(SecretHit(first_line + index, start, end, kind))
            if len(hits) >= MAX_FINDINGS:
                return hits
    return hits
