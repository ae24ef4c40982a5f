"""Completion inside SKILL.md frontmatter through the real server, in both recorded clients."""

from __future__ import annotations

from lsprotocol import types
from pytest_lsp import client_capabilities

from tests.lsp.conftest import Launch, Session
from tests.lsp.editing_client import apply_text_edits, encoding_of, position_of

SKILL = ".pi/skills/pdf-tools/SKILL.md"


async def complete(
    session: Session, text: str, line: int, column: int, trigger: str | None = None
) -> list[types.CompletionItem]:
    file = session.workspace.write(SKILL, text)
    session.open(file, text)
    context = (
        types.CompletionContext(trigger_kind=types.CompletionTriggerKind.TriggerCharacter, trigger_character=trigger)
        if trigger
        else types.CompletionContext(trigger_kind=types.CompletionTriggerKind.Invoked)
    )
    params = types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=session.workspace.uri(file)),
        position=position_of(text, line, column, encoding_of(session)),
        context=context,
    )
    result = await session.client.text_document_completion_async(params)
    if result is None:
        return []
    return list(result.items if isinstance(result, types.CompletionList) else result)


def accept(session: Session, text: str, item: types.CompletionItem) -> str:
    assert isinstance(item.text_edit, types.TextEdit)
    return apply_text_edits(text, [item.text_edit], encoding_of(session))


async def test_the_colon_is_a_trigger_character(launch: Launch) -> None:
    session = await launch("visual-studio-code")
    provider = session.initialize_result.capabilities.completion_provider
    assert provider is not None and list(provider.trigger_characters or []) == [":"]


async def test_key_names_for_the_pi_profile_start_with_pis_own(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    text = "---\nname: pdf-tools\nde\n---\n"
    items = await complete(session, text, 2, 2)
    labels = [item.label for item in sorted(items, key=lambda i: i.sort_text or "")]
    assert labels[:2] == ["description", "disable-model-invocation"] and "name" not in labels
    description = next(item for item in items if item.label == "description")
    assert description.kind == types.CompletionItemKind.Property
    assert isinstance(description.documentation, types.MarkupContent) and "**Pi**" in description.documentation.value
    assert description.insert_text_format == types.InsertTextFormat.Snippet  # the cursor lands after "key: "
    assert accept(session, text, description) == "---\nname: pdf-tools\ndescription: $0\n---\n"


async def test_key_names_follow_the_rule_profile(launch: Launch) -> None:
    session = await launch("neovim", init_options={"piContext": {"ruleProfile": "agentskills"}})
    items = await complete(session, "---\n\n---\n", 1, 0)
    assert [item.label for item in items] == [
        "name",
        "description",
        "license",
        "compatibility",
        "metadata",
        "allowed-tools",
    ]


async def test_boolean_values_after_the_colon_are_true_and_false_only(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    text = "---\ndescription: d\ndisable-model-invocation:\n---\n"
    items = await complete(session, text, 2, 25, trigger=":")
    assert [item.label for item in items] == ["true", "false"]
    assert accept(session, text, items[0]) == "---\ndescription: d\ndisable-model-invocation: true\n---\n"


async def test_the_folder_name_is_offered_for_name(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    text = "---\nname: p\n---\n"
    (item,) = await complete(session, text, 1, 7)
    assert item.label == "pdf-tools" and accept(session, text, item) == "---\nname: pdf-tools\n---\n"


async def test_completion_counts_columns_in_the_clients_encoding(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    text = "---\ndescription: 😀\ndisable-model-invocation: f\n---\n"
    (item,) = [i for i in await complete(session, text, 2, 27) if i.label == "false"]
    assert accept(session, text, item) == "---\ndescription: 😀\ndisable-model-invocation: false\n---\n"


async def test_nothing_to_complete_in_the_body(launch: Launch) -> None:
    session = await launch("visual-studio-code")
    assert await complete(session, "---\nname: pdf-tools\n---\nna\n", 3, 2) == []


async def test_a_client_without_snippets_gets_plain_text(launch: Launch) -> None:
    capabilities = client_capabilities("visual-studio-code")
    assert capabilities.text_document is not None and capabilities.text_document.completion is not None
    item_caps = capabilities.text_document.completion.completion_item
    assert item_caps is not None
    item_caps.snippet_support = False
    session = await launch("visual-studio-code", capabilities=capabilities)
    text = "---\ndisable\n---\n"
    (item,) = [i for i in await complete(session, text, 1, 7) if i.label == "disable-model-invocation"]
    assert item.insert_text_format == types.InsertTextFormat.PlainText
    assert accept(session, text, item) == "---\ndisable-model-invocation: \n---\n"
