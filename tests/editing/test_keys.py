"""The key knowledge base agrees with the rules: every accepted key is documented, Pi's three are Pi's."""

from __future__ import annotations

import pytest

from lsp_server.editing.keys import KEYS, PI_KEYS, PROFILE_KEYS, keys_for_profile
from lsp_server.rules.skill_rules import check_skill_text
from lsp_server.vocabulary.profiles import PROFILES


@pytest.mark.parametrize("profile", PROFILES)
def test_every_key_offered_under_a_profile_raises_no_unknown_key_finding(tmp_path: object, profile: str) -> None:
    keys = [info.name for info in keys_for_profile(profile)]
    lines = "".join(f"{key}: x\n" for key in keys if key not in ("name", "description"))
    text = f"---\nname: pdf-tools\ndescription: d\n{lines}---\n"
    codes = [f.code for f in check_skill_text("/w/pdf-tools/SKILL.md", text, profile).findings]
    assert "skill/unknown-key" not in codes


def test_the_pi_profile_offers_pis_own_keys_first() -> None:
    assert PROFILE_KEYS["pi"][:3] == PI_KEYS


def test_pi_honours_exactly_name_description_and_disable_model_invocation() -> None:
    assert [name for name, info in KEYS.items() if info.honoured_by("pi")] == list(PI_KEYS)


def test_boolean_keys_complete_to_true_and_false_only() -> None:
    assert {info.values for info in KEYS.values() if info.kind == "boolean"} == {("true", "false")}


def test_every_key_says_what_each_agent_does_with_it() -> None:
    for info in KEYS.values():
        for agent in ("pi", "claude-code", "vscode", "agentskills", "codex"):
            assert info.handling(agent)


def test_the_spec_profile_offers_the_spec_keys() -> None:
    assert set(PROFILE_KEYS["agentskills"]) == {
        "name",
        "description",
        "license",
        "compatibility",
        "metadata",
        "allowed-tools",
    }
