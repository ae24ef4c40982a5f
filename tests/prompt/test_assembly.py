"""Assembly: sections with their source files and token counts, from explicit inputs and from disk."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from lsp_server.context.model import ContextFile
from lsp_server.context.resources import ResourceOptions, load_resources
from lsp_server.js.strings import js_len
from lsp_server.prompt.assembly import (
    PromptInputs,
    SourcedText,
    assemble_prompt,
    inputs_from_resources,
    resolve_default_tools,
)
from lsp_server.prompt.sections import build_system_prompt
from lsp_server.tokens.counter import PiCounter, WeightedCounter


@dataclass(frozen=True)
class _Skill:
    name: str
    file_path: str
    disable_model_invocation: bool = False
    description: str = "does things"


def _inputs(**kwargs: object) -> PromptInputs:
    return PromptInputs(cwd="/p", package_dir="/opt/pi", **kwargs)  # type: ignore[arg-type]


def test_sections_name_their_source_files() -> None:
    inputs = _inputs(
        system_prompt=SourcedText("You are Bob.", "/p/.pi/SYSTEM.md"),
        append=(SourcedText("One.", "/p/.pi/APPEND_SYSTEM.md"), SourcedText("Two.")),
        context_files=(ContextFile("/AGENTS.md", "a"), ContextFile("/p/AGENTS.md", "b")),
        skills=(_Skill("s", "/s/SKILL.md"), _Skill("h", "/h/SKILL.md", disable_model_invocation=True)),
    )
    sources = {s.name: (s.origin, s.sources) for s in assemble_prompt(inputs).sections}
    assert sources == {
        "preamble": ("custom prompt", ("/p/.pi/SYSTEM.md",)),
        "addendum": ("append", ("/p/.pi/APPEND_SYSTEM.md",)),
        "project_context": ("context files", ("/AGENTS.md", "/p/AGENTS.md")),
        "skills": ("skills", ("/s/SKILL.md",)),
        "cwd": ("cwd", ()),
    }


def test_append_texts_are_joined_with_a_blank_line() -> None:
    assembled = assemble_prompt(_inputs(append=(SourcedText("One."), SourcedText("Two."))))
    assert assembled.section_map()["addendum"] == "<addendum>\nOne.\n\nTwo.\n</addendum>"


def test_default_prompt_uses_builtin_tool_lines() -> None:
    assembled = assemble_prompt(_inputs())
    assert [s.origin for s in assembled.sections if s.name in ("preamble", "tools", "rules", "docs")] == ["default"] * 4
    assert "- read: " in assembled.section_map()["tools"]


def test_custom_section_overriding_a_builtin_is_reported_as_custom() -> None:
    assembled = assemble_prompt(_inputs(custom_sections={"tools": "mine"}))
    assert next(s for s in assembled.sections if s.name == "tools").origin == "custom section"


def test_each_section_has_pi_and_counter_tokens() -> None:
    assembled = assemble_prompt(_inputs(), WeightedCounter("claude"))
    for section in assembled.sections:
        assert section.pi_tokens == math.ceil(js_len(section.text) / 4)
        assert section.tokens == WeightedCounter("claude").count(section.text)
    assert assembled.counter == "weighted:claude"


def test_total_pi_tokens_is_the_system_message_estimate() -> None:
    """Pi estimates a system message from the summed section lengths, without the blank lines between."""
    assembled = assemble_prompt(_inputs(), PiCounter())
    section_chars = sum(js_len(s.text) for s in assembled.sections)
    assert assembled.pi_tokens == math.ceil(section_chars / 4)
    assert assembled.tokens == math.ceil(js_len(assembled.text) / 4)


def test_text_is_the_rendered_prompt() -> None:
    inputs = _inputs(context_files=(ContextFile("/p/AGENTS.md", "x"),))
    assert assemble_prompt(inputs).text == build_system_prompt(inputs.prompt_options())


def test_forced_prompt_replaces_the_text_but_sections_stay_listed() -> None:
    assembled = assemble_prompt(_inputs(force_system_prompt="EXACT"))
    assert (assembled.text, assembled.forced) == ("EXACT", True)
    assert "cwd" in assembled.section_map()
    assert assembled.pi_tokens == 2


def test_json_has_sections_and_total() -> None:
    out = assemble_prompt(_inputs()).to_json()
    assert out["sections"][0]["name"] == "preamble"
    assert set(out["total"]) == {"chars", "piTokens", "tokens"}


def test_default_tools_rules() -> None:
    assert resolve_default_tools(None) == ("read", "bash", "edit", "write")
    assert resolve_default_tools([]) == ()
    assert resolve_default_tools(["+grep", "-bash", "-nope", "+read"]) == ("read", "edit", "write", "grep")
    assert resolve_default_tools(["read", "+ls"]) == ("read", "ls")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_inputs_from_loaded_resources(tmp_path: Path) -> None:
    cwd, agent = tmp_path / "proj", tmp_path / "agent"
    _write(cwd / "AGENTS.md", "Use tabs.")
    _write(cwd / ".pi" / "SYSTEM.md", "You are the project bot.")
    _write(cwd / ".pi" / "APPEND_SYSTEM.md", "Answer in French.")
    _write(agent / "settings.json", '{"defaultTools": ["+grep"]}')
    resources = load_resources(
        ResourceOptions(cwd=str(cwd), agent_dir=str(agent), project_trusted=True, home=str(tmp_path / "home"))
    )
    inputs = inputs_from_resources(resources, package_dir="/opt/pi")
    assert inputs.selected_tools == ("read", "bash", "edit", "write", "grep")
    sections = {s.name: s for s in assemble_prompt(inputs).sections}
    assert sections["preamble"].text == "You are the project bot."
    assert sections["preamble"].sources == (str(cwd / ".pi" / "SYSTEM.md"),)
    assert sections["addendum"].sources == (str(cwd / ".pi" / "APPEND_SYSTEM.md"),)
    assert sections["project_context"].sources == (str(cwd / "AGENTS.md"),)
    assert sections["cwd"].text == f"<cwd>\n{cwd}\n</cwd>"


def test_a_skill_nested_thousands_deep_leaves_the_prompt_with_a_limit_warning(tmp_path: Path) -> None:
    # Issue 12: 2,000 nested "[" took 16 s and surfaced a RecursionError through the prompt path.
    cwd, agent = tmp_path / "proj", tmp_path / "agent"
    _write(cwd / ".pi" / "skills" / "deep" / "SKILL.md", "---\ndescription: d\nx: " + "[" * 2000 + "\n---\n")
    _write(cwd / ".pi" / "skills" / "fine" / "SKILL.md", "---\ndescription: Does fine things.\n---\nBody\n")
    resources = load_resources(
        ResourceOptions(cwd=str(cwd), agent_dir=str(agent), project_trusted=True, home=str(tmp_path / "home"))
    )
    assert [skill.name for skill in resources.skills] == ["fine"]
    (warning,) = [d.message for d in resources.skill_diagnostics]
    assert warning.startswith("Collections nested more than 100 deep (pi-context stops at this limit) at line 2")
    skills = assemble_prompt(inputs_from_resources(resources, package_dir="/opt/pi")).section_map()["skills"]
    assert "<name>fine</name>" in skills and "deep" not in skills
