"""Whether and how a chat's Pi is kept when the language server ends: the keepers' options.

A chat's Pi runs under a keeper (:mod:`lsp_server.pi_rpc.keeper`) so that a turn outlives a window
reload. Where the keepers live is the user's private runtime folder
(:func:`~lsp_server.pi_rpc.keeper_files.default_runtime_dir`); how long a Pi waits for a window
comes from the settings (``pi.reattachGraceSeconds``, ``pi.detachedTurnLimitSeconds``). Without a
usable folder (another user's, or reachable by others), on a system without Unix sockets, or with
``PI_CONTEXT_NO_KEEPER=1`` in the server's environment, Pi runs as the server's own child as
before, and a turn ends with the server. The first time a folder is used, what stale keepers left
there (killed with ``kill -9``) is cleaned up.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from lsp_server.pi_rpc.keeper_files import KeeperDirError, default_runtime_dir, ensure_private_dir, sweep_stale
from lsp_server.pi_rpc.kept import KeepOptions
from lsp_server.settings.pi_context import PiAgentSettings

NO_KEEPER_ENV: Final = "PI_CONTEXT_NO_KEEPER"


class Keeping:
    """The keepers' folder of this server, checked (and swept) once per path."""

    def __init__(self) -> None:
        self._checked: dict[Path, str | None] = {}  # folder -> why it cannot be used (None: it can)

    def folder(self, env: Mapping[str, str] | None = None) -> Path | None:
        env = os.environ if env is None else env
        if os.name != "posix" or env.get(NO_KEEPER_ENV) == "1":
            return None
        folder = default_runtime_dir(env)
        if folder not in self._checked:
            try:
                ensure_private_dir(folder)
            except KeeperDirError as error:
                self._checked[folder] = str(error)
            else:
                self._checked[folder] = None
                sweep_stale(folder)
        return folder if self._checked[folder] is None else None

    def problem(self, env: Mapping[str, str] | None = None) -> str | None:
        """Why chats run without a keeper here, in one sentence (None when they do not)."""
        env = os.environ if env is None else env
        if env.get(NO_KEEPER_ENV) == "1":
            return f"{NO_KEEPER_ENV}=1"
        return self._checked.get(default_runtime_dir(env))

    def options(self, settings: PiAgentSettings, env: Mapping[str, str] | None = None) -> KeepOptions | None:
        folder = self.folder(env)
        if folder is None:
            return None
        return KeepOptions(
            folder, grace_s=settings.reattach_grace_seconds, turn_limit_s=settings.detached_turn_limit_seconds
        )
