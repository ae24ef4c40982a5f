"""``pi-context serve``: run the language server on stdio (default) or TCP.

On stdio, stdout belongs to the protocol: every log line goes to stderr (or ``--log-file``), with
every key the server has learned (each chat's, the summarizer's) redacted (``lsp_server.redaction``).
pygls logs each message it sends at INFO, so its loggers are kept at WARNING unless
``--log-level debug`` asks for everything.
"""

from __future__ import annotations

import argparse
import logging
import socket
import sys
from typing import Any

from lsp_server.redaction.keyring import KeyRing, RedactingFormatter


def register(subparsers: Any) -> None:
    serve = subparsers.add_parser(
        "serve",
        help="start the language server (stdio; --tcp HOST:PORT)",
        description="Start the pi-context language server. Editors start it on stdio.",
    )
    transport = serve.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="talk LSP on stdin/stdout (the default)")
    transport.add_argument(
        "--tcp",
        metavar="HOST:PORT",
        help="listen on a TCP address instead, e.g. 127.0.0.1:2087 (port 0: a free port, printed on stderr); "
        "the server takes one client and ends when that client disconnects",
    )
    serve.add_argument(
        "--debug", action="store_true", default=None, help="enable the pi.debug.* commands (also PI_CONTEXT_DEBUG=1)"
    )
    serve.add_argument("--log-file", metavar="PATH", help="write the server's log here instead of stderr")
    serve.add_argument(
        "--log-level", default="info", choices=["debug", "info", "warning", "error"], help="log level (default info)"
    )
    serve.set_defaults(func=_run_serve)


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:2087`` for IPv6; port 0 for any free port) -> ``(host, port)``; raises ``ValueError``."""
    host, sep, port_text = text.rpartition(":")
    if not sep or not host or not port_text.isdigit():
        raise ValueError(f"expected HOST:PORT, got {text!r}")
    port = int(port_text)
    if not 0 <= port < 65536:
        raise ValueError(f"port out of range: {port}")
    return host.strip("[]"), port


# JSON-RPC errors a handler raises on purpose: the answer says what is wrong (a refused request, bad params,
# a cancel), so the log needs no traceback for them.
_ANSWERED_CODES = frozenset({-32602, -32800, -32803})


class ExpectedConditionsFilter(logging.Filter):
    """pygls's records of expected conditions become debug lines, without a traceback.

    * "Cancel notification for unknown message id": an editor cancels a request it no longer needs (VS Code
      cancels an open file's pull-diagnostics request, ``textDocument/diagnostic``, on each edit, and a code
      action or document symbol request now and then: traced in real VS Code); ours are answered within
      milliseconds, so the cancel arrives after the answer left, and pygls, no longer holding the request,
      warned about it (25 warnings in one short session);
    * "Exception occurred for message": pygls logs every error answer with a traceback, also the ones a
      handler gives on purpose (``request_failed``: "Nothing to compact", a session another chat holds), which
      the client already shows as the answer. A real failure (-32603) keeps its traceback.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.msg if isinstance(record.msg, str) else ""
        expected = message.startswith("Cancel notification for unknown message id")
        if message.startswith("Exception occurred for message") and record.exc_info:
            error = record.exc_info[1]
            expected = getattr(error, "code", None) in _ANSWERED_CODES
            if expected:
                record.msg = f"{message}: answered {type(error).__name__} {error}"
                record.exc_info, record.exc_text = None, None
        if expected:
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return logging.getLogger().isEnabledFor(logging.DEBUG)
        return True


def _not_sent_to_client(record: logging.LogRecord) -> bool:
    from lsp_server.server.errors import SENT_TO_CLIENT

    return not getattr(record, SENT_TO_CLIENT, False)


def _configure_logging(level_name: str, log_file: str | None, keys: KeyRing, *, stdio: bool = False) -> None:
    """The root handler: ``--log-file`` or stderr, every line redacted with the keys the server learns."""
    level = getattr(logging, level_name.upper())
    handler: logging.Handler = logging.FileHandler(log_file) if log_file else logging.StreamHandler(sys.stderr)
    handler.setFormatter(RedactingFormatter(keys, "%(asctime)s %(levelname)s %(name)s: %(message)s"))
    if stdio and not log_file:
        # The editor shows the stdio server's stderr and its window/logMessage in one channel: a message the
        # client got as window/logMessage (server/app.py's ``log``, a failure) is not written twice.
        handler.addFilter(_not_sent_to_client)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    logging.getLogger("pygls.protocol.json_rpc").addFilter(ExpectedConditionsFilter())
    if level > logging.DEBUG:
        logging.getLogger("pygls").setLevel(logging.WARNING)


def _run_serve(args: argparse.Namespace) -> int:
    try:
        address = parse_address(args.tcp) if args.tcp else None
    except ValueError as exc:
        print(f"pi-context serve: {exc}", file=sys.stderr)
        return 2
    if address is not None:
        try:
            address = claim_address(*address)
        except OSError as exc:
            print(f"pi-context serve: cannot listen on {args.tcp}: {exc.strerror or exc}", file=sys.stderr)
            return 1
    keys = KeyRing()
    _configure_logging(args.log_level, args.log_file, keys, stdio=address is None)
    if address is None:
        # The editor waits for initialize's answer: give it before pygls and lsprotocol are imported.
        from lsp_server.server.debug_flag import debug_enabled
        from lsp_server.server.early import answer_initialize

        stdin, stdout = answer_initialize(sys.stdin.buffer, sys.stdout.buffer, debug=debug_enabled(args.debug))

    from lsp_server.server.create import create_server

    server = create_server(debug=args.debug, keys=keys)
    if address is None:
        from lsp_server.server.stdio import serve_stdio

        serve_stdio(server, stdin, stdout)
    else:
        host, port = address
        print(f"pi-context: listening on {host}:{port}", file=sys.stderr, flush=True)
        server.start_tcp(host, port)
    return 0


def claim_address(host: str, port: int) -> tuple[str, int]:
    """Bind ``host:port`` once to learn whether the server can listen there, and on which port.

    pygls binds only inside its own event loop, where a taken port or an address that is not on
    this machine ends in a traceback, and port 0 would stay unknown to the user. Binding here
    first turns those into one clear line and gives the real port for ``:0``; the server then
    binds the same address again (with ``SO_REUSEADDR``, as asyncio does) right after.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))
        probe.listen(1)
        bound: int = probe.getsockname()[1]
    return host, bound
