"""The ``pi-context`` command line.

Each sub-command lives in its own module of this package and exposes ``register(subparsers)``;
the module sets ``func`` on its parser. :data:`SUBCOMMANDS` lists them (name and module) in the
order ``--help`` shows them; adding one is adding a module and a line there. A command line that
names a sub-command imports only that module (``pi-context serve`` does not pay for the
summarizer's imports before the editor's ``initialize`` is answered); anything else imports all.
Sub-commands that work on a project open it through :mod:`lsp_server.cli._project`, as the
language server does.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from lsp_server import __version__
from lsp_server.cli._output import configure_streams

SUBCOMMANDS: tuple[tuple[str, str], ...] = (  # (the name on the command line, its module in this package)
    ("branch-summary", "branch_summary"),
    ("check", "check"),
    ("compact", "compact"),
    ("debug", "debug"),
    ("prompt", "prompt"),
    ("serve", "serve"),
    ("session", "session"),
    ("usage", "usage"),
)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser with every sub-command, or with only the one named ``only`` (a name in SUBCOMMANDS)."""
    parser = argparse.ArgumentParser(
        prog="pi-context",
        description="See and control what a coding agent (Pi) sends to the model.",
    )
    parser.add_argument("--version", action="version", version=f"pi-context {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in SUBCOMMANDS:
        if only is None or name == only:
            importlib.import_module(f"lsp_server.cli.{module}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    configure_streams()
    args_list = list(sys.argv[1:] if argv is None else argv)
    named = args_list[0] if args_list else None
    parser = build_parser(named if any(named == name for name, _ in SUBCOMMANDS) else None)
    args = parser.parse_args(args_list)
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
