"""The method table: every custom method of the pi-context protocol, one row each.

A row is a method's name, kind (request, notification, command), direction, the protocol models of
its params and result (named, not imported: :mod:`lsp_server.protocol` holds them, and this table is
read at start-up, before pydantic), the sentence docs/protocol.md gives it, and whether
docs/protocol-examples.json records an exchange of it. Everything else is derived from the rows:

* the Python names (:mod:`lsp_server.protocol_names`, written by ``python docs/gen_protocol.py``);
* the server's handler registration (:mod:`lsp_server.server.handlers`: one handler per client →
  server row, params validated with the row's model, the result sent as the row's model);
* docs/protocol.md (``python docs/gen_protocol.py``);
* the extension's TypeScript types and its typed client (``vscode-extension/scripts/gen_protocol.py``).

``tests/lsp/test_method_table.py`` checks that they agree. A new request is a row here, its
computation, its handler (a function of the application layer taking the workspace and the params)
and its test: CONTRIBUTING.md, "How to add a custom request".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

Kind = Literal["request", "notification", "command"]

CLIENT_TO_SERVER: Final = "client → server"
SERVER_TO_CLIENT: Final = "server → client"


@dataclass(frozen=True)
class Method:
    """One custom method. ``direction`` starts with ``client → server`` or ``server → client``."""

    name: str
    kind: Kind
    direction: str
    params: str | None  # a model of lsp_server.protocol (protocol.ALL_MODELS), None: no params
    result: str | None  # the same for the answer; None: a notification, or an answer that is not a model
    summary: str
    example: bool = True  # docs/protocol-examples.json records an exchange under the method's name

    @property
    def to_server(self) -> bool:
        """The client sends it and the server handles it (a request, a command or a notification)."""
        return self.direction.startswith(CLIENT_TO_SERVER)

    @property
    def constant(self) -> str:
        """The method's name in :mod:`lsp_server.protocol_names`: ``pi/chat/setModel`` -> ``CHAT_SET_MODEL``,
        ``pi.compact`` -> ``CMD_COMPACT``."""
        bare = self.name.removeprefix("pi/").removeprefix("pi.")
        words = "".join(f"_{c}" if c.isupper() else c for c in bare.replace("/", "_"))
        return ("CMD_" if self.kind == "command" else "") + words.upper()


METHODS: tuple[Method, ...] = (
    Method(
        "pi/systemPrompt",
        "request",
        "client → server",
        params="SystemPromptParams",
        result="SystemPromptResult",
        summary=(
            "The system prompt Pi would send for a workspace folder (cwd = the folder): each section with "
            "its text, position, token counts (Pi's `ceil(chars/4)` and the configured estimator) and source "
            "files; the rendered prompt; totals; trust and Pi's loading warnings. Open buffers count as the "
            "files' text. The numbers are those of `pi-context prompt --json`."
        ),
    ),
    Method(
        "pi/promptSectionsChanged",
        "notification",
        "server → client",
        params="PromptSectionsChangedParams",
        result=None,
        summary=(
            "Sent when a context source was saved, changed on disk, or closed unsaved (AGENTS/CLAUDE files "
            "on the folder's ancestor chain or in the agent dir, SYSTEM.md, APPEND_SYSTEM.md, skills, "
            "settings, the trust store), or a setting changed, **and** the folder's section map differs from "
            "the one last sent. `patch` is Pi's (changed sections in prompt order, removed ones as `null`); "
            "each change has its token counts before and after with both counters; `renderedUpdate` is the "
            "patch as Pi renders a mid-conversation system message. Never sent when nothing changed."
        ),
    ),
    Method(
        "pi/contextBudget",
        "request",
        "client → server",
        params="ContextBudgetParams",
        result="ContextBudgetResult",
        summary=(
            "The context budget of a session (at its leaf, or `leafId`), or of the system prompt alone "
            "without `session`: Pi's context tokens, threshold and `shouldCompact`, and two breakdowns (Pi's "
            "estimate and the configured estimator) that add up to the window. See [budget.md](budget.md). "
            "The numbers are those of `pi-context session --json`."
        ),
    ),
    Method(
        "pi/projectedRequest",
        "request",
        "client → server",
        params="SessionRef",
        result="ProjectedRequestResult",
        summary=(
            "What the model would receive next for a session: the system prompt (the session's stored "
            "prompt, else the workspace's) and every message after Pi's conversion, each with token counts."
        ),
    ),
    Method(
        "pi/turnLedger",
        "request",
        "client → server",
        params="TurnLedgerParams",
        result="TurnLedgerResult",
        summary=(
            "What every request of a session's branch cost: one row per assistant reply (`turns`: the usage "
            "Pi recorded, its cost as recorded or computed from the model's prices, the cache hit ratio, the "
            "time since the previous request), the cache warms and summary calls (`otherRequests`), totals "
            "for the branch, per model and for the whole file, the compactions, branch points and model "
            "changes to mark, and the prices with their source. Unknown values are `null`, never guessed. "
            "The numbers are those of `pi-context session FILE --costs --json`; see [cost.md](cost.md)."
        ),
    ),
    Method(
        "pi/usage",
        "request",
        "client → server",
        params="UsageParams",
        result="UsageResult",
        summary=(
            "Usage and cost across every session (default: the `sessions/` folder of each workspace folder's "
            "agent dir): each paid request counted once even when a fork or clone repeats it, priced as the "
            "turn ledger prices it, summed and grouped `by` day, week, month, project, model or session, "
            "with one group per day for a chart, every session's own totals and what the run read (the "
            "server keeps the records, so the next answer reads only what Pi appended). The numbers are "
            "those of `pi-context usage --json`; see [usage.md](usage.md)."
        ),
    ),
    Method(
        "pi/sessions",
        "request",
        "client → server",
        params="SessionsParams",
        result="SessionsResult",
        summary=(
            "The sessions of a folder's cwd in Pi's session folder (`sessionDir`, "
            "`$PI_CODING_AGENT_SESSION_DIR` or `<agentDir>/sessions/--<cwd>--`), newest modification first. "
            "The answer comes once the folder is watched: a session that appears there afterwards is "
            "announced with `pi/sessionChanged`."
        ),
    ),
    Method(
        "pi/sessionRename",
        "request",
        "client → server",
        params="SessionRenameParams",
        result="SessionRenameResult",
        summary=(
            "Name a session (Pi's session name, shown as its title). While a chat's Pi holds the session, Pi "
            "writes it (`set_session_name`, then Pi's `session_info_changed` event); a session no Pi holds gets "
            "the `session_info` entry Pi would write, appended by pi-context under the one-writer checks; a "
            "session a keeper holds for another window is refused."
        ),
    ),
    Method(
        "pi/sessionTree",
        "request",
        "client → server",
        params="SessionRef",
        result="SessionTreeResult",
        summary=(
            "Every entry of a session as a tree node (children oldest first), labels, the leaf (Pi's: the "
            "last entry, or `leafId`) and the path to it; skipped lines and tree repairs in `problems`. A "
            "session that grows is read from where the last request stopped."
        ),
    ),
    Method(
        "pi/sessionChanged",
        "notification",
        "server → client",
        params="SessionChangedParams",
        result=None,
        summary=(
            "Sent after `pi.compact` or `pi.branchSummary` appended an entry, after a chat's Pi appended to "
            "its session (`chat`), and when the watcher sees a change to a session the client asked about, "
            "so views can ask again."
        ),
    ),
    Method(
        "pi.compact",
        "command",
        "client → server (`workspace/executeCommand`, one argument)",
        params="CompactArgs",
        result="CommandOutcome",
        summary=(
            "Compact a session as Pi's `/compact` does: reports `$/progress` (planning, each summary call "
            "with the characters received, writing), cancellable from the progress UI and with "
            "`$/cancelRequest` (answer `-32800`). `previewOnly` writes nothing; applying with the preview's "
            "`expectedSize` writes the previewed summary without asking the summarizer again "
            "(`fromPreview`), and refuses if the file changed. Failures (the model's error, nothing to "
            "compact, the file grew) answer `-32803` RequestFailed and write nothing. On a session a chat's "
            "Pi holds, the compaction is Pi's (one writer per session): the preview is the plan read from "
            "the file (`chatId`, `plan`: the cut point, what is summarized and kept, tokens before; no "
            "summary yet), and applying runs Pi's `compact` through that chat (refused when the file changed "
            "since the preview or when `leafId` is given); the answer has Pi's summary and the entry Pi "
            "wrote."
        ),
    ),
    Method(
        "pi.branchSummary",
        "command",
        "client → server (`workspace/executeCommand`, one argument)",
        params="BranchSummaryArgs",
        result="CommandOutcome",
        summary=(
            "Summarize the branch left when moving from `fromId` to `toId` (Pi's `/tree` with a summary) and "
            "append the `branch_summary` entry where Pi puts it. Progress, cancellation, previews and "
            "failures as for `pi.compact`. Refused on a session a chat's Pi holds: Pi's RPC mode cannot move "
            "in the tree, so stop the chat first (it can resume the session after)."
        ),
    ),
    Method(
        "pi/chat/locate",
        "request",
        "client → server",
        params=None,
        result="ChatLocateResult",
        summary=(
            "Whether a Pi that can run the chat is installed: the `pi.command` setting, else `pi` on the "
            "PATH, else the usual npm, nvm and Volta folders, with Node's version checked (Pi needs 22.19+). "
            "When there is none, `message` is one sentence for the chat view and `installCommand` the fix."
        ),
    ),
    Method(
        "pi/chat/start",
        "request",
        "client → server",
        params="ChatStartParams",
        result="ChatInfo",
        summary=(
            "Start Pi in RPC mode in a workspace folder (`--session` to resume a file, `--provider/--model` "
            "for `model`). A session another chat holds is refused (one writer per session). A session whose "
            "Pi kept running after its server ended (a window reload) is taken up instead (`reattached: "
            "true`): the run's records in progress come first as `pi/chat/event`, then Pi live. Pi keeps its "
            "own credentials; the server passes its environment and gives Pi no key; the keys Pi may use are "
            "replaced by `***` in everything relayed from the chat."
        ),
    ),
    Method(
        "pi/chat/list",
        "request",
        "client → server",
        params=None,
        result="ChatListResult",
        summary=(
            "The chats the server holds, for a client that reattaches (a reloaded view), and the chats of "
            "its workspace whose Pi kept running after their server ended (`detached`: `pi/chat/start "
            "{session}` takes one up)."
        ),
    ),
    Method(
        "pi/chat/state",
        "request",
        "client → server",
        params="ChatRef",
        result="ChatInfo",
        summary=(
            "The chat with Pi's `get_state` answer (model, thinking level, streaming, the session file) and "
            "its `get_session_stats` (`stats`: totals and `contextUsage`, Pi's own count of the context), "
            "when Pi read its files (`heldSince`), where the files now differ (`drift`), and what Pi leaves "
            "out of an untrusted project (`projectUntrusted`)."
        ),
    ),
    Method(
        "pi/chat/prompt",
        "request",
        "client → server",
        params="ChatPromptParams",
        result="ChatPromptResult",
        summary=(
            "Send a prompt (Pi expands `/skill:name` and prompt templates). While Pi works, "
            "`streamingBehavior` is needed: `steer` is delivered before Pi's next model call, `followUp` "
            "when it is done. The answer is Pi's disposition; the run streams as `pi/chat/event` until "
            "`agent_settled`."
        ),
    ),
    Method(
        "pi/chat/abort",
        "request",
        "client → server",
        params="ChatRef",
        result="ChatQueueResult",
        summary=(
            "Stop: Pi's queue is cleared first (`clear_queue`: `abort` alone keeps a steering message, which "
            "Pi then sends with the next prompt), then the run aborted; answers once Pi is idle again (after "
            "`agent_settled` with `aborted: true`) with the texts that were queued, for the input."
        ),
    ),
    Method(
        "pi/chat/clearQueue",
        "request",
        "client → server",
        params="ChatRef",
        result="ChatQueueResult",
        summary=(
            "Take back what is queued (Pi's `clear_queue`): Pi no longer sends those messages; their texts come back."
        ),
    ),
    Method(
        "pi/chat/reload",
        "request",
        "client → server",
        params="ChatRef",
        result="ChatInfo",
        summary=(
            "Make the chat's Pi take up the files as they are now (the action of `pi/chat/drift`): Pi reads "
            "its context files and settings again on its own session (`switch_session` to its file; "
            "`new_session` before it wrote one), and records the changed prompt sections before its next "
            "request; a changed trust decision needs a new Pi on the same session (the answer then has a new "
            "`chatId`). Refused while Pi replies."
        ),
    ),
    Method(
        "pi/chat/trust",
        "request",
        "client → server",
        params="ChatRef",
        result="ChatInfo",
        summary=(
            "Trust the chat's project the way Pi's `/trust` does (`<agentDir>/trust.json`, the folder's real "
            "path, Pi's lock and format), then start a new Pi on the same session, which loads the project's "
            "skills, settings and prompt files (a running Pi keeps the decision it made at start). The "
            "answer is the new chat."
        ),
    ),
    Method(
        "pi/chat/stop",
        "request",
        "client → server",
        params="ChatRef",
        result=None,
        summary=(
            "End the chat's Pi (stdin closed, then SIGTERM, then SIGKILL of its process group and tool "
            "shells); `pi/chat/exited` follows with `expected: true`."
        ),
    ),
    Method(
        "pi/chat/compactPreview",
        "request",
        "client → server",
        params="ChatCompactParams",
        result="ChatCompactPreview",
        summary=(
            "What compacting the chat's session will do, read from the file with Pi's rules: the first kept "
            "entry, tokens before, the messages summarized and kept, the file lists. Pi writes the summary."
        ),
    ),
    Method(
        "pi/chat/compact",
        "request",
        "client → server",
        params="ChatCompactParams",
        result="ChatCompactResult",
        summary=(
            "Pi's own `compact` (with the instructions as its focus): Pi summarizes with the chat's model "
            "and appends the compaction entry; `compaction_start`/`compaction_end` come as events."
        ),
    ),
    Method(
        "pi/chat/forkPoints",
        "request",
        "client → server",
        params="ChatRef",
        result="ChatForkPointsResult",
        summary=("The user messages a fork can start from (Pi's `get_fork_messages`)."),
    ),
    Method(
        "pi/chat/fork",
        "request",
        "client → server",
        params="ChatForkParams",
        result="ChatForkResult",
        summary=(
            "Fork at a user message (edit or retry it): Pi continues in a new session file holding the "
            "branch before that message; `text` is the message, for the input."
        ),
    ),
    Method(
        "pi/chat/setModel",
        "request",
        "client → server",
        params="ChatSetModelParams",
        result="ChatModelResult",
        summary=("Switch the chat's model (Pi's `set_model`)."),
    ),
    Method(
        "pi/chat/setThinkingLevel",
        "request",
        "client → server",
        params="ChatSetThinkingLevelParams",
        result=None,
        summary=("Set the thinking level (Pi's `set_thinking_level`)."),
    ),
    Method(
        "pi/chat/messages",
        "request",
        "client → server",
        params="ChatRef",
        result="ChatMessagesResult",
        summary=(
            "The conversation so far as Pi holds it (`get_messages`), to rebuild a view, with what is going "
            "on at that very point (`inFlight`: the reply being streamed, the tools running) and the `seq` "
            "of the last event it includes; a view applies only later events on top."
        ),
    ),
    Method(
        "pi/chat/commands",
        "request",
        "client → server",
        params="ChatRef",
        result="ChatItemsResult",
        summary=("Pi's commands for the input: skills (`skill:name`), prompt templates, extension commands."),
    ),
    Method(
        "pi/chat/models",
        "request",
        "client → server",
        params="ChatRef",
        result="ChatItemsResult",
        summary=("The models Pi can use (`get_available_models`), with their windows and prices."),
    ),
    Method(
        "pi/chat/preflight",
        "request",
        "client → server",
        params="ChatPreflightParams",
        result="ChatPreflightResult",
        summary=(
            "Before sending: where the prompt puts the session by Pi's count, and a sentence when it crosses "
            "the compaction threshold (`window - reserveTokens`) or the window."
        ),
    ),
    Method(
        "pi/chat/uiResponse",
        "request",
        "client → server",
        params="ChatUiResponseParams",
        result=None,
        summary=("Answer one of Pi's `extension_ui_request` dialogs (select, confirm, input)."),
    ),
    Method(
        "pi/chat/event",
        "notification",
        "server → client",
        params="ChatEventParams",
        result=None,
        summary=(
            "Every record Pi emits, exactly as Pi wrote it: message deltas with cumulative usage, tool "
            "execution, compaction, retries, the queue, `agent_settled`, extension dialogs."
        ),
    ),
    Method(
        "pi/chat/exited",
        "notification",
        "server → client",
        params="ChatExitedParams",
        result=None,
        summary=(
            "The chat's Pi ended: after `pi/chat/stop` (`expected`), or it crashed or was killed (exit code, "
            "its last stderr lines). The session file is valid; start a chat on it to resume."
        ),
    ),
    Method(
        "pi/chat/notice",
        "notification",
        "server → client",
        params="ChatNoticeParams",
        result=None,
        summary=(
            "What pi-context noticed that is not a Pi event, in one readable sentence with a `kind`: the "
            "session file deleted or replaced under a live chat (`session-deleted` / `session-replaced`), "
            "then written back from what Pi holds (`session-restored`, with the file the chat continues in "
            "as `session`) or not (`session-not-restored`); the workspace folder removed (`folder-removed`: "
            "the chat is ended)."
        ),
    ),
    Method(
        "pi/chat/drift",
        "notification",
        "server → client",
        params="ChatDriftParams",
        result=None,
        summary=(
            "The files on disk now differ from what the chat's Pi read when it started or last reloaded (a "
            "saved AGENTS.md, a skill, SYSTEM.md, Pi's settings, the project's trust), in one sentence with "
            "the action that makes Pi take it up (`pi/chat/reload`); `drift: null` once they agree again. "
            "The chat's numbers keep following what Pi read."
        ),
    ),
    Method(
        "pi.reloadWorkspace",
        "command",
        "client → server (`workspace/executeCommand`, no argument)",
        params=None,
        result=None,
        summary=(
            'Restart the watcher, re-check every file and rebuild the prompts; answers `{"roots": [...], '
            '"watching": [...], "files": n}`.'
        ),
        example=False,
    ),
)

METHOD_BY_NAME: Final = {method.name: method for method in METHODS}
