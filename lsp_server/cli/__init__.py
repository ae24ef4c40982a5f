"""The ``pi-context`` command line.

Each sub-command lives in its own module of this package and exposes
``register(subparsers)``; the module sets ``func`` on its parser. Sub-commands are found by
name, so adding one never edits this file.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from lsp_server import __version__
from lsp_server.cli._output import configure_streams


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pi-context",
        description="See and control what a coding agent (Pi) sends to the model.",
    )
    parser.add_argument("--version", action="version", version=f"pi-context {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    package = importlib.import_module(__name__)
    for module in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if module.name.startswith("_"):
            continue
        importlib.import_module(f"{__name__}.{module.name}").register(subparsers)
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
