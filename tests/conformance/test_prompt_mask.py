"""The prompt ops' mask hides prose sentences only: each test shows a difference it must not hide."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

from lsp_server.conformance.compare import compare_answers
from lsp_server.conformance.harness import handle
from lsp_server.conformance.prompt_mask import (
    EARLIER_PI_PROSE_SHA256,
    FIRST_PI_PROSE_SHA256,
    PI_PROSE_SHA256,
    PKG_TOKEN,
    PLACEHOLDER,
    mask_prompt_result,
    mask_prose,
    our_prose_roles,
    placeholder,
    replace_pi_prose,
    resolve_prose_references,
)
from lsp_server.prompt.texts import EARLIER_TEXTS, FIRST_TEXTS, OUR_TEXTS

HERE = Path(__file__).resolve().parent
PROMPT_OPS = ("build_sections", "build_system_prompt", "diff_sections", "format_skills_for_prompt")


def _pairs(op: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    requests = (HERE / "requests" / f"{op}.jsonl").read_text(encoding="utf-8").splitlines()
    goldens = (HERE / "golden" / f"{op}.jsonl").read_text(encoding="utf-8").splitlines()
    return [(json.loads(r), json.loads(g)) for r, g in zip(requests, goldens, strict=True) if r.strip()]


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    return []


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_every_role_of_the_table_is_in_the_goldens() -> None:
    """The table is not stale: regen_goldens.py stores a placeholder only for a line of Pi's answer
    whose hash is in the table (and stops when a role matches no line of the installed Pi)."""
    seen: set[str] = set()
    for op in PROMPT_OPS:
        for _request, golden in _pairs(op):
            for text in _strings(golden):
                seen.update(PLACEHOLDER.findall(text))
    assert set(PI_PROSE_SHA256) - seen == set()


def test_our_texts_cover_exactly_pi_roles() -> None:
    assert set(our_prose_roles()) == set(PI_PROSE_SHA256)
    # The shapes of older releases too (texts_for): our wording of each role of their tables.
    assert set(our_prose_roles(EARLIER_TEXTS)) == set(EARLIER_PI_PROSE_SHA256)
    assert set(our_prose_roles(FIRST_TEXTS)) == set(FIRST_PI_PROSE_SHA256)


def test_our_sentences_are_not_pi_sentences() -> None:
    pis = {*PI_PROSE_SHA256.values(), *EARLIER_PI_PROSE_SHA256.values(), *FIRST_PI_PROSE_SHA256.values()}
    for texts in (OUR_TEXTS, EARLIER_TEXTS, FIRST_TEXTS):
        assert not {_sha(text) for text in our_prose_roles(texts).values()} & pis


def test_every_role_of_an_older_releases_table_is_in_its_goldens() -> None:
    """regen_goldens.py --release stores a placeholder only for a line whose hash is in the release's table."""
    for version, table in (("1.4.0", EARLIER_PI_PROSE_SHA256), ("1.0.3", FIRST_PI_PROSE_SHA256)):
        seen: set[str] = set()
        for path in (HERE / "golden" / "releases" / version).glob("*.jsonl"):
            for line in path.read_text(encoding="utf-8").splitlines():
                for text in _strings(json.loads(line)["answer"]):
                    seen.update(PLACEHOLDER.findall(text))
        # Roles whose sentence is 1.6.0's too are stored only where that release's answer differs:
        # what must be there is every role that is new or reworded in that release.
        changed = {role for role, digest in table.items() if PI_PROSE_SHA256.get(role) != digest}
        assert changed - seen - {"skills:reader:indirect"} == set(), version


def test_user_lines_are_left_untouched() -> None:
    text = "<rules>\n- Prefer tabs\n</rules>\n\n<cwd>\n/p\n</cwd>\n- read: my own snippet"
    assert mask_prose(text) == text


def test_same_rule_repeated_with_same_text_is_kept() -> None:
    rule = f"- {OUR_TEXTS.fixed_rules[0]}"
    assert mask_prose(f"<rules>\n{rule}\n{rule}\n</rules>").count("rule:fixed:0") == 2


def test_reader_lines_of_different_kinds_stay_different() -> None:
    read = mask_prose(OUR_TEXTS.skills.reader_lines["read"])
    bash = mask_prose(OUR_TEXTS.skills.reader_lines["bash"])
    assert read != bash


def test_docs_line_with_wrong_package_path_is_not_masked() -> None:
    docs = OUR_TEXTS.docs.render("/opt/other/README.md", "/opt/pi/docs", "/opt/pi/examples").split("\n")
    assert mask_prose(docs[1], "/opt/pi") == docs[1]
    assert mask_prose(docs[2], "/opt/pi") == "{pi-prose:docs:2}"


def test_a_stored_placeholder_is_masked_as_pis_sentence_of_its_role() -> None:
    ours = f"- {OUR_TEXTS.fixed_rules[0]}"
    assert mask_prose("{pi-prose:preamble}") == "{pi-prose:preamble}"
    assert mask_prose("- read: {pi-prose:snippet:read}") == "- read: {pi-prose:snippet:read}"
    # Pi's wording (stored as the placeholder) and ours of one rule: the cross-wording dedup keeps one.
    assert mask_prose(f"<rules>\n- {placeholder('rule:fixed:0')}\n{ours}\n</rules>").count("rule:fixed:0") == 1
    assert mask_prose(f"<rules>\n{ours}\n{ours}\n</rules>").count("rule:fixed:0") == 2


def test_a_placeholder_of_no_role_is_text_like_any_other() -> None:
    for text in ("{pi-prose:no-such-role}", "- {pi-prose:rule:fixed:9}", " {pi-prose:preamble}"):
        assert mask_prose(text) == text


def test_replacing_pis_prose_leaves_our_sentences_and_the_callers_text() -> None:
    text = f"<rules>\n- {OUR_TEXTS.fixed_rules[0]}\n- Prefer tabs\n</rules>\n{OUR_TEXTS.preamble}"
    assert replace_pi_prose(text, "/opt/pi") == text


def test_a_request_names_a_built_in_sentence_and_gets_our_wording() -> None:
    roles = our_prose_roles()
    request = {
        "op": "build_sections",
        "packageDir": "/opt/pi",
        "options": {"promptGuidelines": [placeholder("rule:fixed:1"), "Prefer tabs", "{pi-prose:no-such-role}"]},
        "docs": placeholder("docs:1"),
    }
    resolved = resolve_prose_references(request, roles)
    assert resolved["options"]["promptGuidelines"] == [roles["rule:fixed:1"], "Prefer tabs", "{pi-prose:no-such-role}"]
    assert resolved["docs"] == roles["docs:1"].replace(PKG_TOKEN, "/opt/pi") != roles["docs:1"]
    assert request["options"]["promptGuidelines"][0] == placeholder("rule:fixed:1")  # the request is not changed


def test_mask_does_not_mutate_its_input() -> None:
    result = {"text": OUR_TEXTS.preamble, "list": [OUR_TEXTS.preamble]}
    before = copy.deepcopy(result)
    mask_prompt_result({}, result)
    assert result == before


def _first(op: str, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    return next((r, g) for r, g in _pairs(op) if r["name"] == name)


def test_comparison_still_fails_on_a_changed_user_section() -> None:
    request, golden = _first("build_sections", "example/build_sections")
    ours = handle(request)
    ours["result"]["sections"]["cwd"] = "<cwd>\n/elsewhere\n</cwd>"
    assert compare_answers(request, golden, ours)


def test_comparison_still_fails_on_a_missing_skill() -> None:
    request, golden = _first("format_skills_for_prompt", "vector/fmt-multi")
    ours = handle(request)
    ours["result"]["text"] = ours["result"]["text"].replace("<name>skill-two</name>", "<name>skill-2</name>")
    assert compare_answers(request, golden, ours)


def test_comparison_still_fails_on_a_dropped_rule() -> None:
    request, golden = _first("build_sections", "example/build_sections")
    ours = handle(request)
    rules = ours["result"]["sections"]["rules"].split("\n")
    ours["result"]["sections"]["rules"] = "\n".join(rules[:2] + rules[3:])
    assert compare_answers(request, golden, ours)


def test_comparison_still_fails_on_a_swapped_reader() -> None:
    request, golden = _first("build_sections", "edge/hidden-bash-reader-indirect")
    ours = handle(request)
    skills = ours["result"]["sections"]["skills"]
    ours["result"]["sections"]["skills"] = skills.replace(
        OUR_TEXTS.skills.reader_lines["indirect"], OUR_TEXTS.skills.reader_lines["bash"]
    )
    assert compare_answers(request, golden, ours)


def test_comparison_still_fails_on_a_missing_deduplication_of_a_built_in_rule_the_caller_gives() -> None:
    # The request's guidelines are {pi-prose:rule:fixed:1} and {pi-prose:rule:fixed:0}: Pi got its
    # own two rules (and listed each once), we get ours, so our deduplication is what is compared.
    request, golden = _first("build_sections", "edge/caller-guideline-equals-pi-fixed-rule-with-defaults")
    ours = handle(request)
    assert not compare_answers(request, golden, ours)
    extra = f"- {OUR_TEXTS.fixed_rules[1]}"
    ours["result"]["sections"]["rules"] = ours["result"]["sections"]["rules"].replace(
        "\n</rules>", f"\n{extra}\n</rules>"
    )
    assert compare_answers(request, golden, ours)


def test_comparison_still_fails_on_a_missing_deduplication() -> None:
    request, golden = _first("build_sections", "edge/caller-guideline-equals-our-fixed-rule")
    ours = handle(request)
    extra = f"- {OUR_TEXTS.fixed_rules[0]}"
    ours["result"]["sections"]["rules"] = ours["result"]["sections"]["rules"].replace(
        "\n</rules>", f"\n{extra}\n</rules>"
    )
    assert compare_answers(request, golden, ours)
