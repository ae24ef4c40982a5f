"""The names of pi-context's custom LSP methods, notifications and commands.

Kept apart from the payload models in :mod:`lsp_server.protocol` (which re-exports them) so that
the server can register its handlers, and answer ``initialize``, without importing pydantic.
"""

from __future__ import annotations

__all__ = [
    "CHAT_ABORT",
    "CHAT_CLEAR_QUEUE",
    "CHAT_COMMANDS",
    "CHAT_COMPACT",
    "CHAT_COMPACT_PREVIEW",
    "CHAT_DRIFT",
    "CHAT_EVENT",
    "CHAT_EXITED",
    "CHAT_FORK",
    "CHAT_FORK_POINTS",
    "CHAT_LIST",
    "CHAT_LOCATE",
    "CHAT_MESSAGES",
    "CHAT_MODELS",
    "CHAT_NOTICE",
    "CHAT_PREFLIGHT",
    "CHAT_PROMPT",
    "CHAT_RELOAD",
    "CHAT_SET_MODEL",
    "CHAT_SET_THINKING_LEVEL",
    "CHAT_START",
    "CHAT_STATE",
    "CHAT_STOP",
    "CHAT_TRUST",
    "CHAT_UI_RESPONSE",
    "CMD_BRANCH_SUMMARY",
    "CMD_COMPACT",
    "CMD_RELOAD_WORKSPACE",
    "CONTEXT_BUDGET",
    "PROJECTED_REQUEST",
    "PROMPT_SECTIONS_CHANGED",
    "SESSIONS",
    "SESSION_CHANGED",
    "SESSION_TREE",
    "SYSTEM_PROMPT",
    "TURN_LEDGER",
    "USAGE",
]

# --- requests, notifications, commands -------------------------------------------------------

SYSTEM_PROMPT = "pi/systemPrompt"
PROMPT_SECTIONS_CHANGED = "pi/promptSectionsChanged"
CONTEXT_BUDGET = "pi/contextBudget"
PROJECTED_REQUEST = "pi/projectedRequest"
SESSIONS = "pi/sessions"
SESSION_TREE = "pi/sessionTree"
CMD_COMPACT = "pi.compact"
CMD_BRANCH_SUMMARY = "pi.branchSummary"
CMD_RELOAD_WORKSPACE = "pi.reloadWorkspace"
SESSION_CHANGED = "pi/sessionChanged"
TURN_LEDGER = "pi/turnLedger"
USAGE = "pi/usage"

# --- chat (Pi's RPC mode, driven by the server) ----------------------------------------------

CHAT_LOCATE = "pi/chat/locate"
CHAT_START = "pi/chat/start"
CHAT_LIST = "pi/chat/list"
CHAT_STATE = "pi/chat/state"
CHAT_PROMPT = "pi/chat/prompt"
CHAT_ABORT = "pi/chat/abort"
CHAT_STOP = "pi/chat/stop"
CHAT_COMPACT = "pi/chat/compact"
CHAT_COMPACT_PREVIEW = "pi/chat/compactPreview"
CHAT_FORK = "pi/chat/fork"
CHAT_FORK_POINTS = "pi/chat/forkPoints"
CHAT_SET_MODEL = "pi/chat/setModel"
CHAT_SET_THINKING_LEVEL = "pi/chat/setThinkingLevel"
CHAT_MESSAGES = "pi/chat/messages"
CHAT_COMMANDS = "pi/chat/commands"
CHAT_MODELS = "pi/chat/models"
CHAT_PREFLIGHT = "pi/chat/preflight"
CHAT_UI_RESPONSE = "pi/chat/uiResponse"
CHAT_RELOAD = "pi/chat/reload"
CHAT_TRUST = "pi/chat/trust"
CHAT_CLEAR_QUEUE = "pi/chat/clearQueue"
CHAT_EVENT = "pi/chat/event"
CHAT_EXITED = "pi/chat/exited"
CHAT_NOTICE = "pi/chat/notice"
CHAT_DRIFT = "pi/chat/drift"
