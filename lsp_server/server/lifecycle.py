"""Start, settings, workspace folders, shutdown: the handlers that set the server up.

Order at start: ``initialize`` reads ``initializationOptions`` and the folders; ``initialized``
asks for ``workspace/configuration`` (when the client has it), registers for configuration
changes (when the client allows dynamic registration), starts the watcher and checks the
workspace. Settings changes later re-apply only what they touch: the watcher restarts when its
roots or debounce change, files are re-checked when the rule profile, trust or agent dir change.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from lsp_server import __version__
from lsp_server.server.app import PiLanguageServer, preload_domain

if TYPE_CHECKING:
    from lsp_server.settings.editor import ServerSettings

SECTION = "piContext"  # the settings section (``lsp_server.settings.editor.SECTION``; a test keeps them equal)

# Settings whose change requires a new watcher, or new findings for every file.
_WATCH_KEYS = frozenset({"watch", "agent_dir", "debounce_ms"})
_CHECK_KEYS = frozenset({"rule_profile", "trust", "agent_dir", "tokens", "limits"})


def changed_keys(old: ServerSettings, new: ServerSettings) -> set[str]:
    return {name for name in type(new).model_fields if getattr(old, name) != getattr(new, name)}


async def pull_configuration(ls: PiLanguageServer) -> Any:
    """The client's ``piContext`` section via ``workspace/configuration`` (``None`` if unavailable)."""
    if not ls.client_supports("workspace", "configuration"):
        return None
    try:
        answer = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
        )
    except Exception as exc:
        ls.log(f"workspace/configuration failed: {exc}", types.MessageType.Warning)
        return None
    return answer[0] if answer else None


async def apply_settings(ls: PiLanguageServer, config_layer: Any, *, initial: bool = False) -> set[str]:
    """Rebuild the settings from ``initializationOptions`` + ``config_layer``; returns changed keys."""
    from lsp_server.settings.editor import parse_settings

    ls.config_layer = config_layer
    new, problems = parse_settings(ls.init_options, config_layer)
    for problem in problems:
        ls.log(f"settings: {problem}", types.MessageType.Warning)
    old, ls.settings = ls.settings, new
    ls.apply_session_limits()
    ls.scheduler.delay_s = new.debounce_ms / 1000
    changed = changed_keys(old, new)
    if initial:
        return changed
    ls.log(f"settings applied ({'changed: ' + ', '.join(sorted(changed)) if changed else 'no change'})")
    if not changed:
        return changed
    if changed & _WATCH_KEYS:
        ls.start_watcher()
    if changed & _CHECK_KEYS:
        await ls.check_workspace()
    ls.notify_listeners("settings", [])
    return changed


async def register_for_configuration_changes(ls: PiLanguageServer) -> None:
    """VS Code sends ``didChangeConfiguration`` only to servers that register for it."""
    if not ls.client_supports("workspace", "did_change_configuration", "dynamic_registration"):
        return
    registration = types.Registration(
        id=str(uuid.uuid4()),
        method=types.WORKSPACE_DID_CHANGE_CONFIGURATION,
        register_options={"section": SECTION},
    )
    try:
        await ls.client_register_capability_async(types.RegistrationParams(registrations=[registration]))
    except Exception as exc:  # not fatal: the settings still come from initializationOptions
        ls.log(f"could not register for configuration changes: {exc}", types.MessageType.Warning)


def register(server: PiLanguageServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: PiLanguageServer, params: types.InitializeParams) -> None:
        # Answered before the domain is imported: the settings are parsed on first use, the rest
        # is imported in a thread once the client has the answer (``initialized`` below).
        ls.init_options = params.initialization_options
        ls.client_name = params.client_info.name if params.client_info is not None else ""
        ls.reset_settings()
        ls.roots = ls.workspace_roots()

    @server.feature(types.INITIALIZED)
    async def initialized(ls: PiLanguageServer, params: types.InitializedParams) -> None:
        count = 0
        try:
            try:
                pushes = ls.config_pushes
                await asyncio.to_thread(preload_domain)
                pulled = await pull_configuration(ls)
                # A client may push its settings (didChangeConfiguration) while the domain loads or the
                # pull is answered (Neovim does from on_init): that push is newer than what the pull returned.
                layer = ls.config_layer if ls.config_pushes != pushes else pulled
                await apply_settings(ls, layer, initial=True)
                await register_for_configuration_changes(ls)
            finally:
                # Settings and roots are what requests need: they no longer wait for the walks below
                # (a workspace of 20,000 skill folders takes seconds to watch and to list).
                ls.ready.set()
            ls.notify_listeners("ready", list(ls.roots))  # the folders' first prompt builds start now
            ls.start_watcher()
            count = await ls.check_workspace()
        finally:
            ls.started.set()
        watched = ls.watcher.roots if ls.watcher is not None else []
        ls.log(
            f"{ls.name} {__version__}: {len(ls.roots)} folder(s), watching {len(watched)} root(s), "
            f"checker {ls.checker.name}, {count} file(s) to check, profile {ls.settings.rule_profile}"
        )

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: PiLanguageServer, params: types.DidChangeConfigurationParams) -> None:
        ls.config_pushes += 1
        pushed = params.settings
        if isinstance(pushed, Mapping) and isinstance(pushed.get(SECTION), Mapping):
            layer: Any = pushed[SECTION]
        elif ls.client_supports("workspace", "configuration"):
            layer = await pull_configuration(ls)
        elif isinstance(pushed, Mapping) and pushed:
            layer = pushed
        else:
            layer = ls.config_layer
        await apply_settings(ls, layer)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def did_change_workspace_folders(ls: PiLanguageServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        before = set(ls.roots)
        ls.roots = ls.workspace_roots()
        kept = [*ls.roots, *ls.agent_dirs()]
        for removed in before - set(ls.roots):
            prefix = removed.rstrip(os.sep) + os.sep
            for path in ls.book.paths():
                inside_kept = any(path.startswith(root.rstrip(os.sep) + os.sep) for root in kept)
                if path.startswith(prefix) and not inside_kept and not ls.documents.is_open(path):
                    ls.clear(path)
        ls.start_watcher()
        await ls.check_workspace()
        ls.notify_listeners("folders", list(ls.roots))

    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def work_done_progress_cancel(ls: PiLanguageServer, params: types.WorkDoneProgressCancelParams) -> None:
        ls.cancels.cancel_progress(params.token)

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: PiLanguageServer, params: Any) -> None:
        # An idle chat's Pi ends in order (stdin closed), none is left behind; a busy one under a keeper
        # finishes its turn and waits a while for the next server (a window reload) to take it up.
        await ls.chats.release_all()
        ls.shutdown_services()
