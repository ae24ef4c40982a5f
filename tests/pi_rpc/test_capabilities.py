"""What the chat learns about the running Pi (pi_rpc/capabilities.py), against a stand-in Pi.

No Pi release on npm lacks a command the chat uses (each is checked in test_real_capabilities.py),
so the stand-in peer (tests/support/fake_pi_rpc.py, which answers ``Unknown command`` to almost
everything) is the Pi whose RPC lacks them: the probes must find that out, the features must say
what is missing, and a Pi that cannot hold a conversation must be refused with the command named.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lsp_server.chat.chat import ChatSpec
from lsp_server.chat.registry import ChatError, ChatRegistry
from lsp_server.pi_rpc import PiCommandError, PiInstallation
from lsp_server.pi_rpc.capabilities import FEATURES, PROBES, ChatCapabilities, detect, is_unknown_command
from tests.pi_rpc.conftest import Launcher


def test_every_command_a_feature_needs_is_a_known_rpc_command() -> None:
    """The table names Pi's commands as Pi 1.6.0's docs/rpc-commands.md does (a typo would read as missing)."""
    documented = {
        "prompt", "steer", "follow_up", "abort", "get_state", "get_messages", "get_fork_messages", "fork",
        "get_available_models", "set_model", "set_thinking_level", "compact", "get_commands", "get_entries",
        "switch_session",
    }  # fmt: skip
    assert {name for feature in FEATURES for name in feature.commands} <= documented
    assert set(PROBES) <= documented


async def test_probes_find_the_commands_a_pi_lacks(launcher: Launcher, peer_argv: list[str]) -> None:
    peer = await launcher.start(peer_argv, cwd=os.getcwd())
    state = peer.process.initial_state
    found = await detect(peer.process, "0.9.0", state)
    assert {name: found.command(name) for name in PROBES} == dict.fromkeys(PROBES, "missing")
    assert found.command("get_messages") == "missing"  # probed: the session is empty
    assert found.command("compact") == "assumed"  # no probe without side effects
    fork = found.feature("fork")
    assert not fork.available and fork.since == "1.0.3"
    assert fork.missing == "the `get_fork_messages` command and the `fork` command"
    assert found.feature("compact").available  # assumed until Pi says otherwise
    assert found.conversation_problem() == (
        "Pi 0.9.0 cannot hold a conversation in the chat: its RPC mode lacks the `get_messages` command "
        "(Pi 1.0.3 and later have it)"
    )


async def test_a_pi_that_cannot_converse_is_refused_with_the_missing_command(peer_argv: list[str]) -> None:
    registry = ChatRegistry()
    installation = PiInstallation(tuple(peer_argv), "0.9.0", None, "setting")
    with pytest.raises(ChatError, match=r"Pi 0\.9\.0 cannot hold a conversation.*`get_messages`"):
        await registry.start(ChatSpec(cwd=os.getcwd(), env=os.environ), installation)
    assert len(registry) == 0


async def test_a_command_pi_refuses_as_unknown_turns_its_feature_off(launcher: Launcher, peer_argv: list[str]) -> None:
    peer = await launcher.start(peer_argv, cwd=os.getcwd())
    found = ChatCapabilities.expected("1.6.0", peer.process.initial_state)
    assert found.feature("compact").available
    learned: list[str] = []

    def refused(error: PiCommandError) -> None:
        if is_unknown_command(error) and found.learn_missing(error.command):
            learned.append(error.command)

    peer.process.on_refused = refused
    with pytest.raises(PiCommandError):
        await peer.process.compact()
    with pytest.raises(PiCommandError):
        await peer.process.request({"type": "fail", "error": "compact: Unknown command: compact"})
    assert learned == ["compact"]  # only Pi's exact "Unknown command: <the command>" counts
    status = found.feature("compact")
    assert not status.available and status.missing == "the `compact` command"


def test_event_fields_follow_the_release_until_an_event_carries_them() -> None:
    old = ChatCapabilities.expected("1.0.3")
    durations = old.feature("tool-durations")
    assert not durations.available and durations.since == "1.1.0"
    assert durations.missing == "`durationMs` on `tool_execution_end`"
    # a tool that did not run has no durationMs even on a Pi that has it: absence proves nothing
    assert not old.observe({"type": "tool_execution_end", "toolCallId": "c"})
    assert old.observe({"type": "tool_execution_end", "toolCallId": "c", "durationMs": 3})
    assert old.feature("tool-durations").available
    assert not old.observe({"type": "tool_execution_end", "toolCallId": "d", "durationMs": 4})  # no news
    assert ChatCapabilities.expected("1.3.0").feature("tool-durations").available


def test_state_fields_a_feature_reads_must_be_in_get_state() -> None:
    found = ChatCapabilities.expected("1.6.0", {"model": {}, "sessionFile": "/s.jsonl"})
    thinking = found.feature("thinking")
    assert not thinking.available and thinking.missing == "`thinkingLevel` in get_state"
    assert found.feature("models").available


def test_the_wire_form_lists_every_feature_in_table_order(tmp_path: Path) -> None:
    wire = ChatCapabilities.expected("1.5.2", {"model": {}, "thinkingLevel": "off"}).to_json()
    assert [f["id"] for f in wire["features"]] == [f.id for f in FEATURES]
    assert all(f["available"] for f in wire["features"])
    assert wire["stateFields"] == ["model", "thinkingLevel"] and wire["piVersion"] == "1.5.2"


async def test_a_chat_says_once_when_pi_turns_out_to_lack_a_command(peer_argv: list[str]) -> None:
    """The chat runs on (this Pi holds a conversation); the command Pi refused as unknown turns its feature off."""
    registry = ChatRegistry()
    installation = PiInstallation((*peer_argv, "--knows", "get_messages"), "0.9.0", None, "setting")
    chat = await registry.start(ChatSpec(cwd=os.getcwd(), env=os.environ), installation)
    said: list[str] = []
    chat.on_capabilities_changed = lambda _chat, reason: said.append(reason)
    try:
        assert chat.capabilities.conversation_problem() is None and chat.capabilities.feature("compact").available
        for _ in range(2):
            with pytest.raises(PiCommandError, match="Unknown command: compact"):
                await chat.compact()
        assert said == ["Pi 0.9.0 has no `compact` command"]  # once
        assert chat.capabilities.feature("compact").missing == "the `compact` command"
    finally:
        await registry.stop_all()
