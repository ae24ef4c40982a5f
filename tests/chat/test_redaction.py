"""Which values a chat's Pi may authenticate with, and their removal from what the server relays.

Each source on its own (the environment, models.json literal / ``$VAR`` / headers, auth.json), so a
key the chat test finds in one place is not only found because it is also in another.
"""

from __future__ import annotations

import json
from pathlib import Path

from lsp_server.chat.redaction import DeltaRedactor, pi_secrets
from lsp_server.redaction import Redactor

KEY = "sk-canary-0123456789abcdef"
OTHER = "tok-canary-fedcba9876543210"


def revealed(env: dict[str, str], agent: Path, extra: tuple[str, ...] = ()) -> set[str]:
    return {secret.reveal() for secret in pi_secrets(env, str(agent), extra)}


def test_credential_variables_of_the_environment_and_nothing_else(tmp_path: Path) -> None:
    env = {"ANTHROPIC_API_KEY": KEY, "GITHUB_TOKEN": OTHER, "HOME": "/home/someone-long", "SHORT_KEY": "abc"}
    assert revealed(env, tmp_path) == {KEY, OTHER}


def test_models_json_literals_variables_and_headers(tmp_path: Path) -> None:
    models = {
        "providers": {
            "a": {"apiKey": KEY, "models": [{"id": "m", "headers": {"X-Org": "org-canary-424242"}}]},
            "b": {"apiKey": "$MY_VAR", "headers": {"Authorization": "Bearer ${MY_HEADER_VAR}"}},
            "c": {"apiKey": "!op read op://vault/key"},
            "d": {"apiKey": "PLAIN_NAME"},
        }
    }
    (tmp_path / "models.json").write_text("// a comment\n" + json.dumps(models), encoding="utf-8")
    env = {"MY_VAR": OTHER, "MY_HEADER_VAR": "hdr-canary-1234567", "PLAIN_NAME": "plain-canary-7654321"}
    found = revealed(env, tmp_path)
    assert {KEY, "org-canary-424242", OTHER, "hdr-canary-1234567", "plain-canary-7654321"} <= found
    assert "Bearer hdr-canary-1234567" in found
    assert "PLAIN_NAME" not in found and not any(v.startswith("!") for v in found)  # names and commands stay


def test_auth_json_keys_tokens_and_their_env(tmp_path: Path) -> None:
    auth = {
        "anthropic": {"type": "api_key", "key": KEY},
        "openai": {"type": "oauth", "access": OTHER, "refresh": "refresh-canary-99", "expires": 1},
        "custom": {"type": "api_key", "key": "$OWN", "env": {"OWN": "own-canary-123456"}},
    }
    (tmp_path / "auth.json").write_text(json.dumps(auth), encoding="utf-8")
    assert revealed({}, tmp_path) >= {KEY, OTHER, "refresh-canary-99", "own-canary-123456"}
    assert "api_key" not in revealed({}, tmp_path)


def test_unreadable_files_and_extra_values(tmp_path: Path) -> None:
    (tmp_path / "models.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "auth.json").mkdir()
    assert revealed({}, tmp_path, (KEY,)) == {KEY}


def test_redaction_replaces_every_occurrence_and_keeps_untouched_values_as_they_are(tmp_path: Path) -> None:
    redactor = Redactor(pi_secrets({"A_API_KEY": KEY}, str(tmp_path)))
    event = {"type": "auto_retry_start", "errorMessage": f"401: bad key {KEY} ({KEY[:-1]}!) {KEY[3:11]}", "n": 1}
    assert redactor.value(event) == {"type": "auto_retry_start", "errorMessage": "401: bad key *** (***!) ***", "n": 1}
    clean = {"type": "message_update", "message": {"content": [{"type": "text", "text": "hello"}]}}
    assert redactor.value(clean) is clean  # nothing to replace: the same object, no copy


def _delta(text: str, index: int = 0, kind: str = "text_delta") -> dict[str, object]:
    return {"type": "message_update", "assistantMessageEvent": {"type": kind, "contentIndex": index, "delta": text}}


def _relayed(redactor: DeltaRedactor, pieces: list[str], index: int = 0, kind: str = "text_delta") -> list[str]:
    out = []
    for piece in pieces:
        event = redactor.redact(_delta(piece, index, kind))
        update = event["assistantMessageEvent"]
        assert isinstance(update, dict)
        out.append(update["delta"])
    return out


def test_a_key_streamed_in_pieces_never_leaves_whole_or_in_part() -> None:
    """No single delta holds the key, so a per-record redaction lets it through; the joined stream must not."""
    redactor = Redactor(pi_secrets({"A_API_KEY": KEY}, "/nonexistent"))
    text = f"Found s and sk- in .env: {KEY}, and again {KEY}. Done"
    whole = redactor.text(text)
    assert whole == text.replace(KEY, "***")
    for size in (1, 3, 5, 16):
        deltas = DeltaRedactor(redactor)
        pieces = [text[i : i + size] for i in range(0, len(text), size)]
        relayed = "".join(_relayed(deltas, pieces))
        # Only a short end is held: 7 characters past the key's provider prefix ("sk-") at most.
        assert whole.startswith(relayed) and len(whole) - len(relayed) <= redactor.index.hold, (size, relayed)
        assert not any(KEY[i : i + 8] in relayed for i in range(len(KEY) - 7))


def test_streams_are_joined_per_block_and_an_end_held_at_a_blocks_end_is_dropped() -> None:
    deltas = DeltaRedactor(Redactor(pi_secrets({"A_API_KEY": KEY}, "/nonexistent")))
    # Two blocks interleaved (thinking and a tool call's arguments): each joins only its own pieces.
    assert _relayed(deltas, ['{"k":"', KEY[:11]], 1, "toolcall_delta") == ['{"k":"', ""]
    assert _relayed(deltas, [KEY[:11]], 0, "thinking_delta") == [""]
    assert _relayed(deltas, [KEY[11:] + '"}'], 1, "toolcall_delta") == ['***"}']
    # 8 characters of the key past its "sk-" prefix: not passed on
    assert _relayed(deltas, ["!"], 0, "thinking_delta") == ["***!"]
    # The block's end brings its whole content (redacted as a value): what was held is not sent again.
    assert _relayed(deltas, ["sk-can"]) == [""]
    deltas.redact({"type": "message_update", "assistantMessageEvent": {"type": "text_end", "contentIndex": 0}})
    assert _relayed(deltas, ["{next}"]) == ["{next}"]
    plain = _delta("nothing secret here.")
    assert deltas.redact(plain) is plain  # unchanged: the same event, no copy
    assert DeltaRedactor(Redactor()).redact(_delta(KEY)) == _delta(KEY)  # no keys known: nothing to do


def test_pis_records_are_redacted_once_as_they_come_in_so_the_run_log_keeps_no_key() -> None:
    """What a view attaching later is replayed (the chat's run log) is what a live view got: the whole record
    redacted where it enters the server, not again on its way out."""
    from lsp_server.chat.chat import Chat, ChatSpec
    from lsp_server.pi_rpc import PiInstallation

    spec = ChatSpec(cwd="/nonexistent", env={}, secrets=pi_secrets({"A_API_KEY": KEY}, "/nonexistent"))
    relayed: list[dict[str, object]] = []
    chat = Chat("1", spec, PiInstallation(("pi",), "1.6.0", None, "PATH"))
    chat._on_event = lambda _chat, event: relayed.append(event)
    chat._event({"type": "auto_retry_start", "errorMessage": f"401 Incorrect API key provided: {KEY}"})
    chat._event(
        {
            "type": "message_update",
            "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0, "delta": KEY[:11]},
        }
    )
    chat._event(
        {
            "type": "message_update",
            "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0, "delta": KEY[11:] + "."},
        }
    )
    kept = json.dumps(chat.run.items())
    assert "401 Incorrect API key provided: ***" in kept and not any(
        KEY[i : i + 8] in kept for i in range(len(KEY) - 7)
    )
    assert json.dumps(relayed) == json.dumps(chat.run.items())
