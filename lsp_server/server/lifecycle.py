"""Start, settings, workspace folders, shutdown: the LSP side of setting the workspace up.

Order at start: ``initialize`` reads ``initializationOptions``, the client's name and the folders;
``initialized`` asks for ``workspace/configuration`` (when the client has it), registers for
configuration changes (when the client allows dynamic registration), and lets the workspace start
(its folders' first prompts, the watcher, the workspace check). Settings changes later re-apply only
what they touch (:meth:`Workspace.apply_settings`).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from lsprotocol import types

from lsp_server import __version__
from lsp_server.server.app import PiLanguageServer
from lsp_server.settings.editor import SECTION


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
        ws = ls.ws
        ws.init_options = params.initialization_options
        ws.client_name = params.client_info.name if params.client_info is not None else ""
        ws.reset_settings()
        ws.roots = ls.workspace_roots()

    @server.feature(types.INITIALIZED)
    async def initialized(ls: PiLanguageServer, params: types.InitializedParams) -> None:
        ws = ls.ws
        count = 0
        try:
            try:
                pushes = ws.config_pushes
                pulled = await pull_configuration(ls)
                # A client may push its settings (didChangeConfiguration) while the pull is answered (Neovim
                # does from on_init): that push is newer than what the pull returned.
                layer = ws.config_layer if ws.config_pushes != pushes else pulled
                await ws.apply_settings(layer, initial=True)
                await register_for_configuration_changes(ls)
            finally:
                # Settings and roots are what requests need: they no longer wait for the walks below
                # (a workspace of 20,000 skill folders takes seconds to watch and to list).
                ws.ready.set()
            count = await ws.start()
        finally:
            ws.started.set()
        watched = ws.watcher.roots if ws.watcher is not None else []
        ls.log(
            f"{ls.name} {__version__}: {len(ws.roots)} folder(s), watching {len(watched)} root(s), "
            f"checker {ws.checker.name}, {count} file(s) to check, profile {ws.settings.rule_profile}"
        )

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: PiLanguageServer, params: types.DidChangeConfigurationParams) -> None:
        ws = ls.ws
        ws.config_pushes += 1
        pushed = params.settings
        if isinstance(pushed, Mapping) and isinstance(pushed.get(SECTION), Mapping):
            layer: Any = pushed[SECTION]
        elif ls.client_supports("workspace", "configuration"):
            layer = await pull_configuration(ls)
        elif isinstance(pushed, Mapping) and pushed:
            layer = pushed
        else:
            layer = ws.config_layer
        await ws.apply_settings(layer)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def did_change_workspace_folders(ls: PiLanguageServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        await ls.ws.set_folders(ls.workspace_roots())

    @server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def work_done_progress_cancel(ls: PiLanguageServer, params: types.WorkDoneProgressCancelParams) -> None:
        ls.cancels.cancel_progress(params.token)

    @server.feature(types.SHUTDOWN)
    async def shutdown(ls: PiLanguageServer, params: Any) -> None:
        await ls.ws.shutdown()
