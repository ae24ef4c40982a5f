"""``pi-context branch-summary FILE --from LEAF --to TARGET``: summarize the branch being left.

What Pi's ``/tree`` does when you move from one point of the session tree to another and ask for
a summary: the entries from ``--from`` back to the common ancestor are summarized (newest first
within the token budget, tool results left out, file lists appended) and a ``branch_summary``
entry is appended where Pi puts it: under the target, or under its parent when the target is a
user message (that message goes back to the editor in Pi). Pi resumes the session from the new
entry, so its next request carries the summary of the abandoned branch. The budget is the session
model's window (from the project, as the language server finds it) minus Pi's reserve; the plan
and the run are the server's ``pi.branchSummary`` job.

Exit status: 0 done, 1 failure (nothing written), 2 usage, 130 cancelled (nothing written).
"""

from __future__ import annotations

import argparse
import functools
import sys
from typing import Any

from lsp_server import protocol
from lsp_server.cli._summarizing import Summarizer, add_common_arguments, plan_and_run, print_written
from lsp_server.compaction.operations import BranchOutcome, BranchPlan
from lsp_server.js.values import js_get
from lsp_server.project.summaries import Job, JobResult, branch_budget, plan_branch_job


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "branch-summary",
        help="summarize the branch left when moving from one entry to another (Pi's /tree with summary)",
        description="Collect the entries between --from and the common ancestor with --to, summarize them as "
        "Pi 1.6.0 does (budgeted, newest first, no tool results) and append a branch_summary entry where Pi's "
        "tree navigation puts it.",
    )
    parser.add_argument("file", help="the session file (.jsonl)")
    parser.add_argument("--from", dest="from_id", required=True, help="the entry being left (usually the leaf)")
    parser.add_argument("--to", dest="to_id", required=True, help="the entry to continue from")
    parser.add_argument(
        "--replace-instructions", action="store_true", help="use --instructions instead of the default structure"
    )
    parser.add_argument(
        "--context-window",
        type=int,
        default=None,
        help="the context window to budget with (default: the session model's, else 128000)",
    )
    add_common_arguments(
        parser,
        instructions_help="extra focus for the summary, added after the branch template "
        "(Pi: the custom instructions of a branch summary in /tree); with --replace-instructions, the whole "
        "instructions",
    )
    parser.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    request = protocol.BranchSummaryArgs(
        session=args.file,
        from_id=args.from_id,
        to_id=args.to_id,
        instructions=args.instructions,
        replace_instructions=args.replace_instructions,
        preview_only=args.dry_run,
    )
    return plan_and_run(
        args,
        functools.partial(plan_branch_job, request),
        lambda job, summarizer: _print_plan(_plan(job), summarizer, branch_budget(job)),
        lambda job, summarizer, result: _outcome_json(
            _plan(job), _outcome(result), args.dry_run, summarizer, result.outcome
        ),
        lambda job, result: _print_outcome(_outcome(result), args.dry_run, result.outcome),
    )


def _plan(job: Job) -> BranchPlan:
    assert job.branch is not None
    return job.branch


def _outcome(result: JobResult) -> BranchOutcome:
    assert isinstance(result.detail, BranchOutcome)
    return result.detail


def _print_plan(plan: BranchPlan, summarizer: Summarizer, budget: float) -> None:
    ids = [js_get(e, "id") for e in plan.collection.entries]
    lines = [
        f"Session: {plan.session.path}",
        f"Leaving: {plan.from_id}, going to: {plan.target_id}",
        f"Common ancestor: {plan.collection.common_ancestor_id}",
        f"Entries on the abandoned branch: {len(ids)} ({ids[0]} .. {ids[-1]})",
        f"Token budget: {budget:g}",
        f"Summary goes under: {plan.parent_id if plan.parent_id is not None else '(a new root)'}",
        f"Summarizer: {summarizer.label}",
    ]
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stdout.flush()


def _print_outcome(outcome: BranchOutcome, dry_run: bool, command: protocol.CommandOutcome | None = None) -> None:
    entry = outcome.entry
    if entry is None or outcome.plan is None:
        return
    where = f"branch_summary entry {entry['id']} (parent {entry['parentId']}, from {entry['fromId']})"
    print_written(outcome, where, outcome.plan.session.path, dry_run, command)


def _outcome_json(
    plan: BranchPlan,
    outcome: BranchOutcome,
    dry_run: bool,
    summarizer: Summarizer,
    command: protocol.CommandOutcome | None = None,
) -> Any:
    return {
        "file": plan.session.path,
        "fromId": plan.from_id,
        "targetId": plan.target_id,
        "commonAncestorId": plan.collection.common_ancestor_id,
        "entryIds": [js_get(e, "id") for e in plan.collection.entries],
        "parentId": plan.parent_id,
        "dryRun": dry_run,
        "summarizer": summarizer.label,
        "entry": outcome.entry,
        "written": outcome.written is not None,
        "failure": outcome.failure,
        "cancelled": outcome.cancelled,
        "economics": command.economics.wire() if command is not None and command.economics is not None else None,
    }
