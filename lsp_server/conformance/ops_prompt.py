"""Conformance ops for the system prompt: sections, rendering, diffs, transcript replay, skills block.

Each handler turns an oracle request into the domain's inputs, calls :mod:`lsp_server.prompt`,
and returns the oracle's result shape. Pi's prose differs from ours on purpose; the mask in
:mod:`lsp_server.conformance.prompt_mask` hides exactly those sentences on both sides.
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass
from typing import Any

from lsp_server.conformance.op_table import EvalContext, OpError, OpTable
from lsp_server.conformance.prompt_mask import mask_prompt_result
from lsp_server.context.model import ContextFile
from lsp_server.prompt.package_dir import find_pi_package_dir
from lsp_server.prompt.sections import (
    PromptOptions,
    SectionMap,
    SectionNameError,
    build_prompt_state,
    build_sections,
    build_system_prompt,
    diff_sections,
    render_prompt_text,
)
from lsp_server.prompt.skills_block import format_skills_for_prompt
from lsp_server.prompt.system_messages import current_system_message, render_system_message_update, system_message_text
from lsp_server.prompt.texts import texts_for

OPS = OpTable()


Json = Any


@dataclass(frozen=True)
class _RequestSkill:
    """A skill as the oracle request spells it (only what the prompt uses)."""

    name: str
    description: str
    file_path: str
    disable_model_invocation: bool


def _skill(raw: dict[str, Any]) -> _RequestSkill:
    return _RequestSkill(
        name=str(raw.get("name", "")),
        description=str(raw.get("description", "")),
        file_path=str(raw.get("filePath", "")),
        disable_model_invocation=bool(raw.get("disableModelInvocation")),
    )


def _request_options(req: dict[str, Any], raw: dict[str, Any] | None, ctx: EvalContext) -> dict[str, Any]:
    """The oracle's ``buildPromptOptions``: a copy, ``cwd`` defaulted, built-in tool prompts merged."""
    opts = copy.deepcopy(raw or {})
    if opts.get("cwd") is None:
        opts["cwd"] = req.get("cwd") or "/project"
    if req.get("defaultToolPrompts"):
        texts = texts_for(ctx.rules)
        snippets = {name: tool.snippet for name, tool in texts.tools.items() if tool.snippet}
        guidelines = {name: list(tool.guidelines) for name, tool in texts.tools.items() if tool.guidelines}
        opts["toolSnippets"] = {**snippets, **(opts.get("toolSnippets") or {})}
        opts["toolGuidelines"] = {**guidelines, **(opts.get("toolGuidelines") or {})}
    return opts


def _prompt_options(opts: dict[str, Any], ctx: EvalContext) -> PromptOptions:
    force = opts.get("forceSystemPrompt")
    return PromptOptions.create(
        str(opts["cwd"]),
        custom_prompt=opts.get("customPrompt") or None,
        force_system_prompt=force if isinstance(force, str) else None,
        selected_tools=opts.get("selectedTools"),
        hidden_tools=opts.get("hiddenTools") or (),
        tool_snippets=opts.get("toolSnippets"),
        tool_guidelines=opts.get("toolGuidelines"),
        prompt_guidelines=opts.get("promptGuidelines") or (),
        append_system_prompt=opts.get("appendSystemPrompt") or "",
        sections=opts.get("sections"),
        context_files=[ContextFile(str(f["path"]), str(f["content"])) for f in opts.get("contextFiles") or ()],
        skills=[_skill(s) for s in opts.get("skills") or ()],
        package_dir=ctx.package_dir or find_pi_package_dir(os.environ),
    )


def _sections_for(req: dict[str, Any], raw: dict[str, Any] | None, ctx: EvalContext) -> SectionMap:
    try:
        return build_sections(_prompt_options(_request_options(req, raw, ctx), ctx), texts_for(ctx.rules))
    except SectionNameError as exc:
        raise OpError(str(exc)) from exc


@OPS.op("build_sections", mask=mask_prompt_result)
def _build_sections(req: dict[str, Any], ctx: EvalContext) -> Json:
    opts = _request_options(req, req.get("options"), ctx)
    options = _prompt_options(opts, ctx)
    texts = texts_for(ctx.rules)
    try:
        sections = build_sections(options, texts)
    except SectionNameError as exc:
        raise OpError(str(exc)) from exc
    state = build_prompt_state(options, texts)
    state_json: dict[str, Any] = {"content": state.content}
    if state.sections is not None:
        state_json["sections"] = state.sections
    return {
        "options": opts,
        "sectionOrder": list(sections),
        "sections": sections,
        "state": state_json,
        "text": render_prompt_text(state.content, state.sections),
    }


@OPS.op("build_system_prompt", mask=mask_prompt_result)
def _build_system_prompt(req: dict[str, Any], ctx: EvalContext) -> Json:
    options = _prompt_options(_request_options(req, req.get("options"), ctx), ctx)
    try:
        return {"text": build_system_prompt(options, texts_for(ctx.rules))}
    except SectionNameError as exc:
        raise OpError(str(exc)) from exc


@OPS.op("diff_sections", mask=mask_prompt_result)
def _diff_sections(req: dict[str, Any], ctx: EvalContext) -> Json:
    current = req.get("current")
    if not current and req.get("currentOptions"):
        current = _sections_for(req, req["currentOptions"], ctx)
    previous = req.get("previous") or {}
    if req.get("previousOptions"):
        previous = _sections_for(req, req["previousOptions"], ctx)
    if not isinstance(current, dict) or not isinstance(previous, dict):
        raise OpError("Cannot convert undefined or null to object")
    patch = diff_sections(previous, current)
    out: dict[str, Any] = {"patch": patch}
    if patch is not None:
        out["renderedUpdate"] = render_system_message_update(
            {"role": "system", "content": "", "sections": patch, "timestamp": 0}
        )
    return out


@OPS.op("replay_system_messages")
def _replay_system_messages(req: dict[str, Any], ctx: EvalContext) -> Json:
    messages = req.get("messages") or []
    current = current_system_message(messages)
    return {
        "current": current,
        "currentText": system_message_text(current) if current is not None else "",
        "updates": [
            render_system_message_update(m) for m in messages if isinstance(m, dict) and m.get("role") == "system"
        ],
    }


@OPS.op("format_skills_for_prompt", mask=mask_prompt_result)
def _format_skills_for_prompt(req: dict[str, Any], ctx: EvalContext) -> Json:
    reader = req.get("fileReadTool", "read")
    skills = [_skill(s) for s in req.get("skills") or []]
    return {"text": format_skills_for_prompt(skills, str(reader), texts_for(ctx.rules))}
