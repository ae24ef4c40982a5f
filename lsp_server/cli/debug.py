"""``pi-context debug eval``: the Pi conformance harness on stdin/stdout."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from lsp_server.conformance.harness import run_jsonl, run_one
from lsp_server.vocabulary.pi_releases import rules_for


def register(subparsers: Any) -> None:
    debug = subparsers.add_parser("debug", help="developer tools (Pi conformance harness)")
    debug_sub = debug.add_subparsers(dest="debug_command", metavar="TOOL", required=True)
    evaluate = debug_sub.add_parser(
        "eval",
        help="answer Pi-oracle requests (JSON on stdin) with pi-context's implementation",
        description="Reads one oracle request (or one per line with --jsonl) and prints the answer "
        "in the oracle's envelope, so both programs can be compared.",
    )
    evaluate.add_argument("--jsonl", action="store_true", help="one request per line, one answer per line")
    evaluate.add_argument("--compact", action="store_true", help="print compact JSON in one-shot mode")
    evaluate.add_argument(
        "--pi-version",
        metavar="VERSION",
        help="answer as this Pi release does where releases differ (docs/pi-versions.md); default: the newest",
    )
    evaluate.set_defaults(func=_run_eval)


def _run_eval(args: argparse.Namespace) -> int:

    rules = rules_for(args.pi_version)
    if args.jsonl:
        return run_jsonl(sys.stdin, sys.stdout, rules)
    return run_one(sys.stdin, sys.stdout, pretty=not args.compact, rules=rules)
