"""Typed helpers for the RPC commands the chat sends (Pi's ``docs/rpc-commands.md``).

Each helper builds one command and returns the part of the response a caller uses, as Pi wrote it
(dicts are Pi's own objects, never reshaped). Anything else goes through ``request(dict)``. The
helpers live apart from the process so the list of commands reads as one table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, cast

from lsp_server.pi_rpc.errors import PiProtocolError

JsonObject = dict[str, Any]
Disposition = Literal["started", "queued", "handled"]
StreamingBehavior = Literal["steer", "followUp"]
ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]


class PiCommands:
    """Mixed into :class:`~lsp_server.pi_rpc.process.PiRpcProcess`; needs ``request`` and ``send``."""

    async def request(self, command: Mapping[str, Any], *, timeout: float | None = None) -> Any:
        raise NotImplementedError

    async def send(self, record: Mapping[str, Any]) -> None:
        raise NotImplementedError

    # -- prompting -------------------------------------------------------------------------------

    async def prompt(
        self,
        message: str,
        *,
        images: Sequence[Mapping[str, Any]] | None = None,
        streaming_behavior: StreamingBehavior | None = None,
        timeout: float | None = None,
    ) -> Disposition:
        """Returns once Pi accepted the prompt; the run itself streams as events until ``agent_settled``.

        While Pi is streaming, ``streaming_behavior`` is required (Pi refuses the prompt otherwise).
        """
        command: JsonObject = {"type": "prompt", "message": message}
        if images:
            command["images"] = [dict(image) for image in images]
        if streaming_behavior is not None:
            command["streamingBehavior"] = streaming_behavior
        return _disposition(await self.request(command, timeout=timeout), "prompt")

    async def steer(
        self, message: str, *, images: Sequence[Mapping[str, Any]] | None = None, timeout: float | None = None
    ) -> Disposition:
        """Queued for delivery after the current turn's tool calls, before the next model call."""
        command: JsonObject = {"type": "steer", "message": message}
        if images:
            command["images"] = [dict(image) for image in images]
        return _disposition(await self.request(command, timeout=timeout), "steer")

    async def follow_up(
        self, message: str, *, images: Sequence[Mapping[str, Any]] | None = None, timeout: float | None = None
    ) -> Disposition:
        """Queued until the agent has nothing else to do."""
        command: JsonObject = {"type": "follow_up", "message": message}
        if images:
            command["images"] = [dict(image) for image in images]
        return _disposition(await self.request(command, timeout=timeout), "follow_up")

    async def abort(self, *, timeout: float | None = None) -> None:
        """Pi answers once the session is idle again (after the run's ``agent_settled``)."""
        await self.request({"type": "abort"}, timeout=timeout)

    async def clear_queue(self, *, timeout: float | None = None) -> JsonObject:
        """Removes queued steering/follow-up messages; returns their texts (``steering``, ``followUp``)."""
        return _object(await self.request({"type": "clear_queue"}, timeout=timeout), "clear_queue")

    # -- state -----------------------------------------------------------------------------------

    async def get_state(self, *, timeout: float | None = None) -> JsonObject:
        return _object(await self.request({"type": "get_state"}, timeout=timeout), "get_state")

    async def get_messages(self, *, timeout: float | None = None) -> list[JsonObject]:
        data = _object(await self.request({"type": "get_messages"}, timeout=timeout), "get_messages")
        return _list(data, "messages", "get_messages")

    async def get_entries(self, since: str | None = None, *, timeout: float | None = None) -> JsonObject:
        """``{"entries": [...], "leafId": ...}``: entries strictly after ``since`` (an entry id), in file order."""
        command: JsonObject = {"type": "get_entries"}
        if since is not None:
            command["since"] = since
        return _object(await self.request(command, timeout=timeout), "get_entries")

    async def get_session_stats(self, *, timeout: float | None = None) -> JsonObject:
        return _object(await self.request({"type": "get_session_stats"}, timeout=timeout), "get_session_stats")

    async def get_commands(self, *, timeout: float | None = None) -> list[JsonObject]:
        data = _object(await self.request({"type": "get_commands"}, timeout=timeout), "get_commands")
        return _list(data, "commands", "get_commands")

    async def get_fork_messages(self, *, timeout: float | None = None) -> list[JsonObject]:
        """User messages of the active branch a fork can start from: ``{"entryId", "text"}``."""
        data = _object(await self.request({"type": "get_fork_messages"}, timeout=timeout), "get_fork_messages")
        return _list(data, "messages", "get_fork_messages")

    # -- model -----------------------------------------------------------------------------------

    async def set_model(self, provider: str, model_id: str, *, timeout: float | None = None) -> JsonObject:
        """Returns Pi's full model object."""
        command = {"type": "set_model", "provider": provider, "modelId": model_id}
        return _object(await self.request(command, timeout=timeout), "set_model")

    async def get_available_models(self, *, timeout: float | None = None) -> list[JsonObject]:
        data = _object(await self.request({"type": "get_available_models"}, timeout=timeout), "get_available_models")
        return _list(data, "models", "get_available_models")

    async def set_thinking_level(self, level: ThinkingLevel, *, timeout: float | None = None) -> None:
        await self.request({"type": "set_thinking_level", "level": level}, timeout=timeout)

    # -- compaction and sessions -------------------------------------------------------------------

    async def set_session_name(self, name: str, *, timeout: float | None = None) -> None:
        """Pi appends a ``session_info`` entry naming the session (it refuses an empty name)."""
        await self.request({"type": "set_session_name", "name": name}, timeout=timeout)

    async def compact(self, custom_instructions: str | None = None, *, timeout: float | None = None) -> JsonObject:
        """Pi summarizes with its model and appends a compaction entry; returns the result
        (``summary``, ``firstKeptEntryId``, ``tokensBefore``, ``estimatedTokensAfter``, ...)."""
        command: JsonObject = {"type": "compact"}
        if custom_instructions is not None:
            command["customInstructions"] = custom_instructions
        return _object(await self.request(command, timeout=timeout), "compact")

    async def set_auto_compaction(self, enabled: bool, *, timeout: float | None = None) -> None:
        await self.request({"type": "set_auto_compaction", "enabled": enabled}, timeout=timeout)

    async def fork(self, entry_id: str, *, timeout: float | None = None) -> JsonObject:
        """A new session file holding the branch up to (not including) that user entry.

        Returns ``{"text": <the user message's text>, "cancelled": false}``; the text is meant to
        be put back into the prompt box for editing.
        """
        return _object(await self.request({"type": "fork", "entryId": entry_id}, timeout=timeout), "fork")

    async def clone(self, *, timeout: float | None = None) -> JsonObject:
        return _object(await self.request({"type": "clone"}, timeout=timeout), "clone")

    async def new_session(self, parent_session: str | None = None, *, timeout: float | None = None) -> JsonObject:
        command: JsonObject = {"type": "new_session"}
        if parent_session is not None:
            command["parentSession"] = parent_session
        return _object(await self.request(command, timeout=timeout), "new_session")

    async def switch_session(self, session_path: str, *, timeout: float | None = None) -> JsonObject:
        command = {"type": "switch_session", "sessionPath": session_path}
        return _object(await self.request(command, timeout=timeout), "switch_session")

    # -- extension dialogs -------------------------------------------------------------------------

    async def extension_ui_response(
        self,
        request_id: str,
        *,
        value: str | None = None,
        confirmed: bool | None = None,
        cancelled: bool = False,
    ) -> None:
        """Answer one ``extension_ui_request`` dialog (select/input/editor: ``value``; confirm:
        ``confirmed``; any: ``cancelled``). Pi sends no response to this record."""
        record: JsonObject = {"type": "extension_ui_response", "id": request_id}
        if cancelled:
            record["cancelled"] = True
        elif confirmed is not None:
            record["confirmed"] = confirmed
        elif value is not None:
            record["value"] = value
        else:
            raise ValueError("an extension_ui_response needs a value, confirmed, or cancelled=True")
        await self.send(record)


def _object(data: Any, command: str) -> JsonObject:
    if not isinstance(data, dict):
        raise PiProtocolError(f"Pi answered {command} without the expected object")
    return data


def _list(data: JsonObject, key: str, command: str) -> list[JsonObject]:
    value = data.get(key)
    if not isinstance(value, list):
        raise PiProtocolError(f"Pi answered {command} without a '{key}' list")
    return cast(list[JsonObject], value)


def _disposition(data: Any, command: str) -> Disposition:
    value = data.get("disposition") if isinstance(data, dict) else None
    if value not in ("started", "queued", "handled"):
        raise PiProtocolError(f"Pi answered {command} without a known disposition ({value!r})")
    return cast(Disposition, value)
