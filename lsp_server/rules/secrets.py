"""Secrets in text that goes into the prompt, found by detect-secrets' plugins, never echoed.

A key in AGENTS.md, SYSTEM.md or a skill is sent to the model provider with every request. The
detection is Yelp's ``detect-secrets`` (a maintained detector): its plugins (AWS, GitHub, GitLab,
Slack, Stripe, OpenAI, JWT, private keys, basic-auth URLs, keyword assignments, high-entropy
strings, ...) and its false-positive filters (sequential strings, UUIDs, ``${TEMPLATES}``,
``$VARIABLES``, indirect references, ``id`` fields) run in-process on each line, with the
``pragma: allowlist secret`` comment honoured as detect-secrets does. ``IPPublicDetector`` is
left out (an address is not a secret). Verification against the providers is never run: the
plugins' ``verify`` needs a network call and our settings never enable it.

Its keyword plugin reads assignments by file type (``key = value`` in INI files, quotes required
in code), so each line is scanned as the language it is written in: a skill's frontmatter as YAML,
a fenced block by its info string (``bash``/``sh``/``env``/``ini`` as INI, ``yaml``, ``python``,
``js``, ...), prose as text (quotes required).

Bounded work: a line is handed to the plugins only when it could hold a secret (a keyword of the
keyword plugin, a private-key header, a URL with credentials, a run of 16 or more token characters
with a digit, an Artifactory-like token, a quoted token: :func:`could_hold_secret`, a superset of
what the plugins match), at most the first :data:`MAX_LINE_CHARS` characters of a line, at most
:data:`MAX_SCAN_CHARS` characters and :data:`MAX_FINDINGS` secrets per file. detect-secrets is
imported on the first line that passes that gate (it takes half a second or more, mostly for
``requests``), so workspaces without candidates never pay for it.

A hit carries the detector's kind ("AWS Access Key") and the secret's columns; the secret's value
never leaves this module (not in the finding's message or data).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

MAX_LINE_CHARS = 4096
MAX_SCAN_CHARS = 1024 * 1024
MAX_FINDINGS = 50

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


@dataclass(frozen=True)
class SecretHit:
    """Where a secret is (0-based line, code-point columns [start, end)) and what kind it is."""

    line: int
    start: int
    end: int
    kind: str  # the plugin's secret type, e.g. "AWS Access Key"


def could_hold_secret(line: str) -> bool:
    """The gate before the plugins: a keyword of theirs, a private-key header, a URL with credentials,
    a token of 16+ characters with a digit, an Artifactory-like token or a quoted token of 8+ characters."""
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

    def scan(self, lines: list[str], index: int, filename: str) -> list[tuple[str, str]]:
        """(kind, secret) for line ``index`` of ``lines`` (cut to MAX_LINE_CHARS), read as ``filename``'s type."""
        line = lines[index].rstrip()
        context = self.snippet(lines=lines, line_number=index + 1)
        if self.allowlist.is_line_allowlisted(filename=filename, line=line, context=context):
            return []
        found: list[tuple[str, str]] = []
        for plugin in self.plugins:
            for secret in plugin.analyze_line(filename=filename, line=line, line_number=index + 1, context=context):
                value = secret.secret_value
                if value and not self.filtered(value, line, plugin):
                    found.append((str(secret.type), value))
        return found


@lru_cache(maxsize=1)
def _detector() -> _Detector:
    return _Detector()


def _filenames(lines: Sequence[str], yaml_lines: range) -> list[str]:
    """The type each line is read as: YAML for the frontmatter, a fence's language, else prose."""
    names: list[str] = []
    fence: str | None = None
    language = PROSE
    for number, line in enumerate(lines):
        if number in yaml_lines:
            names.append(YAML)
            continue
        match = _FENCE.match(line)
        if fence is None and match is not None:
            fence, language = match.group(1), FENCE_LANGUAGES.get(match.group(2).lower(), PROSE)
            names.append(PROSE)
        elif fence is not None and match is not None and match.group(1)[0] == fence[0] and not match.group(2):
            fence, language = None, PROSE
            names.append(PROSE)
        else:
            names.append(language if fence is not None else PROSE)
    return names


_TOKEN_CHAR = re.compile(r"[A-Za-z0-9+/_.~-]")  # "=" only after a token (base64 padding), not before it


def _place(line: str, value: str) -> tuple[int, int]:
    """The columns of ``value`` in ``line``, widened to the whole token around it (a plugin may yield
    only a prefix of what it matched: the GitHub plugin yields ``ghp``); the whole line if absent."""
    start = line.find(value)
    if start < 0:
        return 0, len(line)
    end = start + len(value)
    while start > 0 and _TOKEN_CHAR.match(line[start - 1]):
        start -= 1
    while end < len(line) and (_TOKEN_CHAR.match(line[end]) or line[end] == "="):
        end += 1
    return start, end


def find_secrets(lines: Sequence[str], first_line: int = 0, *, yaml_lines: range = range(0)) -> list[SecretHit]:
    """The secrets in ``lines`` (``yaml_lines``: the indexes of frontmatter lines), bounded as above."""
    hits: list[SecretHit] = []
    names: list[str] | None = None
    cut: list[str] | None = None
    scanned = 0
    for index, raw in enumerate(lines):
        scanned += len(raw) + 1
        if scanned > MAX_SCAN_CHARS:
            break
        if not could_hold_secret(raw[:MAX_LINE_CHARS]):
            continue
        if names is None or cut is None:
            names = _filenames(lines, yaml_lines)
            cut = [text[:MAX_LINE_CHARS] for text in lines]
        for kind, value in _detector().scan(cut, index, names[index]):
            start, end = _place(raw, value)
            hit = SecretHit(first_line + index, start, end, kind)
            if not any((h.line, h.start, h.end) == (hit.line, hit.start, hit.end) for h in hits):
                hits.append(hit)
            if len(hits) >= MAX_FINDINGS:
                return hits
    return hits
