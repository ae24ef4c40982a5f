"""``prompt/secret``: the keys Pi users hold, in every disguise, never echoed; placeholders are not secrets."""

from __future__ import annotations

import base64
import random

import pytest

from lsp_server.base.findings import Finding
from lsp_server.rules.context_rules import check_context_text
from lsp_server.rules.key_shapes import KEY_SHAPES, KeyShape
from lsp_server.rules.skill_rules import check_skill_text
from lsp_server.rules.system_prompt_rules import check_system_prompt_text
from tests.support.secret_disguises import DISGUISES, PLACEHOLDER_PLACES, PLACEHOLDER_VALUES, real_looking_key

# Random, in the shapes the providers issue (none is live).
ANTHROPIC = (
    "sk-ant-api03-Xq7vR2mZ9pL4kT8wN1cB6yH3jF5dS0aGh2Kd8sLq0WeRtYuIoPaSdFgHjKlZxCvBnM1234567890qwertyuiopasdfghjk-AA"
)
GOOGLE = "AIzaSyD3xK9mP2qR7vL4tN8wB1cF6hJ0sZ5yUaE"


def secrets(text: str, path: str = "/w/AGENTS.md") -> list[Finding]:
    if path.endswith("SKILL.md"):
        return [f for f in check_skill_text(path, text).findings if f.code == "prompt/secret"]
    if path.endswith(("SYSTEM.md",)):
        return [f for f in check_system_prompt_text(path, text) if f.code == "prompt/secret"]
    return [f for f in check_context_text(path, text) if f.code == "prompt/secret"]


def spans(found: list[Finding]) -> list[tuple[int, int, int, str]]:
    return [(f.range.start.line, f.range.start.column, f.range.end.column, f.data["kind"]) for f in found]


def assert_never_echoed(found: list[Finding], key: str) -> None:
    """No 8 characters of the key in a row, anywhere in what a finding carries."""
    shown = " ".join(f"{f.message} {f.data}" for f in found)
    for start in range(len(key) - 7):
        assert key[start : start + 8] not in shown, (key[start : start + 8], shown)


# -- the red team's misses (issue 18 item 3) ----------------------------------------------------


def test_an_anthropic_key_bare_in_prose() -> None:
    found = secrets(f"# Notes\n\nCall it with {ANTHROPIC} today.\n")
    assert spans(found) == [(2, 13, 13 + len(ANTHROPIC), "Anthropic API Key")]
    assert found[0].message == (
        "possible Anthropic API Key: Pi sends it with every request; move the secret to an environment variable"
    )
    assert_never_echoed(found, ANTHROPIC)


def test_an_anthropic_key_in_an_unlabeled_fence_and_as_an_assignment_on_a_prose_line() -> None:
    text = f"```\n{ANTHROPIC}\n```\nANTHROPIC_API_KEY={ANTHROPIC}\n"
    assert spans(secrets(text)) == [
        (1, 0, len(ANTHROPIC), "Anthropic API Key"),
        (3, 18, 18 + len(ANTHROPIC), "Anthropic API Key"),
    ]


def test_an_api_key_in_a_skill_description_quoted_or_folded() -> None:
    path = "/w/.pi/skills/deploy/SKILL.md"
    quoted = f'---\nname: deploy\ndescription: "Deploys with api_key: {ANTHROPIC}"\n---\nBody.\n'
    (finding,) = secrets(quoted, path)
    assert spans([finding]) == [(2, 36, 36 + len(ANTHROPIC), "Anthropic API Key")]
    assert finding.message.startswith(
        "possible Anthropic API Key: Pi sends it with every request (the skill's name and description are in the "
        "skills listing);"
    )
    folded = f"---\nname: deploy\ndescription: >\n  Deploys.\n  api_key: {GOOGLE}\n---\nBody.\n"
    assert spans(secrets(folded, path)) == [(4, 11, 11 + len(GOOGLE), "Google API Key")]


def test_a_secret_in_a_skills_body_is_sent_when_the_skill_is_used() -> None:
    path = "/w/.pi/skills/deploy/SKILL.md"
    (finding,) = secrets(f"---\nname: deploy\ndescription: d\n---\nUse {GOOGLE}.\n", path)
    assert finding.message == (
        "possible Google API Key: Pi sends it only when the skill is used; move the secret to an environment variable"
    )
    hidden = f"---\nname: deploy\ndescription: Uses {GOOGLE}\ndisable-model-invocation: true\n---\nx\n"
    (finding,) = secrets(hidden, path)
    assert "only when the skill is invoked as /skill:deploy" in finding.message  # Pi does not list it


def test_a_key_base64_encoded_alone_or_as_basic_auth() -> None:
    alone = base64.b64encode(ANTHROPIC.encode()).decode()
    basic = base64.b64encode(f"deploy:{ANTHROPIC}".encode()).decode()
    text = f"Token: {alone}\nAuthorization: Basic {basic}\n"
    assert spans(secrets(text)) == [
        (0, 7, 7 + len(alone), "Anthropic API Key (base64-encoded)"),
        (1, 21, 21 + len(basic), "Anthropic API Key (base64-encoded)"),
    ]


def test_a_key_inside_a_url() -> None:
    encoded = "".join(f"%{b:02X}" for b in ANTHROPIC.encode())
    text = (
        f"https://maps.example.com/api?key={GOOGLE}&q=1\n"
        f"https://deploy:{ANTHROPIC}@git.example.com/x.git\n"
        f"https://api.example.com/?k={encoded}\n"
        "https://api.example.com/v1?access_token=9f8e7d6c5b4a39281706f5e4d3c2b1a0&page=2\n"
    )
    assert spans(secrets(text)) == [
        (0, 33, 33 + len(GOOGLE), "Google API Key"),
        (1, 15, 15 + len(ANTHROPIC), "Anthropic API Key"),
        (2, 0, 27 + len(encoded), "Anthropic API Key"),
        (3, 40, 72, "Secret in a URL"),
    ]


def test_a_google_key_and_a_key_with_an_invisible_or_fullwidth_character_inside() -> None:
    wide = "".join(chr(ord(c) + 0xFEE0) for c in GOOGLE)
    text = f"maps: {GOOGLE}\nkey {ANTHROPIC[:20]}\u200b{ANTHROPIC[20:]} here\n{wide}\n"
    assert spans(secrets(text)) == [
        (0, 6, 6 + len(GOOGLE), "Google API Key"),
        (1, 4, 5 + len(ANTHROPIC), "Anthropic API Key"),
        (2, 0, len(wide), "Google API Key"),
    ]


def test_environment_style_names_that_say_secret() -> None:
    text = (
        "Set GITHUB_TOKEN=Zq8vL2mN4pR7sT1xW9e before.\n"
        "STRIPE_WEBHOOK_SECRET: k3Jd9sLq0WeRtYuI\n"
        "TOKEN: see the vault\n"
        "MAX_TOKENS=4096\n"
    )
    assert spans(secrets(text)) == [(0, 17, 36, "Secret Assignment"), (1, 23, 39, "Secret Assignment")]


@pytest.mark.parametrize("shape", KEY_SHAPES, ids=[s.kind for s in KEY_SHAPES])
def test_every_provider_shape_is_found_in_prose_by_its_kind(shape: KeyShape) -> None:
    key = real_looking_key(shape, random.Random(shape.kind))
    found = secrets(f"The key is {key} (do not share).\n")
    assert spans(found) == [(0, 11, 11 + len(key), shape.kind)]
    assert_never_echoed(found, key)


@pytest.mark.parametrize("disguise", DISGUISES)
def test_every_disguise_of_every_shape_is_found_and_never_echoed(disguise: str) -> None:
    rng = random.Random(disguise)
    for shape in KEY_SHAPES:
        key = real_looking_key(shape, rng)
        found = secrets("# Notes\n\n" + DISGUISES[disguise](key) + "\n")
        assert found, (shape.kind, disguise)
        assert_never_echoed(found, key)


def test_detect_secrets_knows_none_of_the_shapes() -> None:
    """The table holds only what detect-secrets misses (its plugins alone find nothing in prose)."""
    from lsp_server.rules.secrets import PROSE, _detector

    rng = random.Random(18)
    for shape in KEY_SHAPES:
        key = real_looking_key(shape, rng)
        assert _detector().scan([f"The key is {key} here."], 0, PROSE) == [], shape.kind


def test_no_other_finding_quotes_a_key() -> None:
    """A hex key looks like a commit hash to prompt/volatile-content, which quotes what it finds."""
    key = "sbp_0123456789abcdef0123456789abcdef9a8b7c6d"
    found = check_context_text("/w/AGENTS.md", f"key {key}\nbuilt at 3f786850e387550fdab836ed7e6dc881de23001b\n")
    assert [(f.code, f.range.start.line) for f in found] == [("prompt/secret", 0), ("prompt/volatile-content", 1)]
    assert_never_echoed(found, key)


# -- placeholders (issue 22 item 3) -------------------------------------------------------------


def test_the_pdf_skills_qpdf_example_is_not_a_secret() -> None:
    """A reproduction of anthropics/skills' pdf skill: the password of a code example is a placeholder."""
    path = "/w/.pi/skills/pdf/SKILL.md"
    text = (
        "---\nname: pdf\ndescription: Work with PDF files.\n---\n## Remove password\n```bash\n"
        "qpdf --password=mypassword --decrypt encrypted.pdf decrypted.pdf\n```\n"
        '```python\nwriter.encrypt("userpassword", "ownerpassword")\n```\n'
    )
    assert secrets(text, path) == []


@pytest.mark.parametrize("place", PLACEHOLDER_PLACES)
def test_no_placeholder_is_a_secret_in_any_place(place: str) -> None:
    for value in PLACEHOLDER_VALUES:
        assert secrets("# Notes\n\n" + PLACEHOLDER_PLACES[place](value) + "\n") == [], value


def test_a_real_password_beside_a_placeholder_is_still_reported() -> None:
    text = "```bash\nqpdf --password=Zq8vL2mN4pR7sT1x --decrypt a.pdf b.pdf\nexport DB_PASSWORD=changeme\n```\n"
    assert spans(secrets(text)) == [(1, 16, 32, "Secret Keyword")]


# -- what a line holds is remembered by its text (an edit rescans only the lines it changed) -------------

GITHUB = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
HEX = "a8f5f167f44f4964e6c998dee827110c"
PASSWORD_LINE = "password: Zq8vL2mN4pR7sT1xK9"  # a keyword value without quotes: a secret in YAML, not in prose


def uncached(lines: list[str], monkeypatch: pytest.MonkeyPatch, **kwargs: object) -> list[object]:
    """``find_secrets`` with every line scanned afresh: no line is short enough to be remembered."""
    from lsp_server.rules import secrets as module

    with monkeypatch.context() as patched:
        patched.setattr(module, "CACHED_LINE_CHARS", -1)
        return list(module.find_secrets(lines, **kwargs))  # type: ignore[arg-type]


def test_the_same_line_is_read_as_the_type_of_its_place(monkeypatch: pytest.MonkeyPatch) -> None:
    from lsp_server.rules.secrets import find_secrets

    prose = ["# Notes", PASSWORD_LINE]
    fenced = ["```yaml", PASSWORD_LINE, "```"]
    for lines in (prose, fenced, prose, fenced):
        assert find_secrets(lines) == uncached(lines, monkeypatch)
    assert [hit.kind for hit in find_secrets(fenced)] == ["Secret Keyword"]
    assert find_secrets(prose) == []  # prose needs quotes around the value


def test_a_nextline_pragma_above_a_remembered_line_still_allows_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from lsp_server.rules.secrets import find_secrets

    line = f"Deploy with {GITHUB} today."
    plain = ["intro", line]
    allowed = ["# pragma: allowlist nextline secret", line]
    for lines in (plain, allowed, plain, allowed):
        assert find_secrets(lines) == uncached(lines, monkeypatch)
    assert [hit.line for hit in find_secrets(plain)] == [1]
    assert find_secrets(allowed) == []


def test_an_edit_finds_the_secret_it_adds_and_forgets_the_one_it_removes(monkeypatch: pytest.MonkeyPatch) -> None:
    from lsp_server.rules.secrets import find_secrets

    lines = [f"Line {n} of the guide, see references/ref-{n}.md." for n in range(40)]
    assert find_secrets(lines) == uncached(lines, monkeypatch) == []
    lines[17] = f"Line 17 of the guide, call it with {ANTHROPIC}."
    assert [(hit.line, hit.kind) for hit in find_secrets(lines, 10)] == [(27, "Anthropic API Key")]
    assert find_secrets(lines, 10) == uncached(lines, monkeypatch, first_line=10)
    lines[17] = "Line 17 of the guide, see references/ref-17.md."
    assert find_secrets(lines) == []


def test_remembered_lines_give_what_a_fresh_scan_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    """Documents drawn from lines that repeat across places (prose, fences of several types, frontmatter,
    under a nextline pragma), with keys, placeholders and lines past the remembered length: the scan with
    its memory shared across all of them equals a scan that remembers nothing, document by document."""
    from lsp_server.rules import secrets as module

    rng = random.Random(21)
    keys = [real_looking_key(shape, rng) for shape in KEY_SHAPES[:6]]
    pool = [
        PASSWORD_LINE,
        f"export DB_PASSWORD={keys[0]}",
        f'api_key = "{HEX}"',
        "See [the reference](references/ref-1.md).",
        "# pragma: allowlist nextline secret",
        'password = "Zq8vL2mN4pR7sT1x"  # pragma: allowlist secret',
        "Plain prose without anything in it.",
        "-----BEGIN RSA PRIVATE KEY-----",
        "x" * (module.CACHED_LINE_CHARS - 30) + f" {keys[1]}",
        "y" * (module.CACHED_LINE_CHARS + 10) + f" {keys[2]}",
        "z" * module.MAX_LINE_CHARS + f" {keys[3]}",
        *(disguise(key) for disguise in DISGUISES.values() for key in keys[4:]),
        *(place(value) for place in PLACEHOLDER_PLACES.values() for value in PLACEHOLDER_VALUES[:4]),
    ]
    fences = ["```", "```bash", "```yaml", "```python", "~~~js", "```text"]
    found = 0
    for _ in range(300):
        lines: list[str] = []
        fence = ""
        for _ in range(rng.randrange(1, 25)):
            if rng.random() < 0.15:
                opening = rng.choice(fences)
                lines.append(fence[:3] if fence else opening)  # close the open fence, else open one
                fence = "" if fence else opening
            else:
                lines.extend(rng.choice(pool).split("\n"))
        yaml_lines = range(rng.randrange(0, 4))
        first = rng.randrange(0, 5)
        warm = module.find_secrets(lines, first, yaml_lines=yaml_lines)
        assert warm == uncached(lines, monkeypatch, first_line=first, yaml_lines=yaml_lines), lines
        found += len(warm)
    assert found > 300  # the documents hold secrets: the comparison is not between two empty lists
