"""``pi-context compact FILE``: compact a Pi session file as Pi's ``/compact`` would.

Reads the session once, prepares the compaction exactly as Pi 1.6.0 does (first kept entry,
tokens before, history and split-turn prefix, file lists), has the summarizer write the summary
(offline by default, or the model given with ``--model``), and appends one ``compaction`` entry at
the leaf. ``--dry-run`` shows all of that and writes nothing. Pi resumes the session from the new
entry: its context then starts with the summary and continues with the kept entries. The plan and
the run are the language server's ``pi.compact`` job (:mod:`lsp_server.project.summaries`).

Exit status: 0 done, 1 failure (the message names the file; nothing was written), 2 usage,
130 cancelled with Ctrl-C (nothing was written).
"""

from __future__ import annotations

import argparse
import functools
import sys
from typing import Any

from lsp_server import protocol
from lsp_server.cli._summarizing import Summarizer, add_common_arguments, plan_and_run, print_written
from lsp_server.compaction.operations import CompactionOutcome, CompactionPlan
from lsp_server.js.values import UNDEFINED
from lsp_server.project.summaries import Job, JobResult, plan_compaction_job


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "compact",
        help="compact a Pi session file (append a compaction entry, as Pi's /compact does)",
        description="Prepare a compaction exactly as Pi 1.6.0 does, summarize with the chosen model "
        "(offline by default) and append one compaction entry at the leaf. The summary's instructions are "
        "pi-context's own wording in Pi's structure; everything stored is in Pi's format.",
    )
    parser.add_argument("file", help="the session file (.jsonl)")
    parser.add_argument("--leaf", default=None, help="compact the branch ending at this entry (default: Pi's leaf)")
    add_common_arguments(parser, instructions_help="extra focus for the summary (Pi: /compact <text>)")
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    request = protocol.CompactArgs(
        session=args.file, instructions=args.instructions, leaf_id=args.leaf, preview_only=args.dry_run
    )
    return plan_and_run(
        args,
        functools.partial(plan_compaction_job, request),
        lambda job, summarizer: _print_plan(_plan(job), summarizer),
        lambda job, summarizer, result: _outcome_json(
            _plan(job), _outcome(result), args.dry_run, summarizer, result.outcome
        ),
        lambda job, result: _print_outcome(_outcome(result), args.dry_run, result.outcome),
    )


def _plan(job: Job) -> CompactionPlan:
    assert job.compaction is not None
    return job.compaction


def _outcome(result: JobResult) -> CompactionOutcome:
    assert isinstance(result.detail, CompactionOutcome)
    return result.detail


def _print_plan(plan: CompactionPlan, summarizer: Summarizer) -> None:
    prep = plan.preparation
    lists = prep.file_lists
    turn = ""
    if prep.is_split_turn:
        turn_start = prep.projection.entries[prep.cut.turn_start_index].source_entry.get("id")
        turn = f" (splits the turn that starts at {turn_start})"
    lines = [
        f"Session: {plan.session.path}",
        f"Leaf: {plan.leaf_id}",
        f"Tokens before: {prep.tokens_before} (Pi's estimate)",
        f"Keep recent tokens: {prep.settings.keep_recent_tokens}",
        f"First kept entry: {prep.first_kept_entry_id}{turn}",
        f"Entries kept verbatim: {len(prep.kept_entry_ids)}",
        f"Messages to summarize: {len(prep.messages_to_summarize)} history"
        + (f", {len(prep.turn_prefix_messages)} turn prefix" if prep.is_split_turn else ""),
        f"Previous summary: {'yes (update)' if prep.previous_summary is not UNDEFINED else 'no'}",
        f"Read files: {', '.join(lists.read_files) or '(none)'}",
        f"Modified files: {', '.join(lists.modified_files) or '(none)'}",
        f"Summarizer: {summarizer.label}",
    ]
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()


def _print_outcome(outcome: CompactionOutcome, dry_run: bool, command: protocol.CommandOutcome | None = None) -> None:
    entry = outcome.entry
    if entry is None or outcome.plan is None:
        return
    where = f"compaction entry {entry['id']} (parent {entry['parentId']})"
    print_written(outcome, where, outcome.plan.session.path, dry_run, command)


def _outcome_json(
    plan: CompactionPlan,
    outcome: CompactionOutcome,
    dry_run: bool,
    summarizer: Summarizer,
    command: protocol.CommandOutcome | None = None,
) -> Any:
    prep = plan.preparation
    return {
        "file": plan.session.path,
        "leafId": plan.leaf_id,
        "dryRun": dry_run,
        "summarizer": summarizer.label,
        "preparation": {
            "firstKeptEntryId": prep.first_kept_entry_id,
            "tokensBefore": prep.tokens_before,
            "isSplitTurn": prep.is_split_turn,
            "messagesToSummarize": len(prep.messages_to_summarize),
            "turnPrefixMessages": len(prep.turn_prefix_messages),
            "keptEntryIds": prep.kept_entry_ids,
            **prep.file_lists.to_json(),
        },
        "entry": outcome.entry,
        "written": outcome.written is not None,
        "failure": outcome.failure,
        "cancelled": outcome.cancelled,
        "economics": command.economics.wire() if command is not None and command.economics is not None else None,
    }
