"""Completion per rule: keys for the profile, boolean values, a name from the folder, nothing outside."""

from __future__ import annotations

from lsp_server.base.findings import Position, Range
from lsp_server.editing.completions import Completion, completions_at
from tests.editing.conftest import Skills


def complete(
    skills: Skills,
    text: str,
    line: int,
    column: int,
    profile: str = "pi",
    folder: str = "pdf-tools",
    name: str = "SKILL.md",
) -> list[Completion]:
    path = skills.write(text, folder=folder, name=name)
    return completions_at(str(path), text, Position(line, column), profile)


def labels(items: list[Completion]) -> list[str]:
    return [item.label for item in items]


def test_keys_already_present_are_not_offered(skills: Skills) -> None:
    items = complete(skills, "---\nname: x\n\n---\n", 2, 0, "agentskills")
    assert labels(items) == ["description", "license", "compatibility", "metadata", "allowed-tools"]


def test_the_key_being_typed_replaces_the_word_and_adds_the_colon(skills: Skills) -> None:
    (item, *_) = complete(skills, "---\nna\n---\n", 1, 1, "vscode")
    assert (item.label, item.range, item.text) == ("name", Range(Position(1, 0), Position(1, 2)), "name: ")


def test_editing_a_key_before_its_colon_does_not_add_another(skills: Skills) -> None:
    items = complete(skills, "---\nlicen: MIT\n---\n", 1, 3, "vscode")
    item = next(i for i in items if i.label == "license")
    assert (item.text, item.snippet, item.range.end) == ("license", None, Position(1, 5))


def test_boolean_keys_insert_a_choice_snippet(skills: Skills) -> None:
    item = next(i for i in complete(skills, "---\n\n---\n", 1, 0) if i.label == "user-invocable")
    assert item.snippet == "user-invocable: ${1|true,false|}"


def test_nested_lines_get_no_key_completions(skills: Skills) -> None:
    assert complete(skills, "---\nmetadata:\n  \n---\n", 2, 2) == []


def test_boolean_values_are_true_and_false_only(skills: Skills) -> None:
    items = complete(skills, "---\nuser-invocable: \n---\n", 1, 16, "claude-code")
    assert labels(items) == ["true", "false"] and items[0].preselect


def test_right_after_the_colon_a_space_is_inserted(skills: Skills) -> None:
    (first, _) = complete(skills, "---\ndisable-model-invocation:\n---\n", 1, 25)
    assert (first.text, first.range) == (" true", Range(Position(1, 25), Position(1, 25)))


def test_a_value_documents_what_it_does_in_pi(skills: Skills) -> None:
    (first, _) = complete(skills, "---\ndisable-model-invocation: \n---\n", 1, 26)
    assert first.documentation.startswith("`true`: Pi leaves this skill out of the skill listing")


def test_an_enumerated_key_offers_its_values(skills: Skills) -> None:
    assert labels(complete(skills, "---\ncontext: f\n---\n", 1, 10, "claude-code")) == ["fork"]


def test_name_offers_the_folder_name(skills: Skills) -> None:
    items = complete(skills, "---\nname: \n---\n", 1, 6)
    assert [(i.label, i.detail) for i in items] == [("pdf-tools", "the folder name")]


def test_an_invalid_folder_name_is_offered_made_valid_then_as_written(skills: Skills) -> None:
    items = complete(skills, "---\nname: \n---\n", 1, 6, folder="PDF Tools")
    assert labels(items) == ["pdf-tools", "PDF Tools"]


def test_a_loose_skill_is_offered_its_file_name(skills: Skills) -> None:
    items = complete(skills, "---\nname: \n---\n", 1, 6, folder=".pi/skills", name="Helper.md")
    assert labels(items) == ["helper"]


def test_free_text_values_get_nothing(skills: Skills) -> None:
    assert complete(skills, "---\ndescription: \n---\n", 1, 13) == []


def test_nothing_outside_the_frontmatter(skills: Skills) -> None:
    assert complete(skills, "---\nname: x\n---\nna\n", 3, 2) == []
    assert complete(skills, "---\nname: x\n---\n", 0, 3) == []
    assert complete(skills, "Body\nna\n", 1, 2) == []


def test_an_unclosed_frontmatter_completes_until_the_first_blank_line(skills: Skills) -> None:
    assert "description" in labels(complete(skills, "---\nname: x\nde\n\nbody\n", 2, 2))
    assert complete(skills, "---\nname: x\n\nde\n", 3, 2) == []
