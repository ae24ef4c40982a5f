"""Rewrite everything derived from the profile table and the provider registry.

The rule profiles (``lsp_server/vocabulary/profiles.py``), the summarizer's wire formats
(``lsp_server/vocabulary/providers.py``) and the Pi releases with what changed between them
(``lsp_server/vocabulary/pi_releases.py``) are each one table; this script writes what is derived from them:

- ``docs/rules.md`` (all of it, with the rules of ``lsp_server/rules/registry.py``);
- the ``ruleProfile`` and ``summarizer.wireFormat`` rows of ``docs/settings.md``;
- the generated provider section of ``docs/llm.md`` (between its ``generated: providers`` markers);
- the choices, their descriptions and the default of ``piContext.ruleProfile`` and
  ``piContext.summarizer.wireFormat`` in ``vscode-extension/package.json``;
- ``vscode-extension/src/model/vocabularies.generated.ts`` (the ids the client forwards);
- the generated tables of ``docs/pi-versions.md`` (between its ``generated: pi releases`` markers).

Usage (from the repository root, with the project's venv active)::

    python docs/gen_vocabularies.py          # rewrite the files
    python docs/gen_vocabularies.py --check  # exit 1 naming the stale files

``tests/test_vocabularies.py`` runs the check, so a new row cannot leave a file behind.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lsp_server.llm.adapters import load_adapter  # noqa: E402
from lsp_server.rules.docs import render_rules_markdown  # noqa: E402
from lsp_server.settings.summarizer import MODEL_ARG_HELP  # noqa: E402
from lsp_server.vocabulary.pi_releases import CHANGES, RELEASES, first_release_with  # noqa: E402
from lsp_server.vocabulary.profiles import DEFAULT_PROFILE, PROFILE_TABLE  # noqa: E402
from lsp_server.vocabulary.providers import DEFAULT_WIRE_FORMAT, PROVIDER_TABLE, Provider  # noqa: E402

RULES_DOC = ROOT / "docs" / "rules.md"
SETTINGS_DOC = ROOT / "docs" / "settings.md"
LLM_DOC = ROOT / "docs" / "llm.md"
PACKAGE = ROOT / "vscode-extension" / "package.json"
TS_VOCABULARIES = ROOT / "vscode-extension" / "src" / "model" / "vocabularies.generated.ts"
PI_VERSIONS_DOC = ROOT / "docs" / "pi-versions.md"

PROVIDERS_BEGIN = "<!-- begin generated: providers (python docs/gen_vocabularies.py) -->"
PROVIDERS_END = "<!-- end generated: providers -->"
RELEASES_BEGIN = "<!-- begin generated: pi releases (python docs/gen_vocabularies.py) -->"
RELEASES_END = "<!-- end generated: pi releases -->"


def _choices(ids: Sequence[str]) -> str:
    return " \\| ".join(f"`{i}`" for i in ids)


def rule_profile_row() -> str:
    """The ``ruleProfile`` row of docs/settings.md's table of pi-context's settings."""
    meaning = " ".join(f"`{row.id}`: {row.summary}" for row in PROFILE_TABLE)
    ids = [row.id for row in PROFILE_TABLE]
    return (
        f"| `ruleProfile` | {_choices(ids)} | `{DEFAULT_PROFILE}` | which rules check skills and context files "
        f"([profiles](rules.md#profiles)). {meaning} |"
    )


def wire_format_row() -> str:
    """The ``summarizer.wireFormat`` row of docs/settings.md's table of pi-context's settings."""
    meaning = " ".join(f"`{row.id}`: {row.summary}" for row in PROVIDER_TABLE)
    ids = [row.id for row in PROVIDER_TABLE]
    return (
        f"| `summarizer.wireFormat` | {_choices(ids)} | `{DEFAULT_WIRE_FORMAT}` | the request format "
        f"([providers](llm.md#providers-providerspy)). {meaning} |"
    )


def _adapter_path(row: Provider) -> str:
    return load_adapter(row.id).__module__.replace(".", "/") + ".py"


def providers_section() -> str:
    """docs/llm.md's provider table and the ``--model`` forms (between the markers)."""
    lines = [
        "| wire format | adapter | default base URL | key variable | base URL variable (`--model`) "
        "| key sent to another base URL |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for row in PROVIDER_TABLE:
        key_elsewhere = "yes" if row.key_with_custom_base_url else "only when `api_key_env` or `api_key` is set"
        lines.append(
            f"| `{row.id}` | `{_adapter_path(row)}` | `{row.default_base_url}` | `{row.api_key_env}` "
            f"| `{row.base_url_env}` | {key_elsewhere} |"
        )
    lines += ["", f"`--model` (`pi-context compact`, `branch-summary`) takes `{MODEL_ARG_HELP}`."]
    return "\n".join(lines)


def _replace_row(text: str, first_cell: str, row: str, path: Path) -> str:
    lines = text.split("\n")
    found = [n for n, line in enumerate(lines) if line.startswith(f"| {first_cell} |")]
    if len(found) != 1:
        raise SystemExit(f"{path}: expected one table row starting with {first_cell}, found {len(found)}")
    lines[found[0]] = row
    return "\n".join(lines)


def _replace_between(text: str, begin: str, end: str, body: str, path: Path) -> str:
    start, stop = text.find(begin), text.find(end)
    if start < 0 or stop < start:
        raise SystemExit(f"{path}: the markers {begin!r} and {end!r} are missing")
    return text[: start + len(begin)] + "\n\n" + body + "\n\n" + text[stop:]


def releases_section() -> str:
    """The releases pi-context knows and the rules that changed, from ``lsp_server/vocabulary/pi_releases.py``."""
    lines = [
        "| release | on npm since | rules it has that the release before it on npm lacks |",
        "| --- | --- | --- |",
    ]
    for release in RELEASES:
        new = [f"`{c.id}`" for c in CHANGES if first_release_with(c.id) == release.version]
        lines.append(f"| {release.version} | {release.published} | {', '.join(new) or '-'} |")
    lines += [
        "",
        "| change | since | area | before | from that release on | Pi's changelog |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    lines += [f"| `{c.id}` | {c.since} | {c.area} | {c.before} | {c.after} | {c.reference} |" for c in CHANGES]
    return "\n".join(lines)


def pi_versions_doc(current: str) -> str:
    return _replace_between(current, RELEASES_BEGIN, RELEASES_END, releases_section(), PI_VERSIONS_DOC)


def settings_doc(current: str) -> str:
    text = _replace_row(current, "`ruleProfile`", rule_profile_row(), SETTINGS_DOC)
    return _replace_row(text, "`summarizer.wireFormat`", wire_format_row(), SETTINGS_DOC)


def llm_doc(current: str) -> str:
    return _replace_between(current, PROVIDERS_BEGIN, PROVIDERS_END, providers_section(), LLM_DOC)


def package_json(current: str) -> str:
    package = json.loads(current)
    properties = package["contributes"]["configuration"]["properties"]
    choices: dict[str, tuple[list[tuple[str, str]], str]] = {
        "piContext.ruleProfile": ([(row.id, row.summary) for row in PROFILE_TABLE], DEFAULT_PROFILE),
        "piContext.summarizer.wireFormat": ([(row.id, row.summary) for row in PROVIDER_TABLE], DEFAULT_WIRE_FORMAT),
    }
    for key, (rows, default) in choices.items():
        setting = properties[key]
        setting["enum"] = [choice for choice, _ in rows]
        setting["enumDescriptions"] = [summary for _, summary in rows]
        setting["default"] = default
    return json.dumps(package, indent=2, ensure_ascii=False) + "\n"


def _ts_list(ids: Sequence[str]) -> str:
    return "[" + ", ".join(f"'{i}'" for i in ids) + "]"


def ts_vocabularies(_current: str) -> str:
    return f"""\
// GENERATED by docs/gen_vocabularies.py from lsp_server/vocabulary/profiles.py and lsp_server/vocabulary/providers.py.
// Do not edit. Regenerate: python docs/gen_vocabularies.py

/** The rule profiles (`piContext.ruleProfile`), in the server's table order. */
export const RULE_PROFILES = {_ts_list([row.id for row in PROFILE_TABLE])} as const;
export type RuleProfile = (typeof RULE_PROFILES)[number];
export const DEFAULT_RULE_PROFILE: RuleProfile = '{DEFAULT_PROFILE}';

/** The summarizer's wire formats (`piContext.summarizer.wireFormat`), in the server's table order. */
export const WIRE_FORMATS = {_ts_list([row.id for row in PROVIDER_TABLE])} as const;
export type WireFormat = (typeof WIRE_FORMATS)[number];
export const DEFAULT_WIRE_FORMAT: WireFormat = '{DEFAULT_WIRE_FORMAT}';
"""


OUTPUTS: dict[Path, Callable[[str], str]] = {
    RULES_DOC: lambda _current: render_rules_markdown(),
    SETTINGS_DOC: settings_doc,
    LLM_DOC: llm_doc,
    PACKAGE: package_json,
    TS_VOCABULARIES: ts_vocabularies,
    PI_VERSIONS_DOC: pi_versions_doc,
}


def stale_files() -> list[Path]:
    """The derived files whose committed text differs from what the tables give."""
    stale = []
    for path, render in OUTPUTS.items():
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if render(current) != current:
            stale.append(path)
    return stale


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a derived file is stale")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_files()
        for path in stale:
            sys.stderr.write(f"stale: {path.relative_to(ROOT)} (run python docs/gen_vocabularies.py)\n")
        return 1 if stale else 0
    for path, render in OUTPUTS.items():
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        updated = render(current)
        if updated != current:
            path.write_text(updated, encoding="utf-8")
            sys.stdout.write(f"wrote {path.relative_to(ROOT)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
