"""The server's capabilities, as pygls computes them from the registered features: generated
by ``python -m lsp_server.server.early`` (do not edit); :mod:`lsp_server.server.early` answers
``initialize`` with them before pygls is imported. ``tests/server/test_early_initialize.py`` fails
when they are stale."""

from typing import Any

CAPABILITIES: dict[str, Any] = {
    "codeActionProvider": {"codeActionKinds": ["quickfix"]},
    "codeLensProvider": {"resolveProvider": False},
    "completionProvider": {"triggerCharacters": [":"]},
    "diagnosticProvider": {"identifier": "pi-context", "interFileDependencies": False, "workspaceDiagnostics": False},
    "documentSymbolProvider": True,
    "executeCommandProvider": {"commands": ["pi.compact", "pi.branchSummary", "pi.reloadWorkspace"]},
    "hoverProvider": True,
    "textDocumentSync": {"change": 2, "openClose": True, "save": True},
    "workspace": {"fileOperations": {}, "workspaceFolders": {"changeNotifications": True, "supported": True}},
}

# The commands with the pi.debug.* ones, registered with --debug or PI_CONTEXT_DEBUG=1.
COMMANDS_WITH_DEBUG: list[str] = [
    "pi.compact",
    "pi.branchSummary",
    "pi.reloadWorkspace",
    "pi.debug.state",
    "pi.debug.promptState",
    "pi.debug.sessions",
    "pi.debug.read",
    "pi.debug.sleep",
    "pi.debug.fail",
]
