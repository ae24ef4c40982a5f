"""The skills block (pi-behavior.md §5.7): Pi's XML and escaping, our introduction."""

from __future__ import annotations

from dataclasses import dataclass

from lsp_server.prompt.skills_block import escape_xml, format_skills_for_prompt
from lsp_server.prompt.texts import OUR_TEXTS


@dataclass(frozen=True)
class _Skill:
    name: str
    description: str = "d"
    file_path: str = "/s/SKILL.md"
    disable_model_invocation: bool = False


def test_no_skills_is_empty() -> None:
    assert format_skills_for_prompt([]) == ""


def test_only_hidden_skills_is_empty() -> None:
    assert format_skills_for_prompt([_Skill("h", disable_model_invocation=True)]) == ""


def test_block_starts_with_two_newlines_and_our_three_intro_lines() -> None:
    lines = format_skills_for_prompt([_Skill("a")], "read").split("\n")
    assert lines[:6] == [
        "",
        "",
        OUR_TEXTS.skills.intro,
        OUR_TEXTS.skills.reader_lines["read"],
        OUR_TEXTS.skills.paths,
        "",
    ]


def test_available_skills_structure_is_exact() -> None:
    text = format_skills_for_prompt([_Skill("a", "Does A.", "/x/a/SKILL.md")])
    assert text.split("\n", 6)[6] == (
        "<available_skills>\n"
        "  <skill>\n"
        "    <name>a</name>\n"
        "    <description>Does A.</description>\n"
        "    <location>/x/a/SKILL.md</location>\n"
        "  </skill>\n"
        "</available_skills>"
    )


def test_hidden_skills_are_left_out_and_order_is_kept() -> None:
    text = format_skills_for_prompt([_Skill("b"), _Skill("h", disable_model_invocation=True), _Skill("a")])
    assert text.count("<skill>") == 2
    assert text.index("<name>b</name>") < text.index("<name>a</name>")


def test_escape_order_ampersand_first() -> None:
    assert escape_xml('&lt; <a href="x">\'</a> &') == "&amp;lt; &lt;a href=&quot;x&quot;&gt;&apos;&lt;/a&gt; &amp;"


def test_name_description_and_location_are_escaped_and_newlines_kept() -> None:
    text = format_skills_for_prompt([_Skill("a&b", "one\n<two>", "/p/'q'/SKILL.md")])
    assert "<name>a&amp;b</name>" in text
    assert "<description>one\n&lt;two&gt;</description>" in text
    assert "<location>/p/&apos;q&apos;/SKILL.md</location>" in text


def test_reader_line_per_reader_and_unknown_reads_as_indirect() -> None:
    for reader in ("read", "bash", "indirect"):
        assert OUR_TEXTS.skills.reader_lines[reader] in format_skills_for_prompt([_Skill("a")], reader)
    assert OUR_TEXTS.skills.reader_lines["indirect"] in format_skills_for_prompt([_Skill("a")], "grep")
