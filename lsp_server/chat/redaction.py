"""The keys a chat's Pi may send to a model, so that none of them reaches the editor.

Pi quotes what a model server answers: a server that echoes the key it was sent (a 401 "Incorrect
API key provided: sk-…", a 500 that repeats the request) puts the key into Pi's error message, its
``auto_retry_start`` event, the assistant message it stores, and its stderr. The server forwards
all of that to the client, whose Chat view shows it. So when a chat starts, the values Pi could
authenticate with are collected here, and every string the server relays from that chat (events,
answers, Pi's refusals, its exit message and stderr) has them replaced by ``***``, in any of the
forms :class:`~lsp_server.redaction.Redactor` knows (8 characters of the key, its base64, upper-case,
spaced or percent-encoded: docs/llm.md "Redaction"). Pi's records are redacted once, where they
enter the server (:class:`EventRedactor`, in :class:`~lsp_server.chat.chat.Chat`, before the chat's
run log keeps them): a delta stream's pieces through :class:`DeltaRedactor`, then the whole record;
answers and exits where the workspace relays them.

Where the values come from, as Pi resolves them (``resolve-config-value``): the environment Pi
gets (variables whose names say they hold a credential: ``*_API_KEY``, ``*_KEY``, ``*_TOKEN``,
``*_SECRET``, ``*_PASSWORD``), ``models.json`` (every ``apiKey`` and every ``headers`` value, with
``$VAR`` / ``${VAR}`` read from the environment) and ``auth.json`` (each credential's ``key``,
OAuth ``access`` / ``refresh`` tokens and its ``env``). A value Pi gets from a shell command
(``"!op read …"``) is not known until Pi runs it and is not covered. Values shorter than 8
characters are left alone: they are not real keys and replacing them would mangle ordinary text.
The values are held as :class:`~lsp_server.redaction.Secret`, which never prints itself.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

from lsp_server.base import fsread
from lsp_server.budget.models import MODELS_JSON, strip_json_comments
from lsp_server.js.strings import strip_bom
from lsp_server.redaction import Redactor, Secret, StreamRedactor

AUTH_JSON: Final = "auth.json"
MIN_SECRET_CHARS: Final = 8
CREDENTIAL_NAME: Final = re.compile(r"(?:^|_)(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$", re.I)
ENV_NAME: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
ENV_REFERENCE: Final = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
NOT_SECRET_FIELDS: Final = frozenset({"type", "expires"})


def pi_secrets(env: Mapping[str, str], agent_dir: str, extra: Iterable[str | None] = ()) -> tuple[Secret, ...]:
    """Every value Pi could send as a credential (and ``extra``), longest first, each once."""
    found: set[str] = {value for name, value in env.items() if CREDENTIAL_NAME.search(name)}
    found.update(value for value in extra if value)
    models = _read_json(posixpath.join(agent_dir, MODELS_JSON), comments=True)
    if isinstance(models, dict):
        for value in _config_values(models.get("providers")):
            found.update(_resolved(value, env))
    auth = _read_json(posixpath.join(agent_dir, AUTH_JSON), comments=False)
    if isinstance(auth, dict):
        for credential in auth.values():
            if not isinstance(credential, dict):
                continue
            scope = dict(env)
            if isinstance(credential.get("env"), dict):
                scope.update({k: v for k, v in credential["env"].items() if isinstance(v, str)})
                found.update(v for v in credential["env"].values() if isinstance(v, str))
            for name, value in credential.items():
                if name not in NOT_SECRET_FIELDS and isinstance(value, str):
                    found.update(_resolved(value, scope))
    kept = sorted((value for value in found if len(value) >= MIN_SECRET_CHARS), key=lambda v: (-len(v), v))
    return tuple(Secret(value) for value in kept)


STREAMED_DELTAS: Final = frozenset({"text_delta", "thinking_delta", "toolcall_delta"})
BLOCK_ENDS: Final = frozenset({"text_end", "thinking_end", "toolcall_end"})


class DeltaRedactor:
    """Keys that a model's stream splits over several deltas, kept out of the deltas relayed.

    Pi's ``message_update`` records carry only the new piece of a content block (``delta``); the view
    joins them. A key the model repeats arrives in pieces, none of which is a key on its own, so
    redacting each record as a value lets it through. Here each block's pieces go through one
    :class:`~lsp_server.redaction.StreamRedactor`: what is relayed is the text so far with the keys
    (in any form) replaced, less an end that could still become one; that end goes out with the
    next piece. At the block's end Pi sends the whole content, which is redacted as a value, so an
    end still held then is dropped.
    """

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self._streams: dict[tuple[str, Any], StreamRedactor] = {}  # (delta kind, contentIndex) -> its stream

    def redact(self, event: dict[str, Any]) -> dict[str, Any]:
        """``event`` as relayed: a delta's ``delta`` replaced, anything else as it is."""
        if not self._redactor:
            return event
        kind = event.get("type")
        if kind in {"message_start", "message_end", "agent_settled"}:
            self._streams.clear()
            return event
        update = event.get("assistantMessageEvent") if kind == "message_update" else None
        if not isinstance(update, dict):
            return event
        part = update.get("type")
        if part in BLOCK_ENDS:
            self._streams.pop((str(part).replace("_end", "_delta"), update.get("contentIndex")), None)
            return event
        delta = update.get("delta")
        if part not in STREAMED_DELTAS or not isinstance(delta, str):
            return event
        key = (str(part), update.get("contentIndex"))
        stream = self._streams.get(key)
        if stream is None:
            stream = self._streams[key] = StreamRedactor(self._redactor)
        out = stream.feed(delta)
        if out == delta:
            return event
        return {**event, "assistantMessageEvent": {**update, "delta": out}}


class EventRedactor:
    """Each record Pi emits, as anything past the chat may see it: one pass, at the Pi boundary.

    A streamed delta's piece goes through the block's :class:`DeltaRedactor` (a key split over pieces),
    then the whole record through the redactor (a key anywhere in it, in any form). The chat keeps the
    result in its run log and relays it, so a view attaching later gets what a live one got, and
    nothing downstream redacts the record again.
    """

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self._deltas = DeltaRedactor(redactor)

    def redact(self, event: dict[str, Any]) -> dict[str, Any]:
        if not self._redactor:
            return event
        redacted: dict[str, Any] = self._redactor.value(self._deltas.redact(event))
        return redacted


def _read_json(path: str, *, comments: bool) -> Any:
    result = fsread.read_text(path)
    if result.text is None:
        return None
    text = strip_bom(result.text)
    try:
        return json.loads(strip_json_comments(text) if comments else text)
    except (ValueError, RecursionError):
        return None


def _config_values(node: Any) -> Iterable[str]:
    """Each ``apiKey`` and each ``headers`` value anywhere under a models.json ``providers``."""
    if isinstance(node, dict):
        for key, item in node.items():
            if key == "apiKey" and isinstance(item, str):
                yield item
            elif key == "headers" and isinstance(item, dict):
                yield from (v for v in item.values() if isinstance(v, str))
            else:
                yield from _config_values(item)
    elif isinstance(node, list):
        for item in node:
            yield from _config_values(item)


def _resolved(value: str, env: Mapping[str, str]) -> list[str]:
    """What Pi makes of a config value: a shell command is unknown; ``$VAR`` is read from ``env``."""
    if value.startswith("!"):
        return []
    names = [braced or bare for braced, bare in ENV_REFERENCE.findall(value)]
    values = [env[name] for name in names if env.get(name)]
    if ENV_NAME.match(value) and env.get(value):
        return [env[value]]  # a bare variable name (older Pi): the name itself is no secret
    whole = ENV_REFERENCE.sub(lambda m: env.get(m.group(1) or m.group(2), ""), value)
    return [whole, *whole.split(), *values]  # a header's "Bearer <token>": the token alone too
