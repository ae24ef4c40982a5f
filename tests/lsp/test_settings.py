"""Settings reach the server from initializationOptions, workspace/configuration and pushes."""

from __future__ import annotations

from lsprotocol import types

from tests.lsp.conftest import Launch, Session


def logged(session: Session, text: str) -> bool:
    return any(text in message.message for message in session.client.log_messages)


async def change_configuration(session: Session, settings: object) -> None:
    """Send didChangeConfiguration and wait for the server to log that it applied it."""
    before = sum("settings applied" in m.message for m in session.client.log_messages)
    session.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=settings))
    await session.wait_for(
        types.WINDOW_LOG_MESSAGE,
        lambda: sum("settings applied" in m.message for m in session.client.log_messages) > before,
    )


async def test_initialization_options_set_the_settings(launch: Launch, client_name: str) -> None:
    session = await launch(client_name, init_options={"piContext": {"ruleProfile": "agentskills", "debounceMs": 40}})
    settings = (await session.state())["settings"]
    assert (settings["ruleProfile"], settings["debounceMs"]) == ("agentskills", 40)


async def test_workspace_configuration_overrides_initialization_options(launch: Launch, client_name: str) -> None:
    session = await launch(
        client_name,
        init_options={"ruleProfile": "agentskills", "tokens": {"modelFamily": "claude"}},
        configuration={"piContext": {"ruleProfile": "vscode"}},
    )
    settings = (await session.state())["settings"]
    assert (settings["ruleProfile"], settings["tokens"]["modelFamily"]) == ("vscode", "claude")


async def test_change_notification_without_settings_pulls_them_again(launch: Launch, client_name: str) -> None:
    session = await launch(client_name, configuration={"piContext": {"ruleProfile": "pi"}})
    assert (await session.state())["settings"]["ruleProfile"] == "pi"
    session.client.set_configuration({"piContext": {"ruleProfile": "agentskills"}})
    await change_configuration(session, None)
    assert (await session.state())["settings"]["ruleProfile"] == "agentskills"


async def test_pushed_settings_are_used_as_sent(launch: Launch, client_name: str) -> None:
    session = await launch(client_name)
    await session.state()
    await change_configuration(session, {"piContext": {"debounceMs": 25, "agentDir": "/tmp/pi-agent"}})
    state = await session.state()
    assert (state["settings"]["debounceMs"], state["agentDir"]) == (25, "/tmp/pi-agent")
    assert state["watcher"]["debounceMs"] == 25  # the watcher restarted with the new debounce


async def test_a_relative_agent_dir_is_relative_to_the_workspace_folder(launch: Launch, client_name: str) -> None:
    """As the CLI resolves it (the project's folder), not against the server's own working directory."""
    session = await launch(client_name, configuration={"piContext": {"agentDir": "team-agent"}})
    state = await session.state()
    assert state["agentDir"] == str(session.workspace.root / "team-agent")


async def test_a_bad_value_is_logged_and_its_default_kept(launch: Launch, client_name: str) -> None:
    session = await launch(client_name, init_options={"debounceMs": "soon", "ruleProfile": "agentskills"})
    state = await session.state()
    assert (state["settings"]["debounceMs"], state["settings"]["ruleProfile"]) == (300, "agentskills")
    warnings = [m for m in session.client.log_messages if m.type == types.MessageType.Warning]
    assert any(m.message.startswith("settings: piContext.debounceMs:") for m in warnings)


async def test_vs_code_is_asked_to_send_configuration_changes(launch: Launch) -> None:
    session = await launch("visual-studio-code")
    await session.state()  # initialized has finished
    methods = [(r.method, r.register_options) for r in session.client.registrations]
    assert (types.WORKSPACE_DID_CHANGE_CONFIGURATION, {"section": "piContext"}) in methods


async def test_neovim_07_without_workspace_configuration_takes_pushed_settings(launch: Launch) -> None:
    """Debian's Neovim 0.7 cannot answer workspace/configuration: it pushes its settings."""
    session = await launch("neovim@v0.7.0", init_options={"ruleProfile": "agentskills"})
    await session.state()
    await change_configuration(session, {"piContext": {"tokens": {"modelFamily": "claude"}}})
    settings = (await session.state())["settings"]
    assert (settings["ruleProfile"], settings["tokens"]["modelFamily"]) == ("agentskills", "claude")
