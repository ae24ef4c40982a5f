"""``pi.debug.*`` commands: a window into the server for tests and bug reports.

Registered only when the server runs with ``--debug`` or ``PI_CONTEXT_DEBUG=1``, so editors never
list them. They answer questions a test cannot ask through LSP alone (which text does the server
hold for this file, how many validations ran, is the watcher up) and exercise the machinery for
long commands (``pi.debug.sleep``: progress and cancellation) and failures (``pi.debug.fail``).
The server also sends ``pi/debug/watchEvents`` with every batch from the watcher in this mode.
"""

from __future__ import annotations

import asyncio
from typing import Any

from lsp_server.server.app import PiLanguageServer
from lsp_server.server.features import FEATURES
from lsp_server.server.handlers import HANDLERS

STATE = "pi.debug.state"
PROMPT_STATE = "pi.debug.promptState"
SESSIONS = "pi.debug.sessions"
READ = "pi.debug.read"
SLEEP = "pi.debug.sleep"
FAIL = "pi.debug.fail"
ECHO = "pi/debug/echo"
WATCH_EVENTS = "pi/debug/watchEvents"


def _options(args: tuple[Any, ...]) -> dict[str, Any]:
    first = args[0] if args else None
    return dict(first) if isinstance(first, dict) else {}


def register(server: PiLanguageServer) -> None:
    @server.command(STATE)
    async def state(ls: PiLanguageServer, *args: Any) -> dict[str, Any]:
        """Settings, roots, open files, stats. ``{"idle": true}`` first waits for pending checks,
        ``{"watcherReady": true}`` for the watcher's OS watches."""
        options = _options(args)
        await ls.ws.wait_started()
        if options.get("watcherReady"):
            await ls.ws.watcher_settled()
        if options.get("idle"):
            await asyncio.wait_for(ls.ws.scheduler.idle(), timeout=30)
        watcher = ls.ws.watcher
        return {
            "settings": ls.ws.settings.wire(),
            "agentDir": ls.ws.agent_dir,
            "roots": ls.ws.roots,
            "watcher": {
                "running": watcher is not None and watcher.running,
                "ready": watcher is not None and watcher.ready,
                "roots": watcher.roots if watcher is not None else [],
                "debounceMs": watcher.debounce_ms if watcher is not None else None,
            },
            "checker": ls.ws.checker.name,
            "features": [register.__module__.rsplit(".", 1)[-1] for register in FEATURES],
            "methods": len(HANDLERS),
            "openDocuments": ls.ws.documents.open_paths(),
            "pulled": sorted(ls.ws.pulled),
            "diagnostics": {
                path: len(entry.findings) for path in ls.ws.book.paths() if (entry := ls.ws.book.get(path))
            },
            "stats": ls.ws.stats.to_json(),
            "scheduler": {
                "submitted": ls.ws.scheduler.stats.submitted,
                "superseded": ls.ws.scheduler.stats.superseded,
                "completed": ls.ws.scheduler.stats.completed,
                "failed": ls.ws.scheduler.stats.failed,
                "immediate": ls.ws.scheduler.stats.immediate,
                "coalesced": ls.ws.scheduler.stats.coalesced,
                "pending": ls.ws.scheduler.pending_keys(),
            },
            "operations": ls.cancels.active(),
        }

    @server.command(PROMPT_STATE)
    async def prompt_state(ls: PiLanguageServer, *args: Any) -> dict[str, Any]:
        """Per cwd: builds, notifications sent, skill cache use (``{"idle": true}`` waits first)."""
        await ls.ws.wait_ready()
        if _options(args).get("idle"):
            await asyncio.wait_for(ls.ws.scheduler.idle(), timeout=30)
        return ls.ws.projects.describe()

    @server.command(SESSIONS)
    def sessions(ls: PiLanguageServer, *args: Any) -> dict[str, str]:
        """How each followed session was last read: loaded, appended, unchanged, reloaded, ..."""
        store = ls.ws.sessions
        return {path: result.kind for path, result in store.last_refresh.items() if store.cached(path)}

    @server.command(READ)
    def read(ls: PiLanguageServer, uri: str) -> dict[str, Any]:
        """The text the server holds for a file: the open buffer, else the disk."""
        path = ls.uri_to_path(uri) if uri.startswith("file:") else uri
        if path is None:
            raise ValueError(f"not a file URI: {uri}")
        source = ls.ws.documents.read(path)
        return {
            "path": source.path,
            "text": source.text,
            "version": source.version,
            "fromBuffer": source.from_buffer,
            "error": source.error,
        }

    @server.command(SLEEP)
    async def sleep(ls: PiLanguageServer, *args: Any) -> dict[str, Any]:
        """``{"steps": n, "stepMs": ms}``: n reported steps; cancellable like a real long command."""
        options = _options(args)
        steps = int(options.get("steps", 10))
        step_s = float(options.get("stepMs", 100)) / 1000
        async with ls.long_operation("pi-context: sleeping", message=f"0/{steps}") as operation:
            for done in range(1, steps + 1):
                await asyncio.sleep(step_s)
                operation.report(f"{done}/{steps}", percentage=done * 100 // steps)
        return {"completed": steps, "progressToken": operation.progress_token}

    @server.feature(ECHO)
    def echo(ls: PiLanguageServer, params: Any) -> Any:
        """A custom request answering its params: they must arrive as plain JSON."""
        return {"params": params, "type": type(params).__name__}

    @server.command(FAIL)
    def fail(ls: PiLanguageServer, *args: Any) -> None:
        """Raises inside the handler, to prove a failing handler does not take the server down."""
        message = str(args[0]) if args else "requested failure"
        raise RuntimeError(message)
