"""Conformance ops that call a model: compaction and branch summaries (the oracle ops of the same names),
with the branch-entry ops beside them.

They live apart from :mod:`.ops_compaction` because of what they import (asyncio, the model client):
``debug eval`` imports only the module of the op it answers.

Summaries need a model; the oracle answers with a fake one that records every request and replies
with the request's scripted ``responses``. :class:`ScriptedClient` is that fake on our side: an
in-process :class:`~lsp_server.llm.client.LlmClient` that replies the same way and records our
requests in the oracle's shape (system prompt, prompt text, Pi's option names, the raw context).

What is masked (:func:`mask_summary_prompts`), and only that: the instruction prose (our wording,
not Pi's), i.e. the summarization system prompt and the template part of each prompt, which is
replaced by its list of headings so the *structure* is still compared; and the message timestamps
of the recorded context (Pi stamps its in-memory request messages with the clock; ours carry no
timestamp because no provider receives one). The conversation wrappers, the previous-summary
block, ``Additional focus``, replaced instructions, the split-turn join, file lists, usage, errors
and request options are compared as they are.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import re
from collections.abc import Coroutine
from typing import Any, TypeVar

from lsp_server.compaction.branch import (
    BranchSummary,
    collect_entries_for_branch_summary,
    generate_branch_summary,
    prepare_branch_entries,
)
from lsp_server.compaction.cut_points import CutPoint
from lsp_server.compaction.file_ops import FileOps, compute_file_lists
from lsp_server.compaction.prepare import CompactionPreparation, prepare_compaction
from lsp_server.compaction.summarize import CompactionResult, SummaryFailure, SummaryOptions, compact
from lsp_server.conformance.op_table import EvalContext, OpTable
from lsp_server.conformance.ops_compaction import MASKED_SYSTEM_PROMPT, require_compactable, settings_of
from lsp_server.conformance.ops_session import as_json, brief_message, decode_entries, require_no_null
from lsp_server.js.errors import cannot_read
from lsp_server.js.values import UNDEFINED, js_get, js_truthy
from lsp_server.llm.client import CancelToken
from lsp_server.llm.types import AssistantReply, CompletionRequest, RetryCallback, TextProgress, Usage
from lsp_server.session.projection import SessionProjection
from lsp_server.vocabulary.compaction import (
    DEFAULT_BRANCH_RESERVE_TOKENS,
    DEFAULT_COMPACTION_SETTINGS,
    CompactionSettings,
)

OPS = OpTable()


Json = Any
T = TypeVar("T")

FAKE_API_KEY = "fake-key"


# --- the fake model ------------------------------------------------------------------------------


class ScriptedClient:
    """Replies with the request's ``responses`` in order (then ``SUMMARY``), recording each request.

    A response is a string (the reply text) or ``{text, content, stopReason, errorMessage, usage,
    inputTokens, outputTokens}`` as the oracle reads it; the default usage is 100 in, 10 out.
    """

    provider = "fake"

    def __init__(self, responses: list[Any] | None, model_id: str = "fake-model") -> None:
        self.queue = list(responses or [])
        self.model_id = model_id
        self.requests: list[CompletionRequest] = []

    async def complete(
        self,
        request: CompletionRequest,
        *,
        cancel: CancelToken | None = None,
        on_text_delta: TextProgress | None = None,
        on_retry: RetryCallback | None = None,
    ) -> AssistantReply:
        self.requests.append(request)
        spec: Any = self.queue.pop(0) if self.queue else "SUMMARY"
        if isinstance(spec, str):
            spec = {"text": spec}
        content = spec.get("content")
        if isinstance(content, list):
            text = "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")
            has_tool_call = any(isinstance(b, dict) and b.get("type") == "toolCall" for b in content)
        else:
            text, has_tool_call = str(spec.get("text") or ""), False
        if on_text_delta is not None and text:
            on_text_delta(len(text))
        usage_spec = spec.get("usage")
        if isinstance(usage_spec, dict):
            usage = Usage(
                int(usage_spec.get("input", 0)),
                int(usage_spec.get("output", 0)),
                int(usage_spec.get("cacheRead", 0)),
                int(usage_spec.get("cacheWrite", 0)),
            )
        else:
            usage = Usage(int(spec.get("inputTokens", 100)), int(spec.get("outputTokens", 10)))
        return AssistantReply(
            text=text,
            stop_reason=spec.get("stopReason", "stop"),
            usage=usage,
            error_message=spec.get("errorMessage") or None,
            has_tool_call=has_tool_call,
            model=self.model_id,
            provider=self.provider,
        )

    async def aclose(self) -> None:
        return None

    def described(self) -> list[dict[str, Any]]:
        """The recorded requests in the oracle's ``describeCaptured`` shape."""
        out = []
        for request in self.requests:
            prompt_text = "\n---\n".join(_message_text(m) for m in request.messages)
            options: dict[str, Any] = {"apiKey": FAKE_API_KEY}
            if request.session_id is not None:
                options["sessionId"] = "<uuidv7>"  # a fresh routing id per request, masked as the oracle does
            if request.reasoning is not None:
                options["reasoning"] = request.reasoning
            if request.max_tokens is not None:
                options["maxTokens"] = request.max_tokens
            options["cacheRetention"] = "none"  # our adapters never enable prompt caching
            raw_messages: list[dict[str, Any]] = [{"role": "system", "content": request.system}]
            raw_messages += [dict(m) for m in request.messages]
            out.append(
                {
                    "systemPrompt": request.system,
                    "promptText": prompt_text,
                    "options": options,
                    "rawContext": {"messages": raw_messages},
                }
            )
        return out


def _message_text(message: Any) -> str:
    content = js_get(message, "content")
    if isinstance(content, str):
        return content
    return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text")


def _run(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine from the synchronous harness (in a worker thread if a loop is already running)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _model(req: dict[str, Any]) -> dict[str, Any]:
    """The oracle's ``defaultModel``: a fake model, overridden by the request's ``model`` keys."""
    return {
        "id": "fake-model",
        "reasoning": False,
        "contextWindow": 128000,
        "maxTokens": 16384,
        **(req.get("model") or {}),
    }


def _options(req: dict[str, Any], model: dict[str, Any], ctx: EvalContext) -> SummaryOptions:
    instructions = req.get("customInstructions")
    max_tokens = model.get("maxTokens")
    return SummaryOptions(
        custom_instructions=instructions if js_truthy(instructions) else None,
        thinking_level=req.get("thinkingLevel"),
        model_reasoning=js_truthy(model.get("reasoning")),
        rules=ctx.rules,
        model_max_tokens=max_tokens if isinstance(max_tokens, (int, float)) else None,
    )


# --- masks -------------------------------------------------------------------------------------------

_HEADING = re.compile(r"^#{1,3} \S.*$", re.MULTILINE)
_FOCUS = "\n\nAdditional focus: "


def _split_instructions(instructions: str, req: dict[str, Any]) -> tuple[str | None, str]:
    """``(template, tail)``: the template prose (``None``: the caller replaced it), then the user's text."""
    focus = req.get("customInstructions")
    if js_truthy(focus):
        if req.get("replaceInstructions") and instructions == focus:
            return None, instructions  # replaced instructions are the user's text: compared as is
        suffix = _FOCUS + str(focus)
        if instructions.endswith(suffix):
            return instructions[: -len(suffix)], suffix
    return instructions, ""


def split_prompt_text(text: str, req: dict[str, Any]) -> tuple[str, str | None, str]:
    """``(head, template, tail)`` of a summary prompt: only ``template`` is instruction prose.

    The head is the conversation wrappers, the conversation and the previous summary; the tail an
    ``Additional focus`` line or instructions the caller replaced. Shared by the mask (the template
    reduced to its headings) and the goldens' stored form (``tests/conformance/golden_scrub.py``).
    """
    head_end = 0
    if text.startswith("# Conversation\n") and (cut := text.rfind("\n\n# Instructions\n")) >= 0:
        head_end = cut + len("\n\n# Instructions\n")
    elif text.startswith("<conversation>\n") and (cut := text.find("\n</conversation>\n\n")) >= 0:
        head_end = cut + len("\n</conversation>\n\n")
        rest = text[head_end:]
        if rest.startswith("<previous-summary>\n"):
            end = rest.rfind("\n</previous-summary>\n\n")
            if end >= 0:
                head_end += end + len("\n</previous-summary>\n\n")
    template, tail = _split_instructions(text[head_end:], req)
    return text[:head_end], template, tail


def mask_prompt_text(text: str, req: dict[str, Any]) -> str:
    """Keep the wrappers, conversation and previous summary; reduce the template to its headings."""
    head, template, tail = split_prompt_text(text, req)
    if template is None:
        return head + tail  # the caller's own instructions: nothing of the template to hide
    headings = " | ".join(_HEADING.findall(template))
    return f"{head}<instructions with headings: {headings}>{tail}"


def mask_summary_prompts(req: dict[str, Any], result: Json) -> Json:
    """Hide our instruction prose and the request-message timestamps; keep the structure."""
    if not isinstance(result, dict):
        return result
    out = copy.deepcopy(result)
    for request in out.get("requests") or []:
        request["systemPrompt"] = MASKED_SYSTEM_PROMPT
        if isinstance(request.get("promptText"), str):
            request["promptText"] = mask_prompt_text(request["promptText"], req)
        for message in (request.get("rawContext") or {}).get("messages") or []:
            message.pop("timestamp", None)
            if message.get("role") == "system":
                message["content"] = MASKED_SYSTEM_PROMPT
            elif isinstance(message.get("content"), list):
                for block in message["content"]:
                    if isinstance(block, dict) and isinstance(block.get("text"), str):
                        block["text"] = mask_prompt_text(block["text"], req)
    return out


# --- compaction ------------------------------------------------------------------------------------


def _given_preparation(raw: dict[str, Any]) -> CompactionPreparation:
    """A preparation passed in the request (JSON; ``fileOps`` as arrays), as the oracle rebuilds it."""
    ops = raw.get("fileOps") or {}
    merged = {**DEFAULT_COMPACTION_SETTINGS.to_json(), **(raw.get("settings") or {})}
    return CompactionPreparation(
        first_kept_entry_id=raw.get("firstKeptEntryId", UNDEFINED),
        messages_to_summarize=list(raw.get("messagesToSummarize") or []),
        turn_prefix_messages=list(raw.get("turnPrefixMessages") or []),
        is_split_turn=js_truthy(raw.get("isSplitTurn")),
        tokens_before=raw.get("tokensBefore", 0),
        previous_summary=raw.get("previousSummary", UNDEFINED),
        file_ops=FileOps.of(ops.get("read") or (), ops.get("written") or (), ops.get("edited") or ()),
        settings=CompactionSettings(
            js_truthy(merged.get("enabled")), merged.get("reserveTokens", 0), merged.get("keepRecentTokens", 0)
        ),
        cut=CutPoint(0, -1, js_truthy(raw.get("isSplitTurn"))),
        projection=SessionProjection([], [], "off", None),
    )


@OPS.op("compact", mask=mask_summary_prompts)
def compact_op(req: dict[str, Any], ctx: EvalContext) -> Json:
    raw_preparation = req.get("preparation")
    if isinstance(raw_preparation, dict):
        preparation: CompactionPreparation | None = _given_preparation(raw_preparation)
    else:
        entries, _ = decode_entries(req, ctx)
        require_compactable(entries)
        settings, _merged = settings_of(req)
        preparation = prepare_compaction(entries, settings)
        if preparation is None:
            return {"preparation": None, "result": None, "requests": []}
    assert preparation is not None
    model = _model(req)
    client = ScriptedClient(req.get("responses"), str(model.get("id")))
    outcome: CompactionResult | SummaryFailure
    if isinstance(raw_preparation, dict) and "settings" not in raw_preparation and ctx.rules.lacks("summary-uncapped"):
        # Before Pi 1.4.0 each summary call reads preparation.settings.reserveTokens first: a preparation
        # without settings fails there, before any request.
        outcome = SummaryFailure(str(cannot_read(UNDEFINED, "reserveTokens")))
    else:
        outcome = _run(compact(preparation, client, options=_options(req, model, ctx)))
    result: CompactionResult | None = outcome if isinstance(outcome, CompactionResult) else None
    error = outcome.message if isinstance(outcome, SummaryFailure) else None
    previous = preparation.previous_summary
    return as_json(
        {
            "preparationSummary": {
                "firstKeptEntryId": preparation.first_kept_entry_id,
                "isSplitTurn": preparation.is_split_turn,
                "tokensBefore": preparation.tokens_before,
                "previousSummary": None if previous is UNDEFINED else previous,
                "messagesToSummarize": len(preparation.messages_to_summarize),
                "turnPrefixMessages": len(preparation.turn_prefix_messages),
            },
            "requests": client.described(),
            "result": result.to_json() if result is not None else None,
            "error": error,
        }
    )


# --- branch summaries ------------------------------------------------------------------------------


def _branch_entries(req: dict[str, Any], ctx: EvalContext) -> list[Any]:
    entries, _ = decode_entries(req, ctx)
    require_no_null(entries, "type")  # SessionManager's _loadEntries, or prepareBranchEntries' loop
    if "oldLeafId" in req and "targetId" in req:
        return collect_entries_for_branch_summary(entries, req["oldLeafId"], req["targetId"]).entries
    return entries


@OPS.op("collect_entries_for_branch_summary")
def collect_entries_op(req: dict[str, Any], ctx: EvalContext) -> Json:
    entries, _ = decode_entries(req, ctx)
    require_no_null(entries, "type")  # SessionManager's _loadEntries
    return as_json(collect_entries_for_branch_summary(entries, req.get("oldLeafId"), req.get("targetId")).to_json())


@OPS.op("prepare_branch_entries")
def prepare_branch_entries_op(req: dict[str, Any], ctx: EvalContext) -> Json:
    budget = req.get("tokenBudget")
    prepared = prepare_branch_entries(_branch_entries(req, ctx), 0 if budget is None else budget, ctx.rules)
    out = {**prepared.to_json(), "fileLists": compute_file_lists(prepared.file_ops).to_json()}
    if req.get("brief"):
        out["messages"] = [brief_message(m) for m in prepared.messages]
    return as_json(out)


@OPS.op("branch_summary", mask=mask_summary_prompts)
def branch_summary_op(req: dict[str, Any], ctx: EvalContext) -> Json:
    entries = _branch_entries(req, ctx)
    model = _model(req)
    client = ScriptedClient(req.get("responses"), str(model.get("id")))
    reserve = req.get("reserveTokens", DEFAULT_BRANCH_RESERVE_TOKENS)
    outcome = _run(
        generate_branch_summary(
            entries,
            client,
            context_window=model.get("contextWindow"),
            reserve_tokens=0 if reserve is None else reserve,
            options=_options(req, model, ctx),
            replace_instructions=js_truthy(req.get("replaceInstructions")),
        )
    )
    result: dict[str, Any]
    if isinstance(outcome, BranchSummary):
        result = outcome.to_json()
    elif outcome.cancelled:
        result = {"aborted": True}
    else:
        result = {"error": outcome.message}
    return as_json({"requests": client.described(), "result": result})
