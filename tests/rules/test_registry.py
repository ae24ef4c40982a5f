"""The rule registry: complete per profile, and docs/rules.md generated from it."""

from __future__ import annotations

from pathlib import Path

from lsp_server.rules.docs import render_rules_markdown
from lsp_server.rules.registry import RULES
from lsp_server.vocabulary.profiles import PROFILES, check_profile

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_docs_match_the_registry() -> None:
    assert DOCS.read_text(encoding="utf-8") == render_rules_markdown(), (
        "run: python -m lsp_server.rules.docs > docs/rules.md"
    )


def test_every_enabled_rule_has_a_message_for_its_profile() -> None:
    for rule in RULES.values():
        for profile in PROFILES:
            if rule.severity(profile) is not None:
                assert profile in rule.messages or "*" in rule.messages, (rule.code, profile)


def test_codes_are_area_slugs() -> None:
    assert all(code.split("/")[0] in ("skill", "context", "prompt", "file") and code == code.lower() for code in RULES)
    assert all(rule.code.split("/")[0] == rule.applies_to for rule in RULES.values())


def test_prompt_rules_are_on_in_every_profile() -> None:
    """What goes to the model is checked whichever agent the profile speaks for."""
    for rule in RULES.values():
        if rule.applies_to == "prompt":
            assert all(rule.severity(profile) is not None for profile in PROFILES), rule.code


def test_unknown_profile_is_rejected_with_the_valid_names() -> None:
    try:
        check_profile("cursor")
    except ValueError as exc:
        assert "pi, agentskills, claude-code, vscode" in str(exc)
    else:
        raise AssertionError("expected ValueError")
