"""The options every project-aware sub-command shares, turned into a project the same way each time.

``prompt``, ``session``, ``compact`` and ``branch-summary`` all take ``--cwd``, ``--agent-dir``,
``--trusted`` / ``--untrusted`` and ``--settings`` (pi-context's settings file), and those that
count tokens take ``--estimator`` / ``--family``. :func:`project_inputs` maps them onto
:class:`~lsp_server.project.project.ProjectInputs` exactly as the language server maps its
settings, so the CLI and the server open the same project from the same choices. A flag beats the
settings file.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import get_args

from lsp_server.cli._errors import EXIT_USAGE, fail
from lsp_server.project.project import ProjectInputs
from lsp_server.session.bounds import SessionReadLimits
from lsp_server.settings.pi_context import PiContextSettings, TokenSettings, load_pi_context_settings_file
from lsp_server.tokens.counter import ModelFamily, TokenEstimator


def add_project_arguments(
    parser: argparse.ArgumentParser, *, cwd_help: str, counting: bool = True, sessions: bool = False
) -> None:
    parser.add_argument("--cwd", default=None, help=cwd_help)
    if sessions:
        parser.add_argument(
            "--session-max-bytes",
            type=_byte_count,
            default=None,
            metavar="BYTES",
            help="refuse session files above this size (default: settings limits.sessionMaxBytes, else 512 MiB)",
        )
    parser.add_argument(
        "--agent-dir", default=None, help="Pi's agent dir (default: $PI_CODING_AGENT_DIR or ~/.pi/agent)"
    )
    parser.add_argument("--settings", default=None, help="pi-context settings file (JSON), as the editor's piContext")
    trust = parser.add_mutually_exclusive_group()
    trust.add_argument(
        "--trusted", dest="trust", action="store_const", const=True, help="treat the project as trusted (Pi: --approve)"
    )
    trust.add_argument(
        "--untrusted",
        dest="trust",
        action="store_const",
        const=False,
        help="treat the project as untrusted (Pi: --no-approve)",
    )
    parser.set_defaults(trust=None)
    if counting:
        parser.add_argument(
            "--estimator",
            choices=get_args(TokenEstimator),
            default=None,
            help="token counter (default: settings, else weighted)",
        )
        parser.add_argument(
            "--family",
            choices=get_args(ModelFamily),
            default=None,
            help="tokenizer family (default: settings, else auto: from the model name)",
        )


def _byte_count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of bytes: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more bytes: {text!r}")
    return value


def missing_cwd(args: argparse.Namespace) -> bool:
    """``--cwd`` names no folder: an error (exit 2), never a prompt built for a folder that is not there."""
    cwd = getattr(args, "cwd", None)
    return cwd is not None and not os.path.isdir(cwd)


def cwd_error(args: argparse.Namespace) -> int | None:
    """Print ``pi-context: DIR: ...`` and return the usage status when ``--cwd`` is not a folder."""

    if not missing_cwd(args):
        return None
    reason = "not a folder" if os.path.lexists(args.cwd) else "no such folder"
    return fail(args.cwd, f"{reason} (--cwd)", EXIT_USAGE)


def session_limits(settings: PiContextSettings) -> SessionReadLimits:
    """How much of a session file is read, from the settings (the flag is already folded in)."""
    return SessionReadLimits(max_bytes=settings.limits.session_max_bytes)


def settings_from_args(args: argparse.Namespace) -> PiContextSettings:
    """``--settings`` (each bad value reported on stderr and replaced by its default) with the flags on top."""
    settings = PiContextSettings()
    if getattr(args, "settings", None):
        settings, problems = load_pi_context_settings_file(args.settings)
        for problem in problems:
            sys.stderr.write(f"pi-context: {problem.format_line()}\n")
    estimator, family = getattr(args, "estimator", None), getattr(args, "family", None)
    if estimator is not None or family is not None:
        tokens = settings.tokens
        update = {
            "estimator": estimator if estimator is not None else tokens.estimator,
            "model_family": family if family is not None else tokens.model_family,
        }
        settings = settings.model_copy(update={"tokens": TokenSettings.model_validate(update)})
    max_bytes = getattr(args, "session_max_bytes", None)
    if max_bytes is not None:
        settings = settings.model_copy(
            update={"limits": settings.limits.model_copy(update={"session_max_bytes": max_bytes})}
        )
    return settings


def project_inputs(args: argparse.Namespace, cwd: str, settings: PiContextSettings) -> ProjectInputs:
    """The project at ``cwd`` as the flags describe it, in the environment the CLI runs in."""
    return ProjectInputs.create(
        cwd,
        env=os.environ,
        settings=settings,
        agent_dir=getattr(args, "agent_dir", None),
        trust_override=getattr(args, "trust", None),
        window_override=getattr(args, "context_window", None),
    )
