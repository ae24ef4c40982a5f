"""Pi itself as a child process: the RPC layer under the sidebar chat (no LSP in here).

:func:`locate_pi` finds a runnable Pi (command, Pi and Node versions) or says in one sentence why
there is none; :class:`PiRpcProcess` runs ``pi --mode rpc`` and speaks its JSON-lines protocol
(commands, responses by id, events in arrival order) and ends it without leaving processes behind;
:class:`~lsp_server.pi_rpc.kept.KeptPi` speaks the same protocol to a Pi held by a keeper process
(:mod:`~lsp_server.pi_rpc.keeper`), so that a turn outlives the language server. See ``docs/chat.md``.
"""

from lsp_server.pi_rpc.commands import Disposition, PiCommands, StreamingBehavior, ThinkingLevel
from lsp_server.pi_rpc.errors import (
    PiCommandError,
    PiExitedError,
    PiProtocolError,
    PiRequestTimeout,
    PiRpcError,
    PiStartError,
)
from lsp_server.pi_rpc.find_pi import (
    INSTALL_COMMAND,
    LocateCache,
    PiInstallation,
    PiLocation,
    PiUnavailable,
    check_pi,
    locate_pi,
    locate_pi_async,
)
from lsp_server.pi_rpc.framing import FramingProblem, LineSplitter, encode_record
from lsp_server.pi_rpc.process import PiExit, PiRpcProcess, ProtocolProblem, UnmatchedResponse, rpc_argv

__all__ = [
    "INSTALL_COMMAND",
    "Disposition",
    "FramingProblem",
    "LineSplitter",
    "LocateCache",
    "PiCommandError",
    "PiCommands",
    "PiExit",
    "PiExitedError",
    "PiInstallation",
    "PiLocation",
    "PiProtocolError",
    "PiRequestTimeout",
    "PiRpcError",
    "PiRpcProcess",
    "PiStartError",
    "PiUnavailable",
    "ProtocolProblem",
    "StreamingBehavior",
    "ThinkingLevel",
    "UnmatchedResponse",
    "check_pi",
    "encode_record",
    "locate_pi",
    "locate_pi_async",
    "rpc_argv",
]
