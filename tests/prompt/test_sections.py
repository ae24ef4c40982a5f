"""Rules of Pi's section map (pi-behavior.md §2.1-2.6), one test per rule, smallest inputs."""

from __future__ import annotations

import pytest

from lsp_server.context.model import ContextFile
from lsp_server.prompt.sections import (
    PromptOptions,
    SectionNameError,
    build_prompt_state,
    build_rules,
    build_sections,
    build_system_prompt,
    diff_sections,
    render_prompt_text,
    skill_reader,
    with_builtin_tool_prompts,
)
from lsp_server.prompt.skills_block import format_skills_for_prompt
from lsp_server.prompt.texts import OUR_TEXTS


class _Skill:
    def __init__(self, name: str, hidden: bool = False) -> None:
        self.name = name
        self.description = f"{name} does things"
        self.file_path = f"/skills/{name}/SKILL.md"
        self.disable_model_invocation = hidden


def _options(**kwargs: object) -> PromptOptions:
    return PromptOptions.create("/p", package_dir="/opt/pi", **kwargs)  # type: ignore[arg-type]


def test_default_section_order() -> None:
    options = _options(
        append_system_prompt="A",
        context_files=[ContextFile("/p/AGENTS.md", "x")],
        skills=[_Skill("s")],
        sections={"memory": "m"},
    )
    assert list(build_sections(options)) == [
        "preamble",
        "tools",
        "rules",
        "docs",
        "addendum",
        "project_context",
        "skills",
        "cwd",
        "memory",
    ]


def test_custom_prompt_replaces_preamble_and_drops_tools_rules_docs() -> None:
    sections = build_sections(_options(custom_prompt="You are Bob."))
    assert sections == {"preamble": "You are Bob.", "cwd": "<cwd>\n/p\n</cwd>"}


def test_empty_custom_prompt_means_default_preamble() -> None:
    assert build_sections(_options(custom_prompt=""))["preamble"] == OUR_TEXTS.preamble


def test_every_section_but_preamble_is_wrapped_in_its_tag() -> None:
    sections = build_sections(_options(append_system_prompt="Be kind."))
    assert sections["addendum"] == "<addendum>\nBe kind.\n</addendum>"
    assert not sections["preamble"].startswith("<")


def test_tools_lists_only_declared_tools_with_a_snippet() -> None:
    options = _options(
        selected_tools=["read", "x", "y"],
        hidden_tools=["y"],
        tool_snippets={"x": "does x", "y": "does y"},
    )
    assert build_sections(options)["tools"] == "<tools>\n- x: does x\n\nAdditional tools may be available.\n</tools>"


def test_tools_without_snippets_is_none() -> None:
    assert build_sections(_options(selected_tools=[]))["tools"] == (
        "<tools>\n(none)\n\nAdditional tools may be available.\n</tools>"
    )


def test_rules_are_trimmed_and_deduplicated_first_wins() -> None:
    rules = build_rules(["t"], {"t": ["  a  ", "a", ""]}, ["b", "a", "   "], OUR_TEXTS)
    fixed = [f"- {rule}" for rule in OUR_TEXTS.fixed_rules]
    assert rules.split("\n") == ["- a", "- b", *fixed]


def test_caller_guideline_equal_to_a_fixed_rule_appears_once_at_caller_position() -> None:
    first_fixed = OUR_TEXTS.fixed_rules[0]
    rules = build_rules([], {}, [first_fixed, "Prefer tabs"], OUR_TEXTS).split("\n")
    assert rules == [f"- {first_fixed}", "- Prefer tabs", f"- {OUR_TEXTS.fixed_rules[1]}"]


@pytest.mark.parametrize(
    ("tools", "expected"),
    [
        (["bash"], OUR_TEXTS.exploration.bash),
        (["powershell"], OUR_TEXTS.exploration.powershell),
        (["bash", "powershell"], OUR_TEXTS.exploration.both),
    ],
)
def test_exploration_rule_names_the_declared_shells(tools: list[str], expected: str) -> None:
    assert build_rules(tools, {}, [], OUR_TEXTS).split("\n")[0] == f"- {expected}"


def test_no_exploration_rule_when_a_search_tool_is_declared() -> None:
    rules = build_rules(["bash", "ls"], {}, [], OUR_TEXTS)
    assert OUR_TEXTS.exploration.bash not in rules


def test_hidden_tools_contribute_no_guidelines() -> None:
    options = _options(selected_tools=["a", "b"], hidden_tools=["a"], tool_guidelines={"a": ["ga"], "b": ["gb"]})
    rules = build_sections(options)["rules"]
    assert "- gb" in rules
    assert "ga" not in rules


@pytest.mark.parametrize(
    ("selected", "hidden", "expected"),
    [
        (["read", "bash"], [], "read"),
        (["bash"], [], "bash"),
        (["read", "bash"], ["read"], "bash"),
        (["read"], ["read"], "indirect"),
        (["edit"], [], None),
    ],
)
def test_skill_reader_choice(selected: list[str], hidden: list[str], expected: str | None) -> None:
    declared = [t for t in selected if t not in hidden]
    assert skill_reader(selected, declared) == expected


def test_no_reader_means_no_skills_section() -> None:
    assert "skills" not in build_sections(_options(selected_tools=["edit"], skills=[_Skill("s")]))


def test_skills_section_is_the_trimmed_block() -> None:
    sections = build_sections(_options(skills=[_Skill("s")]))
    block = format_skills_for_prompt([_Skill("s")], "read")
    assert sections["skills"] == f"<skills>\n{block.strip()}\n</skills>"


def test_only_hidden_skills_means_no_skills_section() -> None:
    assert "skills" not in build_sections(_options(skills=[_Skill("s", hidden=True)]))


def test_project_context_lists_each_file_verbatim() -> None:
    options = _options(context_files=[ContextFile("/a/AGENTS.md", "one\r\n😀"), ContextFile('/b "q"/CLAUDE.md', "")])
    assert build_sections(options)["project_context"] == (
        "<project_context>\nProject-specific instructions and guidelines:\n\n"
        '<project_instructions path="/a/AGENTS.md">\none\r\n😀\n</project_instructions>\n\n'
        '<project_instructions path="/b "q"/CLAUDE.md">\n\n</project_instructions>\n</project_context>'
    )


def test_cwd_uses_forward_slashes() -> None:
    options = PromptOptions.create("C:\\x\\y", package_dir="/opt/pi")
    assert build_sections(options)["cwd"] == "<cwd>\nC:/x/y\n</cwd>"


def test_custom_section_replaces_present_builtin_in_place() -> None:
    sections = build_sections(_options(sections={"tools": "MINE"}))
    assert list(sections)[:3] == ["preamble", "tools", "rules"]
    assert sections["tools"] == "<tools>\nMINE\n</tools>"


def test_custom_section_naming_an_absent_builtin_is_appended() -> None:
    sections = build_sections(_options(custom_prompt="C", sections={"tools": "MINE"}))
    assert list(sections) == ["preamble", "cwd", "tools"]


def test_empty_custom_sections_are_skipped() -> None:
    assert "empty" not in build_sections(_options(sections={"empty": ""}))


@pytest.mark.parametrize("name", ["preamble", "Bad Name", "1abc", "_x", "ok\n", ""])
def test_invalid_section_names_raise_pi_message(name: str) -> None:
    with pytest.raises(SectionNameError) as info:
        build_sections(_options(sections={name: "x"}))
    assert str(info.value) == f"Invalid system prompt section name: {name}"


def test_integer_like_section_name_is_reported_first_like_javascript() -> None:
    with pytest.raises(SectionNameError, match=r"name: 1$"):
        build_sections(_options(sections={"Bad": "x", "1": "y"}))


def test_options_are_copied_so_caller_lists_never_leak() -> None:
    selected = ["read"]
    options = PromptOptions.create("/p", selected_tools=selected, package_dir="/opt/pi")
    selected.append("bash")
    assert options.selected_tools == ("read",)


def test_builtin_tool_prompts_fill_snippets_and_caller_wins() -> None:
    options = with_builtin_tool_prompts(_options(tool_snippets={"read": "mine"}))
    assert options.tool_snippets["read"] == "mine"
    assert options.tool_snippets["bash"] == OUR_TEXTS.tools["bash"].snippet
    assert "grep" not in options.tool_guidelines  # built-ins without guidelines register none


def test_docs_section_names_the_package_paths() -> None:
    docs = build_sections(PromptOptions.create("/p", package_dir="/opt/pi/"))["docs"]
    assert "/opt/pi/README.md" in docs
    assert "/opt/pi/docs\n" in docs
    assert "/opt/pi/examples " in docs


def test_forced_prompt_state_has_no_sections() -> None:
    state = build_prompt_state(_options(force_system_prompt="EXACT"))
    assert (state.content, state.sections) == ("EXACT", None)
    assert build_system_prompt(_options(force_system_prompt="EXACT")) == "EXACT"


def test_rendering_joins_non_empty_parts_with_blank_lines() -> None:
    assert render_prompt_text("", {"preamble": "P", "x": "", "y": None, "cwd": "<cwd>\n/\n</cwd>"}) == (
        "P\n\n<cwd>\n/\n</cwd>"
    )


def test_diff_lists_changes_in_current_order_then_removals() -> None:
    previous = {"a": "1", "b": "2", "gone": "x"}
    current = {"b": "2*", "new": "n", "a": "1"}
    patch = diff_sections(previous, current)
    assert patch == {"b": "2*", "new": "n", "gone": None}
    assert list(patch or {}) == ["b", "new", "gone"]


def test_diff_of_identical_maps_is_none() -> None:
    assert diff_sections({"a": "1"}, {"a": "1"}) is None


def test_diff_orders_integer_like_names_first() -> None:
    assert list(diff_sections({}, {"b": "B", "10": "t", "2": "two"}) or {}) == ["2", "10", "b"]
