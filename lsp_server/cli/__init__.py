"""The ``pi-context`` command line.

Each sub-command lives in its own module of this package and exposes ``register(subparsers)``;
the module sets ``func`` on its parser. :data:`SUBCOMMANDS` lists them in the order ``--help``
shows them; adding one is adding a module and a line there. Sub-commands that work on a project
open it through :mod:`lsp_server.cli._project`, as the language server does.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from lsp_server import __version__
from lsp_server.cli import branch_summary, check, compact, debug, prompt, serve, session
from lsp_server.cli._output import configure_streams

SUBCOMMANDS: tuple[Callable[[Any], None], ...] = (
    branch_summary.register,
    check.register,
    compact.register,
    debug.register,
    prompt.register,
    serve.register,
    session.register,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pi-context",
        description="See and control what a coding agent (Pi) sends to the model.",
    )
    parser.add_argument("--version", action="version", version=f"pi-context {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in SUBCOMMANDS:
        register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    configure_streams()
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(func(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
