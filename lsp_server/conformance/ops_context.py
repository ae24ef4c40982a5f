"""Conformance ops for context files, SYSTEM.md / APPEND_SYSTEM.md and the resource loader.

``load_context_files`` answers like Pi's ``loadProjectContextFiles``; ``load_resources`` like the
oracle's ``DefaultResourceLoader.reload()`` call (extensions, prompt templates and themes off).
Both add a ``pi-context`` key with the detail Pi does not return (per-directory candidates,
warnings, trust and settings), which the subset comparison ignores.
"""

from __future__ import annotations

import os
from typing import Any

from lsp_server.conformance.op_table import EvalContext, OpError, OpTable
from lsp_server.context.context_files import ContextFileDiscovery, discover_context_files
from lsp_server.context.resources import ResourceOptions, load_resources

OPS = OpTable()


def _require_str(req: dict[str, Any], key: str) -> str:
    value = req.get(key)
    if not isinstance(value, str):
        raise OpError(f"{key} must be a string")
    return value


def _discovery_detail(discovery: ContextFileDiscovery) -> dict[str, Any]:
    return {
        "directories": [
            {
                "directory": d.directory,
                "scope": d.scope,
                "chosen": d.chosen.path if d.chosen else None,
                "excluded": d.excluded,
                "candidates": [
                    {"name": c.name, "status": c.status, **({"error": c.error} if c.error else {})}
                    for c in d.candidates
                ],
            }
            for d in discovery.directories
            if d.candidates
        ],
        "warnings": list(discovery.warnings),
        "shadowedPath": discovery.shadowed_path,
    }


@OPS.op("load_context_files")
def load_context_files_op(req: dict[str, Any], ctx: EvalContext) -> dict[str, Any]:
    discovery = discover_context_files(_require_str(req, "cwd"), _require_str(req, "agentDir"), rules=ctx.rules)
    return {
        "contextFiles": [f.to_json() for f in discovery.files],
        "pi-context": _discovery_detail(discovery),
    }


def _string_list(req: dict[str, Any], key: str) -> list[str] | None:
    if key not in req:
        return None
    value = req[key]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise OpError(f"{key} must be an array of strings")
    return list(value)


@OPS.op("load_resources")
def load_resources_op(req: dict[str, Any], ctx: EvalContext) -> dict[str, Any]:
    system_prompt = req.get("systemPrompt")
    if system_prompt is not None and not isinstance(system_prompt, str):
        raise OpError("systemPrompt must be a string")
    options = ResourceOptions(
        cwd=_require_str(req, "cwd"),
        agent_dir=_require_str(req, "agentDir"),
        project_trusted=req.get("projectTrusted", True) is not False,
        system_prompt=system_prompt if "systemPrompt" in req else None,
        append_system_prompt=_string_list(req, "appendSystemPrompt"),
        no_skills=bool(req.get("noSkills", False)),
        no_context_files=bool(req.get("noContextFiles", False)),
        additional_skill_paths=tuple(_string_list(req, "additionalSkillPaths") or ()),
        # Pi looks up relative explicit prompt values from its process cwd, like the oracle.
        prompt_base_dir=os.getcwd(),
        pi_rules=ctx.rules,
    )
    resources = load_resources(options)
    prompts = resources.prompt_files
    return {
        "systemPrompt": prompts.system_prompt,
        "systemPromptSource": {"path": prompts.system_prompt_source} if prompts.system_prompt_source else None,
        "appendSystemPrompt": prompts.append_system_prompt,
        "appendSystemPromptSources": [{"path": p} for p in prompts.append_system_prompt_sources],
        "appendSystemPromptJoined": prompts.append_joined,
        "agentsFiles": [f.to_json() for f in resources.context.files],
        "skills": [s.to_json() for s in resources.skills],
        "skillDiagnostics": [d.to_json() for d in resources.skill_diagnostics],
        "pi-context": {
            **_discovery_detail(resources.context),
            "promptWarnings": list(prompts.warnings),
            "ignoredProjectFiles": [i.path for i in prompts.ignored],
            "settingsProblems": [p.format_line() for p in resources.settings.problems],
        },
    }
