"""Generate ``docs/protocol.md`` from the protocol models and real examples.

Two steps, both from the repository root with the project's venv active::

    python docs/gen_protocol.py --examples   # run the real server on a sample workspace, record
                                             # one exchange per method in docs/protocol-examples.json
    python docs/gen_protocol.py              # write docs/protocol.md (schemas + recorded examples)
    python docs/gen_protocol.py --check      # exit 1 when docs/protocol.md is stale

The page is a function of ``lsp_server/protocol.py`` (field tables and JSON schemas) and of the
committed examples, so ``tests/lsp/test_protocol_doc.py`` can check that the committed page is
current and that every example still validates against its model. Examples are recorded over
stdio from ``examples/workspace`` and ``examples/sessions/inventory-fix.jsonl`` copied to a
temporary home; paths are rewritten to ``/home/user/...`` and long values abridged (strings cut
with ``…``, lists cut with a ``"… N more"`` marker), so the page stays readable. What the chat
recorded from the real Pi has Pi's own prose (its system message's built-in sections and tool
descriptions) replaced by stand-ins of the same length (``tests/support/pi_prose.py``): Pi's text is
not copied into the repository.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lsp_server import protocol  # noqa: E402

DOC = ROOT / "docs" / "protocol.md"
EXAMPLES = ROOT / "docs" / "protocol-examples.json"
MAX_STRING = 240
MAX_ITEMS = 8


@dataclass(frozen=True)
class Method:
    name: str
    kind: str  # "request", "notification", "command"
    direction: str
    params: str | None  # model name in protocol.ALL_MODELS
    result: str | None
    summary: str


METHODS: tuple[Method, ...] = (
    Method(
        protocol.SYSTEM_PROMPT,
        "request",
        "client → server",
        "SystemPromptParams",
        "SystemPromptResult",
        "The system prompt Pi would send for a workspace folder (cwd = the folder): each section with its text, "
        "position, token counts (Pi's `ceil(chars/4)` and the configured estimator) and source files; the rendered "
        "prompt; totals; trust and Pi's loading warnings. Open buffers count as the files' text. The numbers are "
        "those of `pi-context prompt --json`.",
    ),
    Method(
        protocol.PROMPT_SECTIONS_CHANGED,
        "notification",
        "server → client",
        "PromptSectionsChangedParams",
        None,
        "Sent when a context source was saved, changed on disk, or closed unsaved (AGENTS/CLAUDE files on the "
        "folder's ancestor chain or in the agent dir, SYSTEM.md, APPEND_SYSTEM.md, skills, settings, the trust "
        "store), or a setting changed, **and** the folder's section map differs from the one last sent. `patch` is "
        "Pi's (changed sections in prompt order, removed ones as `null`); each change has its token counts before "
        "and after with both counters; `renderedUpdate` is the patch as Pi renders a mid-conversation system "
        "message. Never sent when nothing changed.",
    ),
    Method(
        protocol.CONTEXT_BUDGET,
        "request",
        "client → server",
        "ContextBudgetParams",
        "ContextBudgetResult",
        "The context budget of a session (at its leaf, or `leafId`), or of the system prompt alone without "
        "`session`: Pi's context tokens, threshold and `shouldCompact`, and two breakdowns (Pi's estimate and "
        "the configured estimator) that add up to the window. See [budget.md](budget.md). The numbers are those of "
        "`pi-context session --json`.",
    ),
    Method(
        protocol.PROJECTED_REQUEST,
        "request",
        "client → server",
        "SessionRef",
        "ProjectedRequestResult",
        "What the model would receive next for a session: the system prompt (the session's stored prompt, else "
        "the workspace's) and every message after Pi's conversion, each with token counts.",
    ),
    Method(
        protocol.TURN_LEDGER,
        "request",
        "client → server",
        "TurnLedgerParams",
        "TurnLedgerResult",
        "What every request of a session's branch cost: one row per assistant reply (`turns`: the usage Pi "
        "recorded, its cost as recorded or computed from the model's prices, the cache hit ratio, the time since "
        "the previous request), the cache warms and summary calls (`otherRequests`), totals for the branch, per "
        "model and for the whole file, the compactions, branch points and model changes to mark, and the prices "
        "with their source. Unknown values are `null`, never guessed. The numbers are those of "
        "`pi-context session FILE --costs --json`; see [cost.md](cost.md).",
    ),
    Method(
        protocol.USAGE,
        "request",
        "client → server",
        "UsageParams",
        "UsageResult",
        "Usage and cost across every session (default: the `sessions/` folder of each workspace folder's agent "
        "dir): each paid request counted once even when a fork or clone repeats it, priced as the turn ledger "
        "prices it, summed and grouped `by` day, week, month, project, model or session, with one group per "
        "day for a chart, every session's own totals and what the run read (the server keeps the records, so "
        "the next answer reads only what Pi appended). The numbers are those of `pi-context usage --json`; see "
        "[usage.md](usage.md).",
    ),
    Method(
        protocol.SESSIONS,
        "request",
        "client → server",
        "SessionsParams",
        "SessionsResult",
        "The sessions of a folder's cwd in Pi's session folder (`sessionDir`, `$PI_CODING_AGENT_SESSION_DIR` or "
        "`<agentDir>/sessions/--<cwd>--`), newest modification first. The answer comes once the folder is "
        "watched: a session that appears there afterwards is announced with `pi/sessionChanged`.",
    ),
    Method(
        protocol.SESSION_TREE,
        "request",
        "client → server",
        "SessionRef",
        "SessionTreeResult",
        "Every entry of a session as a tree node (children oldest first), labels, the leaf (Pi's: the last entry, "
        "or `leafId`) and the path to it; skipped lines and tree repairs in `problems`. A session that grows is "
        "read from where the last request stopped.",
    ),
    Method(
        protocol.SESSION_CHANGED,
        "notification",
        "server → client",
        "SessionChangedParams",
        None,
        "Sent after `pi.compact` or `pi.branchSummary` appended an entry, after a chat's Pi appended to its "
        "session (`chat`), and when the watcher sees a change to a session the client asked about, so views can "
        "ask again.",
    ),
    Method(
        protocol.CMD_COMPACT,
        "command",
        "client → server (`workspace/executeCommand`, one argument)",
        "CompactArgs",
        "CommandOutcome",
        "Compact a session as Pi's `/compact` does: reports `$/progress` (planning, each summary call with the "
        "characters received, writing), cancellable from the progress UI and with `$/cancelRequest` (answer "
        "`-32800`). `previewOnly` writes nothing; applying with the preview's `expectedSize` writes the previewed "
        "summary without asking the summarizer again (`fromPreview`), and refuses if the file changed. Failures "
        "(the model's error, nothing to compact, the file grew) answer `-32803` RequestFailed and write nothing. "
        "On a session a chat's Pi holds, the compaction is Pi's (one writer per session): the preview is the plan "
        "read from the file (`chatId`, `plan`: the cut point, what is summarized and kept, tokens before; no "
        "summary yet), and applying runs Pi's `compact` through that chat (refused when the file changed since "
        "the preview or when `leafId` is given); the answer has Pi's summary and the entry Pi wrote.",
    ),
    Method(
        protocol.CMD_BRANCH_SUMMARY,
        "command",
        "client → server (`workspace/executeCommand`, one argument)",
        "BranchSummaryArgs",
        "CommandOutcome",
        "Summarize the branch left when moving from `fromId` to `toId` (Pi's `/tree` with a summary) and append "
        "the `branch_summary` entry where Pi puts it. Progress, cancellation, previews and failures as for "
        "`pi.compact`. Refused on a session a chat's Pi holds: Pi's RPC mode cannot move in the tree, so stop the "
        "chat first (it can resume the session after).",
    ),
    Method(
        protocol.CHAT_LOCATE,
        "request",
        "client → server",
        None,
        "ChatLocateResult",
        "Whether a Pi that can run the chat is installed: the `pi.command` setting, else `pi` on the PATH, else the "
        "usual npm, nvm and Volta folders, with Node's version checked (Pi needs 22.19+). When there is none, "
        "`message` is one sentence for the chat view and `installCommand` the fix.",
    ),
    Method(
        protocol.CHAT_START,
        "request",
        "client → server",
        "ChatStartParams",
        "ChatInfo",
        "Start Pi in RPC mode in a workspace folder (`--session` to resume a file, `--provider/--model` for "
        "`model`). A session another chat holds is refused (one writer per session). A session whose Pi kept running "
        "after its server ended (a window reload) is taken up instead (`reattached: true`): the run's records in "
        "progress come first as `pi/chat/event`, then Pi live. Pi keeps its own credentials; the server passes its "
        "environment and gives Pi no key; the keys Pi may use are replaced by `***` in everything relayed from the "
        "chat.",
    ),
    Method(
        protocol.CHAT_LIST,
        "request",
        "client → server",
        None,
        "ChatListResult",
        "The chats the server holds, for a client that reattaches (a reloaded view), and the chats of its "
        "workspace whose Pi kept running after their server ended (`detached`: `pi/chat/start {session}` takes "
        "one up).",
    ),
    Method(
        protocol.CHAT_STATE,
        "request",
        "client → server",
        "ChatRef",
        "ChatInfo",
        "The chat with Pi's `get_state` answer (model, thinking level, streaming, the session file) and its "
        "`get_session_stats` (`stats`: totals and `contextUsage`, Pi's own count of the context), when Pi read its "
        "files (`heldSince`), where the files now differ (`drift`), and what Pi leaves out of an untrusted project "
        "(`projectUntrusted`).",
    ),
    Method(
        protocol.CHAT_PROMPT,
        "request",
        "client → server",
        "ChatPromptParams",
        "ChatPromptResult",
        "Send a prompt (Pi expands `/skill:name` and prompt templates). While Pi works, `streamingBehavior` is "
        "needed: `steer` is delivered before Pi's next model call, `followUp` when it is done. The answer is Pi's "
        "disposition; the run streams as `pi/chat/event` until `agent_settled`.",
    ),
    Method(
        protocol.CHAT_ABORT,
        "request",
        "client → server",
        "ChatRef",
        "ChatQueueResult",
        "Stop: Pi's queue is cleared first (`clear_queue`: `abort` alone keeps a steering message, which Pi then "
        "sends with the next prompt), then the run aborted; answers once Pi is idle again (after `agent_settled` "
        "with `aborted: true`) with the texts that were queued, for the input.",
    ),
    Method(
        protocol.CHAT_CLEAR_QUEUE,
        "request",
        "client → server",
        "ChatRef",
        "ChatQueueResult",
        "Take back what is queued (Pi's `clear_queue`): Pi no longer sends those messages; their texts come back.",
    ),
    Method(
        protocol.CHAT_RELOAD,
        "request",
        "client → server",
        "ChatRef",
        "ChatInfo",
        "Make the chat's Pi take up the files as they are now (the action of `pi/chat/drift`): Pi reads its context "
        "files and settings again on its own session (`switch_session` to its file; `new_session` before it wrote "
        "one), and records the changed prompt sections before its next request; a changed trust decision needs a "
        "new Pi on the same session (the answer then has a new `chatId`). Refused while Pi replies.",
    ),
    Method(
        protocol.CHAT_TRUST,
        "request",
        "client → server",
        "ChatRef",
        "ChatInfo",
        "Trust the chat's project the way Pi's `/trust` does (`<agentDir>/trust.json`, the folder's real path, Pi's "
        "lock and format), then start a new Pi on the same session, which loads the project's skills, settings and "
        "prompt files (a running Pi keeps the decision it made at start). The answer is the new chat.",
    ),
    Method(
        protocol.CHAT_STOP,
        "request",
        "client → server",
        "ChatRef",
        None,
        "End the chat's Pi (stdin closed, then SIGTERM, then SIGKILL of its process group and tool shells); "
        "`pi/chat/exited` follows with `expected: true`.",
    ),
    Method(
        protocol.CHAT_COMPACT_PREVIEW,
        "request",
        "client → server",
        "ChatCompactParams",
        "ChatCompactPreview",
        "What compacting the chat's session will do, read from the file with Pi's rules: the first kept entry, "
        "tokens before, the messages summarized and kept, the file lists. Pi writes the summary.",
    ),
    Method(
        protocol.CHAT_COMPACT,
        "request",
        "client → server",
        "ChatCompactParams",
        "ChatCompactResult",
        "Pi's own `compact` (with the instructions as its focus): Pi summarizes with the chat's model and appends "
        "the compaction entry; `compaction_start`/`compaction_end` come as events.",
    ),
    Method(
        protocol.CHAT_FORK_POINTS,
        "request",
        "client → server",
        "ChatRef",
        "ChatForkPointsResult",
        "The user messages a fork can start from (Pi's `get_fork_messages`).",
    ),
    Method(
        protocol.CHAT_FORK,
        "request",
        "client → server",
        "ChatForkParams",
        "ChatForkResult",
        "Fork at a user message (edit or retry it): Pi continues in a new session file holding the branch before "
        "that message; `text` is the message, for the input.",
    ),
    Method(
        protocol.CHAT_SET_MODEL,
        "request",
        "client → server",
        "ChatSetModelParams",
        "ChatModelResult",
        "Switch the chat's model (Pi's `set_model`).",
    ),
    Method(
        protocol.CHAT_SET_THINKING_LEVEL,
        "request",
        "client → server",
        "ChatSetThinkingLevelParams",
        None,
        "Set the thinking level (Pi's `set_thinking_level`).",
    ),
    Method(
        protocol.CHAT_MESSAGES,
        "request",
        "client → server",
        "ChatRef",
        "ChatMessagesResult",
        "The conversation so far as Pi holds it (`get_messages`), to rebuild a view, with what is going on at "
        "that very point (`inFlight`: the reply being streamed, the tools running) and the `seq` of the last event "
        "it includes; a view applies only later events on top.",
    ),
    Method(
        protocol.CHAT_COMMANDS,
        "request",
        "client → server",
        "ChatRef",
        "ChatItemsResult",
        "Pi's commands for the input: skills (`skill:name`), prompt templates, extension commands.",
    ),
    Method(
        protocol.CHAT_MODELS,
        "request",
        "client → server",
        "ChatRef",
        "ChatItemsResult",
        "The models Pi can use (`get_available_models`), with their windows and prices.",
    ),
    Method(
        protocol.CHAT_PREFLIGHT,
        "request",
        "client → server",
        "ChatPreflightParams",
        "ChatPreflightResult",
        "Before sending: where the prompt puts the session by Pi's count, and a sentence when it crosses the "
        "compaction threshold (`window - reserveTokens`) or the window.",
    ),
    Method(
        protocol.CHAT_UI_RESPONSE,
        "request",
        "client → server",
        "ChatUiResponseParams",
        None,
        "Answer one of Pi's `extension_ui_request` dialogs (select, confirm, input).",
    ),
    Method(
        protocol.CHAT_EVENT,
        "notification",
        "server → client",
        "ChatEventParams",
        None,
        "Every record Pi emits, exactly as Pi wrote it: message deltas with cumulative usage, tool execution, "
        "compaction, retries, the queue, `agent_settled`, extension dialogs.",
    ),
    Method(
        protocol.CHAT_EXITED,
        "notification",
        "server → client",
        "ChatExitedParams",
        None,
        "The chat's Pi ended: after `pi/chat/stop` (`expected`), or it crashed or was killed (exit code, its last "
        "stderr lines). The session file is valid; start a chat on it to resume.",
    ),
    Method(
        protocol.CHAT_NOTICE,
        "notification",
        "server → client",
        "ChatNoticeParams",
        None,
        "What pi-context noticed that is not a Pi event, in one readable sentence with a `kind`: the session file "
        "deleted or replaced under a live chat (`session-deleted` / `session-replaced`), then written back from "
        "what Pi holds (`session-restored`, with the file the chat continues in as `session`) or not "
        "(`session-not-restored`); the workspace folder removed (`folder-removed`: the chat is ended).",
    ),
    Method(
        protocol.CHAT_DRIFT,
        "notification",
        "server → client",
        "ChatDriftParams",
        None,
        "The files on disk now differ from what the chat's Pi read when it started or last reloaded (a saved "
        "AGENTS.md, a skill, SYSTEM.md, Pi's settings, the project's trust), in one sentence with the action that "
        "makes Pi take it up (`pi/chat/reload`); `drift: null` once they agree again. The chat's numbers keep "
        "following what Pi read.",
    ),
    Method(
        protocol.CMD_RELOAD_WORKSPACE,
        "command",
        "client → server (`workspace/executeCommand`, no argument)",
        None,
        None,
        "Restart the watcher, re-check every file and rebuild the prompts; answers "
        '`{"roots": [...], "watching": [...], "files": n}`.',
    ),
)

ERRORS = (
    (
        "`-32602` InvalidParams",
        "params do not match the model (`pi/sessionTree: session: Field required`), an unknown workspace folder, a "
        "session file that does not exist or is not a Pi session, an unknown `leafId`",
    ),
    (
        "`-32803` RequestFailed",
        "a command that could not be carried out: the summarizer failed, nothing to compact, the file changed since "
        "it was read or previewed; nothing was written",
    ),
    (
        "`-32800` RequestCancelled",
        "a command cancelled from the progress UI or with `$/cancelRequest`; nothing was written",
    ),
    ("`-32603` InternalError", "a bug: the message names the exception, the server log has the traceback"),
)


# --- schema to text ------------------------------------------------------------------------------


def type_of(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{name.lower()})"
    if "anyOf" in schema:
        return " \\| ".join(type_of(option) for option in schema["anyOf"])
    if "enum" in schema:
        return " \\| ".join(f'`"{value}"`' for value in schema["enum"])
    if "const" in schema:
        return f'`"{schema["const"]}"`'
    kind = schema.get("type")
    if kind == "array":
        return f"{type_of(schema.get('items', {}))}[]"
    if kind == "object":
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            return f"{{[key: string]: {type_of(extra)}}}"
        return "object"
    return {"string": "string", "integer": "integer", "number": "number", "boolean": "boolean", "null": "null"}.get(
        str(kind), "any"
    )


def field_table(schema: dict[str, Any]) -> str:
    required = set(schema.get("required", []))
    rows = ["| field | type | required | description |", "| --- | --- | --- | --- |"]
    for name, prop in schema.get("properties", {}).items():
        description = " ".join(str(prop.get("description", "")).split()).replace("|", "\\|")
        default = prop.get("default")
        if name not in required and default not in (None, [], {}):
            description = (description + f" Default `{json.dumps(default)}`.").strip()
        rows.append(f"| `{name}` | {type_of(prop)} | {'yes' if name in required else 'no'} | {description} |")
    return "\n".join(rows)


def definitions() -> dict[str, dict[str, Any]]:
    """Every model and nested definition once, by name."""
    found: dict[str, dict[str, Any]] = {}
    for name, schema in protocol.json_schemas().items():
        for inner, body in schema.get("$defs", {}).items():
            found.setdefault(inner, body)
        found[name] = {key: value for key, value in schema.items() if key != "$defs"}
    return found


def _json_block(value: Any) -> str:
    return "```json\n" + json.dumps(value, indent=2, ensure_ascii=False) + "\n```"


def render(examples: dict[str, Any] | None = None) -> str:
    """The whole page (deterministic: a function of the models and the examples)."""
    examples = examples if examples is not None else json.loads(EXAMPLES.read_text(encoding="utf-8"))
    defs = definitions()
    schemas = protocol.json_schemas()
    out = [
        "# The pi-context protocol",
        "",
        "<!-- GENERATED by docs/gen_protocol.py from lsp_server/protocol.py and docs/protocol-examples.json. "
        "Do not edit. -->",
        "",
        "The custom methods of the pi-context language server, beyond standard LSP. Payloads are the pydantic models "
        "of `lsp_server/protocol.py`: field names are camelCase on the wire, unknown keys in params are rejected, "
        "and a field whose value is `null` is left out of what the server sends. The VS Code extension's TypeScript "
        "types are generated from the same models (`vscode-extension/scripts/gen_protocol.py`).",
        "",
        "Examples are real exchanges with the server on `examples/workspace` and "
        "`examples/sessions/inventory-fix.jsonl` (paths rewritten to `/home/user/...`; long strings and lists "
        "abridged with `…`). In the chat's examples, the text Pi writes itself into its system message (its "
        "built-in sections and tool descriptions) is replaced by a stand-in of the same length.",
        "",
        "| method | kind | direction | params | result |",
        "| --- | --- | --- | --- | --- |",
    ]
    for method in METHODS:
        params = f"[{method.params}](#{method.params.lower()})" if method.params else "—"
        result = f"[{method.result}](#{method.result.lower()})" if method.result else "—"
        anchor = method.name.replace("/", "").replace(".", "").lower()
        out.append(f"| [`{method.name}`](#{anchor}) | {method.kind} | {method.direction} | {params} | {result} |")
    out += [
        "",
        "Standard features with pi-context content: **code lenses** at the top of AGENTS.md, CLAUDE.md, SYSTEM.md, "
        "APPEND_SYSTEM.md and SKILL.md (the file's place and cost in the assembled prompt, e.g. "
        "`project_context #2 of 3, ~1,234 tokens (Pi: 1,300)`, or `not loaded: shadowed by AGENTS.override.md`; "
        "text only, the command id is empty) and **document symbols** (the file's `#` headings, each with the tokens "
        "of its section as `detail`). The server asks for `workspace/codeLens/refresh` after a prompt change when "
        "the client supports it.",
        "",
        "## Errors",
        "",
        "| code | when |",
        "| --- | --- |",
        *(f"| {code} | {when} |" for code, when in ERRORS),
        "",
    ]
    for method in METHODS:
        out += [f"## `{method.name}`", "", f"*{method.kind}, {method.direction}*", "", method.summary, ""]
        for label, model in (("Params", method.params), ("Result", method.result)):
            if model is None:
                continue
            out += [f"**{label}**: [{model}](#{model.lower()})", ""]
        example = examples.get(method.name)
        if example is not None:
            for part in ("params", "result"):
                if part in example:
                    out += [f"Example {part}:", "", _json_block(example[part]), ""]
    out += ["## Types", ""]
    for name in sorted(defs):
        body = defs[name]
        out += [f"### {name}", ""]
        description = " ".join(str(body.get("description", "")).split())
        if description:
            out += [description, ""]
        out += [field_table(body), ""]
        if name in schemas:
            out += ["<details><summary>JSON schema</summary>", "", _json_block(schemas[name]), "", "</details>", ""]
    return "\n".join(out).rstrip() + "\n"


# --- recording examples ----------------------------------------------------------------------------


def abridge(value: Any) -> Any:
    if isinstance(value, str):
        return value if len(value) <= MAX_STRING else value[: MAX_STRING - 1] + "…"
    if isinstance(value, list):
        kept = [abridge(item) for item in value[:MAX_ITEMS]]
        if len(value) > MAX_ITEMS:
            kept.append(f"… {len(value) - MAX_ITEMS} more")
        return kept
    if isinstance(value, dict):
        return {key: abridge(item) for key, item in value.items()}
    return value


CHAT_PREFIX = "pi/chat/"


def without_pis_prose(examples: dict[str, Any]) -> dict[str, Any]:
    """The examples with Pi's own prose stood in for where the chat recorded real Pi's system message.

    Only the chat's methods carry what Pi wrote; the other examples' system messages come from our
    example session and keep their text.
    """
    from tests.support.pi_prose import scrub

    return {name: scrub(value) if name.startswith(CHAT_PREFIX) else value for name, value in examples.items()}


def _normalize(value: Any, base: str) -> Any:
    text = json.dumps(value, ensure_ascii=False)
    encoded = base.lstrip("/").replace("/", "-") + "-"
    text = text.replace(base, "").replace(encoded, "")
    return json.loads(text)


async def record_examples() -> dict[str, Any]:
    from lsprotocol import types
    from lsprotocol.converters import get_converter
    from pygls.lsp.client import LanguageClient
    from pygls.uris import from_fs_path

    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.realpath(tmp)
        home = Path(base, "home", "user")
        project = home / "project"
        agent_dir = home / ".pi" / "agent"
        shutil.copytree(ROOT / "examples" / "workspace", project)
        agent_dir.mkdir(parents=True)
        source = ROOT / "examples" / "sessions" / "inventory-fix.jsonl"
        lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
        header = json.loads(lines[0])
        header["cwd"] = str(project)
        session_dir = agent_dir / "sessions" / ("--" + str(project).lstrip("/").replace("/", "-") + "--")
        session_dir.mkdir(parents=True)
        session = session_dir / "2025-06-02T09-00-00-000Z_0197300a-5b1c-7e4d-9a3f-2c6b8d1e4f70.jsonl"
        session.write_text(json.dumps(header, separators=(",", ":")) + "\n" + "".join(lines[1:]), encoding="utf-8")

        env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
        env.update({"HOME": str(home), "PI_CODING_AGENT_DIR": str(agent_dir), "PI_OFFLINE": "1"})
        env.update({"PI_SKIP_VERSION_CHECK": "1", "PI_TELEMETRY": "0"})
        client = LanguageClient("gen-protocol", "1", converter_factory=get_converter)  # results as plain JSON
        notes: dict[str, asyncio.Queue[Any]] = {
            protocol.PROMPT_SECTIONS_CHANGED: asyncio.Queue(),
            protocol.SESSION_CHANGED: asyncio.Queue(),
        }
        for method in (protocol.CHAT_EVENT, protocol.CHAT_EXITED, protocol.CHAT_NOTICE, protocol.CHAT_DRIFT):
            notes[method] = asyncio.Queue()
        for method, queue in notes.items():
            client.feature(method)(lambda params, queue=queue: queue.put_nowait(params))
        await client.start_io(sys.executable, "-m", "lsp_server", "serve", env=env)
        uri = from_fs_path(str(project)) or ""
        await client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(
                    workspace=types.WorkspaceClientCapabilities(workspace_folders=True)
                ),
                root_uri=uri,
                workspace_folders=[types.WorkspaceFolder(uri=uri, name="project")],
                initialization_options={"piContext": {"trust": "trusted", "pi": {"command": _pi_command()}}},
            )
        )
        client.initialized(types.InitializedParams())
        recorded: dict[str, Any] = {}

        def plain(value: Any) -> Any:
            return json.loads(json.dumps(value))

        async def ask(method: str, params: Any) -> None:
            result = await client.protocol.send_request_async(method, params)
            recorded[method] = {"params": params, "result": plain(result)}

        async def command(name: str, args: Any) -> Any:
            result = await client.workspace_execute_command_async(
                types.ExecuteCommandParams(command=name, arguments=[args])
            )
            recorded[name] = {"params": args, "result": plain(result)}
            return result

        await ask(protocol.SYSTEM_PROMPT, {})
        agents = project / "AGENTS.md"
        text = agents.read_text(encoding="utf-8") + "- Type hints everywhere.\n"
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(
                    uri=from_fs_path(str(agents)) or "", language_id="markdown", version=1, text=text
                )
            )
        )
        agents.write_text(text, encoding="utf-8")
        client.text_document_did_save(
            types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri=from_fs_path(str(agents)) or ""))
        )
        changed = await asyncio.wait_for(notes[protocol.PROMPT_SECTIONS_CHANGED].get(), 30)
        recorded[protocol.PROMPT_SECTIONS_CHANGED] = {"params": plain(changed)}
        await ask(protocol.CONTEXT_BUDGET, {"session": str(session)})
        await ask(protocol.PROJECTED_REQUEST, {"session": str(session)})
        await ask(protocol.TURN_LEDGER, {"session": str(session)})
        await ask(protocol.USAGE, {"by": "model", "timeZone": "UTC"})
        await ask(protocol.SESSIONS, {})
        await ask(protocol.SESSION_TREE, {"session": str(session)})
        await command(
            protocol.CMD_BRANCH_SUMMARY,
            {"session": str(session), "fromId": "4647f052", "toId": "9c947358", "previewOnly": True},
        )
        preview = plain(await command(protocol.CMD_COMPACT, {"session": str(session), "previewOnly": True}))
        await command(protocol.CMD_COMPACT, {"session": str(session), "expectedSize": preview["sessionSize"]})
        written = await asyncio.wait_for(notes[protocol.SESSION_CHANGED].get(), 30)
        recorded[protocol.SESSION_CHANGED] = {"params": plain(written)}
        await record_chat(client, notes, recorded, project, agent_dir, plain)
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
        recorded = without_pis_prose(recorded)
        return {name: abridge(_normalize(value, base)) for name, value in recorded.items()}


def _pi_command() -> str:
    """Pi 1.6.0 as the tests run it (``tests/support/install_pi.sh`` installs it)."""
    from tests.support.pi_for_tests import find_test_pi

    found, reason = find_test_pi()
    if found is None:
        raise SystemExit(f"recording the chat examples needs Pi 1.6.0: {reason}")
    return f"{found.argv[0]} {found.argv[1]}"


async def record_chat(
    client: Any,
    notes: dict[str, asyncio.Queue[Any]],
    recorded: dict[str, Any],
    project: Path,
    agent_dir: Path,
    plain: Callable[[Any], Any],
) -> None:
    """One chat with the real Pi against the loopback model: every ``pi/chat/*`` method once."""
    from lsprotocol import types
    from pygls.uris import from_fs_path

    from tests.support.fake_llm_server import FakeLlmServer, ScriptedResponse
    from tests.support.pi_agent import write_agent_dir

    async def ask(method: str, params: Any) -> Any:
        result = plain(await client.protocol.send_request_async(method, params))
        recorded[method] = {"params": params, "result": result}
        return result

    async def event_of(kind: str) -> dict[str, Any]:
        while True:
            note = plain(await asyncio.wait_for(notes[protocol.CHAT_EVENT].get(), 60))
            if note["event"].get("type") == kind:
                return dict(note)

    with FakeLlmServer() as model:
        write_agent_dir(agent_dir, model.openai_base_url, settings={"compaction": {"keepRecentTokens": 10}})
        model.enqueue(
            ScriptedResponse(tool_calls=[{"name": "read", "arguments": {"path": "AGENTS.md"}}], finish="tool"),
            ScriptedResponse(text="AGENTS.md asks for small functions and type hints."),
            ScriptedResponse(text="Done."),
        )
        model.set_default(ScriptedResponse(text="## Goal\nSummarize the rules."))
        await ask(protocol.CHAT_LOCATE, {})
        chat = await ask(protocol.CHAT_START, {"model": "fake/fake-1"})
        chat_id = chat["chatId"]
        ref = {"chatId": chat_id}
        await ask(protocol.CHAT_PREFLIGHT, {**ref, "text": "What does AGENTS.md ask for?"})
        await ask(protocol.CHAT_PROMPT, {**ref, "text": "What does AGENTS.md ask for?"})
        first = await event_of("message_update")
        recorded[protocol.CHAT_EVENT] = {"params": first}
        await event_of("agent_settled")
        await ask(protocol.CHAT_PROMPT, {**ref, "text": "Thanks."})
        await event_of("agent_settled")
        for method in (protocol.CHAT_STATE, protocol.CHAT_MESSAGES, protocol.CHAT_COMMANDS, protocol.CHAT_MODELS):
            await ask(method, ref)
        await ask(protocol.CHAT_SET_THINKING_LEVEL, {**ref, "level": "off"})
        await ask(protocol.CHAT_SET_MODEL, {**ref, "model": "fake/fake-1"})
        await ask(protocol.CHAT_COMPACT_PREVIEW, ref)
        await ask(protocol.CHAT_COMPACT, {**ref, "instructions": "Keep the rules"})
        points = await ask(protocol.CHAT_FORK_POINTS, ref)
        await ask(protocol.CHAT_FORK, {**ref, "entryId": points["messages"][-1]["entryId"]})
        await ask(protocol.CHAT_UI_RESPONSE, {**ref, "id": "ui-1", "cancelled": True})
        await ask(protocol.CHAT_ABORT, ref)
        await ask(protocol.CHAT_CLEAR_QUEUE, ref)
        agents = project / "AGENTS.md"  # saved while Pi runs: Pi keeps what it read until it reloads
        agents.write_text(agents.read_text(encoding="utf-8") + "- Docstrings say why.\n", encoding="utf-8")
        drift = await asyncio.wait_for(notes[protocol.CHAT_DRIFT].get(), 60)
        recorded[protocol.CHAT_DRIFT] = {"params": plain(drift)}
        await ask(protocol.CHAT_RELOAD, ref)
        trusted = await ask(protocol.CHAT_TRUST, ref)
        ref = {"chatId": trusted["chatId"]}
        await ask(protocol.CHAT_LIST, {})
        await ask(protocol.CHAT_STOP, ref)
        exited = await asyncio.wait_for(notes[protocol.CHAT_EXITED].get(), 60)
        recorded[protocol.CHAT_EXITED] = {"params": plain(exited)}
        second = await ask(protocol.CHAT_START, {"model": "fake/fake-1"})
        uri = from_fs_path(str(project)) or ""
        removed = types.WorkspaceFoldersChangeEvent(added=[], removed=[types.WorkspaceFolder(uri=uri, name="project")])
        client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(event=removed))
        notice = await asyncio.wait_for(notes[protocol.CHAT_NOTICE].get(), 60)
        recorded[protocol.CHAT_NOTICE] = {"params": plain(notice)}
        assert plain(notice)["chatId"] == second["chatId"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", action="store_true", help="record the examples from a running server first")
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/protocol.md is stale")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="METHOD",
        help="with --examples: keep the other methods' recorded examples and replace only these",
    )
    args = parser.parse_args()
    if args.examples:
        examples = asyncio.run(record_examples())
        if args.only:
            kept = json.loads(EXAMPLES.read_text(encoding="utf-8"))
            examples = {**kept, **{name: examples[name] for name in args.only}}
        EXAMPLES.write_text(json.dumps(examples, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    page = render()
    if args.check:
        if DOC.read_text(encoding="utf-8") != page:
            sys.stderr.write("docs/protocol.md is stale: run python docs/gen_protocol.py\n")
            return 1
        return 0
    DOC.write_text(page, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
