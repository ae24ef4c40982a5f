"""``pi/chat/*``: chats with Pi itself, one Pi process in RPC mode per chat, owned by the workspace.

The workspace starts Pi in the workspace folder (``pi/chat/start``), forwards the client's commands as
Pi's RPC commands and every record Pi emits as ``pi/chat/event``, unchanged (the supervisor,
:mod:`.chat_supervisor`). It never writes a session a chat holds: Pi does (``pi.compact`` on such a
session previews from the file and then runs Pi's ``compact`` through the chat, :func:`compact_in_chat`;
``pi.branchSummary`` refuses it, as Pi's RPC mode cannot move in the tree), and a second chat on the
same session is refused. Each function here is one request: params in, one call, result out.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsp_server import protocol
from lsp_server.chat.chat import Chat, ChatSpec
from lsp_server.chat.lens import compaction_preview, preflight_result
from lsp_server.chat.live import untrusted_sentence
from lsp_server.chat.registry import ChatError
from lsp_server.context.trust_record import record_trust
from lsp_server.pi_rpc import PiUnavailable
from lsp_server.project.project import Project, header_cwd, session_folder
from lsp_server.session.attachments import AttachmentRequest, build_prompt
from lsp_server.vocabulary.pi_files import AGENT_DIR_ENV
from lsp_server.vocabulary.pi_releases import rules_for
from lsp_server.workspace.chat_supervisor import chat_rules, clean, drift_wire, pi_call
from lsp_server.workspace.errors import InvalidParams, RequestFailed
from lsp_server.workspace.events import DiskChanged
from lsp_server.workspace.session_access import live_lens, read_session, resolve_folder, session_path

if TYPE_CHECKING:
    from lsp_server.session.tail import SessionFile
    from lsp_server.workspace.workspace import Workspace


def chat_info(ws: Workspace, chat: Chat, state: dict[str, Any] | None = None) -> protocol.ChatInfo:
    cwd = chat.spec.cwd
    return protocol.ChatInfo(
        chat_id=chat.chat_id,
        session=chat.session,
        cwd=cwd,
        workspace_folder=ws.client.folder_uri(cwd) if cwd in ws.roots else None,
        pi_version=chat.installation.pi_version,
        streaming=chat.streaming,
        compacting=chat.compacting,
        state=clean(chat, state) if state is not None else {},
        kept=chat.kept,
        reattached=chat.reattached,
        held_since=chat.held.read_at if chat.held is not None else None,
        drift=drift_wire(chat.drift),
        project_untrusted=untrusted_sentence(chat.held.project) if chat.held is not None else None,
        capabilities=capabilities_wire(chat),
    )


def capabilities_wire(chat: Chat) -> protocol.ChatCapabilities:
    """What the chat's Pi supports, as the view reads it (lsp_server/pi_rpc/capabilities.py)."""
    return protocol.ChatCapabilities.model_validate(
        {**chat.capabilities.to_json(), "note": rules_for(chat.installation.pi_version).note}
    )


def _initial_info(ws: Workspace, chat: Chat) -> protocol.ChatInfo:
    return chat_info(ws, chat, chat.process.initial_state if chat.process else None)


def _start_session(ws: Workspace, value: str | None, folder: Path | None) -> str | None:
    """pi/chat/start's session: an existing file, or one a kept Pi holds and has not written yet (a new chat)."""
    if value is None:
        return None
    try:
        return session_path(ws, protocol.CHAT_START, value)
    except InvalidParams:
        path = ws.client.path_of(value) if value.startswith("file:") else value
        if path and os.path.isabs(path) and ws.chats.kept_elsewhere(folder, os.path.normpath(path)) is not None:
            return os.path.normpath(path)
        raise


def detached_chats(ws: Workspace) -> list[protocol.DetachedChat]:
    """The chats of this workspace whose Pi kept running after their server ended, oldest first."""
    found = []
    for record in ws.chats.detached(ws.chats.keeping.folder(ws.env)):
        if record.cwd not in ws.roots:
            continue
        found.append(
            protocol.DetachedChat(
                session=record.session,
                cwd=record.cwd,
                workspace_folder=ws.client.folder_uri(record.cwd),
                busy=record.busy,
                started_at=record.started_at,
                detached_at=record.detached_at,
                pi_pid=record.pi_pid,
                pi_version=record.pi_version,
            )
        )
    return found


def _chat(ws: Workspace, chat_id: str) -> Chat:
    try:
        chat = ws.chats.get(chat_id)
    except ChatError as exc:
        raise RequestFailed(str(exc)) from None
    if not chat.alive:
        raise RequestFailed(f"chat {chat_id}'s Pi has exited; start the chat again to resume its session")
    return chat


def queue_result(queued: dict[str, Any]) -> protocol.ChatQueueResult:
    def texts(value: Any) -> list[str]:
        return [text for text in value if isinstance(text, str)] if isinstance(value, list) else []

    return protocol.ChatQueueResult(steering=texts(queued.get("steering")), follow_up=texts(queued.get("followUp")))


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _int_or_none(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


async def _session_cwd(ws: Workspace, method: str, chat: Chat, session: str) -> str:
    """The project a chat's session is analysed in (the rule of ``session_folder``)."""
    session_cwd = await read_session(ws, method, session, None, lambda s: header_cwd(s.header))
    return session_folder(session_cwd, fallback=lambda: chat.spec.cwd).cwd


async def _chat_project(ws: Workspace, method: str, chat: Chat, session: str) -> Project:
    """The project a chat's compaction is planned in: Pi's settings as its Pi read them (chat/live.py)."""
    held = live_lens(ws, session)
    return held.project if held is not None else ws.projects.open(await _session_cwd(ws, method, chat, session))


# --- the requests ---------------------------------------------------------------------------------


async def locate(ws: Workspace, params: None) -> protocol.ChatLocateResult:
    await ws.wait_ready()
    location = await ws.chats.locate(ws.settings.pi.command, ws.chat_supervisor.pi_env())
    if isinstance(location, PiUnavailable):
        return protocol.ChatLocateResult(
            found=False, message=location.message, install_command=location.install_command
        )
    return protocol.ChatLocateResult(
        found=True,
        pi_version=location.pi_version,
        node_version=location.node_version,
        command=list(location.argv),
        source=location.source,
    )


async def start(ws: Workspace, params: protocol.ChatStartParams) -> protocol.ChatInfo:
    await ws.wait_ready()
    supervisor = ws.chat_supervisor
    cwd = resolve_folder(ws, protocol.CHAT_START, params.workspace_folder)
    keep = ws.chats.keeping.options(ws.settings.pi, ws.env)
    session = _start_session(ws, params.session, keep.folder if keep is not None else None)
    env = supervisor.pi_env(cwd)
    spec = ChatSpec(cwd=cwd, session=session, model=params.model, env=env, secrets=supervisor.pi_secrets(env, cwd))
    ws.keys.add(spec.secrets)  # the server's log lines are redacted with them too
    taken = await supervisor.take_up(spec)
    if taken is not None:
        return _initial_info(ws, taken)
    installation = await supervisor.installation()
    chat = await supervisor.start_pi(spec, installation)
    return _initial_info(ws, chat)


async def reload(ws: Workspace, params: protocol.ChatRef) -> protocol.ChatInfo:
    supervisor = ws.chat_supervisor
    chat = _chat(ws, params.chat_id)
    drift = await supervisor.check_drift(chat, notify=False)
    if drift is not None and drift.action == "restart":
        chat = await supervisor.restart(chat)
        return _initial_info(ws, chat)
    await pi_call(lambda: supervisor.reload_in_place(chat), chat.spec.redactor)
    await supervisor.check_drift(chat, notify=False)
    state = await pi_call(chat.refresh_state, chat.spec.redactor)
    return chat_info(ws, chat, state)


async def trust(ws: Workspace, params: protocol.ChatRef) -> protocol.ChatInfo:
    supervisor = ws.chat_supervisor
    chat = _chat(ws, params.chat_id)
    if chat.streaming or chat.compacting:
        raise RequestFailed("Pi is working on a reply: trust the project once the reply has ended")
    cwd = chat.spec.cwd
    agent_dir = supervisor.pi_env(cwd).get(AGENT_DIR_ENV) or ws.projects.inputs_for(cwd).agent_dir
    recorded = await asyncio.get_running_loop().run_in_executor(None, record_trust, agent_dir, cwd)
    if isinstance(recorded, str):
        raise RequestFailed(recorded)
    ws.client.log(f"chat {chat.chat_id}: {recorded.key} is trusted in {recorded.store_path}, as Pi's /trust saves it")
    ws.emit(DiskChanged((recorded.store_path,)))  # the prompt, the views and other chats follow now
    chat = await supervisor.restart(chat)
    return _initial_info(ws, chat)


async def clear_queue(ws: Workspace, params: protocol.ChatRef) -> protocol.ChatQueueResult:
    chat = _chat(ws, params.chat_id)
    return queue_result(await pi_call(chat.clear_queue, chat.spec.redactor))


async def list_chats(ws: Workspace, params: None) -> protocol.ChatListResult:
    await ws.wait_ready()  # the workspace folders decide which kept chats are this window's
    chats = [chat_info(ws, chat) for chat in ws.chats if chat.alive]
    return protocol.ChatListResult(chats=chats, detached=detached_chats(ws))


async def state(ws: Workspace, params: protocol.ChatRef) -> protocol.ChatInfo:
    chat = _chat(ws, params.chat_id)
    pi_state = await pi_call(chat.refresh_state, chat.spec.redactor)
    stats = await pi_call(chat.session_stats, chat.spec.redactor)
    return chat_info(ws, chat, pi_state).model_copy(update={"stats": stats})


def _attachment_requests(attachments: list[protocol.ChatAttachment]) -> list[AttachmentRequest]:
    return [AttachmentRequest(a.path, a.start_line, a.end_line, a.text) for a in attachments]


async def prompt(ws: Workspace, params: protocol.ChatPromptParams) -> protocol.ChatPromptResult:
    chat = _chat(ws, params.chat_id)
    text = params.text
    if params.attachments:
        built = await asyncio.to_thread(build_prompt, text, _attachment_requests(params.attachments), chat.spec.cwd)
        if built.refused:
            raise RequestFailed(" ".join(r.reason for r in built.refused))
        text = built.text
    disposition = await pi_call(lambda: chat.prompt(text, params.streaming_behavior), chat.spec.redactor)
    return protocol.ChatPromptResult(disposition=disposition)


async def abort(ws: Workspace, params: protocol.ChatRef) -> protocol.ChatQueueResult:
    # Pi's own Esc: the queue is cleared first (abort alone keeps it, and Pi sends it with the next prompt),
    # and its texts go back to the client's input.
    chat = _chat(ws, params.chat_id)
    queued = await pi_call(chat.clear_queue, chat.spec.redactor)
    await pi_call(chat.abort, chat.spec.redactor)
    return queue_result(queued)


async def stop(ws: Workspace, params: protocol.ChatRef) -> dict[str, Any]:
    try:
        ws.chats.get(params.chat_id)
    except ChatError as exc:
        raise RequestFailed(str(exc)) from None
    await ws.chats.stop(params.chat_id)
    return {}


async def compact(ws: Workspace, params: protocol.ChatCompactParams) -> protocol.ChatCompactResult:
    chat = _chat(ws, params.chat_id)
    result = await pi_call(lambda: chat.compact(params.instructions), chat.spec.redactor)
    return protocol.ChatCompactResult(
        summary=str(result.get("summary", "")),
        first_kept_entry_id=_str_or_none(result.get("firstKeptEntryId")),
        tokens_before=_int_or_none(result.get("tokensBefore")),
        estimated_tokens_after=_int_or_none(result.get("estimatedTokensAfter")),
        usage=result.get("usage") if isinstance(result.get("usage"), dict) else None,
    )


async def compact_preview(ws: Workspace, params: protocol.ChatCompactParams) -> protocol.ChatCompactPreview:
    chat = _chat(ws, params.chat_id)
    session = chat.session
    if session is None or not os.path.isfile(session):
        raise RequestFailed("nothing to compact yet: Pi has not written the session")
    project = await _chat_project(ws, protocol.CHAT_COMPACT_PREVIEW, chat, session)
    preview = await asyncio.get_running_loop().run_in_executor(
        None, compaction_preview, project, session, params.instructions, chat_rules(chat)
    )
    if isinstance(preview, str):
        raise RequestFailed(preview)
    return protocol.ChatCompactPreview.model_validate(preview.to_json())


async def fork(ws: Workspace, params: protocol.ChatForkParams) -> protocol.ChatForkResult:
    supervisor = ws.chat_supervisor
    chat = _chat(ws, params.chat_id)
    held = await supervisor.take_held(chat.spec.cwd)  # a fork builds a new runtime: Pi reads its files again
    result = await pi_call(lambda: chat.fork(params.entry_id), chat.spec.redactor)
    if not result.get("cancelled"):
        supervisor.keep_held(chat, held)
    return protocol.ChatForkResult(
        text=_str_or_none(result.get("text")), cancelled=bool(result.get("cancelled")), session=chat.session
    )


async def fork_points(ws: Workspace, params: protocol.ChatRef) -> protocol.ChatForkPointsResult:
    chat = _chat(ws, params.chat_id)
    messages = await pi_call(chat.fork_points, chat.spec.redactor)
    points = [
        protocol.ForkPoint(entry_id=str(m.get("entryId")), text=str(m.get("text", "")))
        for m in messages
        if isinstance(m.get("entryId"), str)
    ]
    return protocol.ChatForkPointsResult(messages=points)


async def set_model(ws: Workspace, params: protocol.ChatSetModelParams) -> protocol.ChatModelResult:
    chat = _chat(ws, params.chat_id)
    model = await pi_call(lambda: chat.set_model(params.model), chat.spec.redactor)
    return protocol.ChatModelResult(model=model)


async def set_thinking_level(ws: Workspace, params: protocol.ChatSetThinkingLevelParams) -> dict[str, Any]:
    chat = _chat(ws, params.chat_id)
    await pi_call(lambda: chat.set_thinking_level(params.level), chat.spec.redactor)
    return {}


async def messages(ws: Workspace, params: protocol.ChatRef) -> protocol.ChatMessagesResult:
    chat = _chat(ws, params.chat_id)
    snapshot = await pi_call(chat.messages_snapshot, chat.spec.redactor)
    return protocol.ChatMessagesResult(
        items=clean(chat, snapshot.messages),
        in_flight=snapshot.in_flight,  # the run log's records, redacted as they came in
        seq=snapshot.seq,
        in_flight_truncated=snapshot.truncated,
    )


async def commands(ws: Workspace, params: protocol.ChatRef) -> protocol.ChatItemsResult:
    chat = _chat(ws, params.chat_id)
    return protocol.ChatItemsResult(items=await pi_call(chat.commands, chat.spec.redactor))


async def models(ws: Workspace, params: protocol.ChatRef) -> protocol.ChatItemsResult:
    chat = _chat(ws, params.chat_id)
    return protocol.ChatItemsResult(items=await pi_call(chat.models, chat.spec.redactor))


async def preflight(ws: Workspace, params: protocol.ChatPreflightParams) -> protocol.ChatPreflightResult:
    chat = _chat(ws, params.chat_id)
    built = (
        await asyncio.to_thread(build_prompt, params.text, _attachment_requests(params.attachments), chat.spec.cwd)
        if params.attachments
        else None
    )
    session = chat.session
    if session is not None and os.path.isfile(session):
        snapshot = live_lens(ws, session) or await ws.projects.snapshot(
            await _session_cwd(ws, protocol.CHAT_PREFLIGHT, chat, session)
        )

        def run(loaded: SessionFile) -> protocol.ChatPreflightResult:
            return preflight_result(snapshot, loaded, params.text, built)

        result: protocol.ChatPreflightResult = await read_session(ws, protocol.CHAT_PREFLIGHT, session, None, run)
        return result
    # a new chat: Pi writes the file with the first message
    held = chat.held.lens(ws.projects.inputs_for(chat.spec.cwd)) if chat.held is not None else None
    return preflight_result(held or await ws.projects.snapshot(chat.spec.cwd), None, params.text, built)


async def ui_response(ws: Workspace, params: protocol.ChatUiResponseParams) -> dict[str, Any]:
    chat = _chat(ws, params.chat_id)
    answer = params.model_dump(by_alias=True, exclude_none=True, include={"value", "confirmed", "cancelled"})
    await pi_call(lambda: chat.ui_response(params.id, answer), chat.spec.redactor)
    return {}


async def compact_in_chat(ws: Workspace, chat: Chat, request: protocol.CompactArgs) -> dict[str, Any]:
    """``pi.compact`` on a session a chat holds: the plan from the file as a preview, then Pi's ``compact``.

    Pi writes the summary with the chat's model (one writer per session); what pi-context shows first is
    where Pi will cut and what it keeps, read from the file with Pi's rules (the lens), as the chat's
    own ``/compact`` does.
    """
    method = protocol.CMD_COMPACT
    path = request.session
    if request.leaf_id is not None:
        raise RequestFailed(
            f"{path} is open in chat {chat.chat_id}: Pi compacts the branch it is on, and its RPC mode cannot move "
            "to another entry; compact without choosing an entry, or stop the chat first"
        )
    state = await pi_call(chat.refresh_state, chat.spec.redactor)
    model = state.get("model") if isinstance(state.get("model"), dict) else {}
    name = f"{model.get('provider')}/{model.get('id')}" if model else "its model"
    summarizer = f"Pi in chat {chat.chat_id} ({name})"
    if request.preview_only:
        project = await _chat_project(ws, method, chat, path)
        plan = await asyncio.get_running_loop().run_in_executor(
            None, compaction_preview, project, path, None, chat_rules(chat)
        )
        if isinstance(plan, str):
            raise RequestFailed(plan)
        return protocol.CommandOutcome(
            written=False,
            preview_only=True,
            summary="",
            first_kept_entry_id=plan.first_kept_entry_id,
            tokens_before=plan.tokens_before,
            summarizer=summarizer,
            session_size=os.path.getsize(path),
            chat_id=chat.chat_id,
            plan=protocol.ChatCompactPreview.model_validate(plan.to_json()),
        ).wire()
    if request.expected_size is not None and os.path.getsize(path) != request.expected_size:
        raise RequestFailed(
            f"{path} changed since the preview (Pi appended to it in chat {chat.chat_id}); preview the compaction again"
        )
    result = await pi_call(lambda: chat.compact(request.instructions), chat.spec.redactor)
    session = chat.session or path
    entry = await read_session(
        ws,
        method,
        session,
        None,
        lambda s: next((e for e in reversed(s.entries) if e.get("type") == "compaction"), None),
    )
    return protocol.CommandOutcome(
        written=True,
        preview_only=False,
        summary=str(result.get("summary", "")),
        entry=dict(entry) if isinstance(entry, dict) else None,
        first_kept_entry_id=_str_or_none(result.get("firstKeptEntryId")),
        tokens_before=_int_or_none(result.get("tokensBefore")),
        summarizer=summarizer,
        session_size=os.path.getsize(session),
        chat_id=chat.chat_id,
    ).wire()
