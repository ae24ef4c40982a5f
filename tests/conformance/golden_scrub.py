"""The form the oracle goldens are stored in: Pi's answers with Pi's prose taken out, the comparison kept.

Pi's answers to the prompt and summary ops hold Pi's own sentences, which stay out of this repository
(CONTRIBUTING.md). The comparison never looked at them: each op's mask (``lsp_server/conformance``)
hides them on both sides. So ``regen_goldens.py`` stores each answer with exactly that prose replaced,
in a form the mask treats as it treated Pi's text; everything else stays byte for byte as Pi wrote it.

* The prompt ops (``build_sections``, ``build_system_prompt``, ``diff_sections``,
  ``format_skills_for_prompt``): each of Pi's sentences (a line, a rule bullet, a tool's snippet)
  becomes its placeholder ``{pi-prose:<role>}``, the mask's own output for it
  (:func:`~lsp_server.conformance.prompt_mask.replace_pi_prose`). No count is compared there: our
  sentences have their own lengths.
* The summary ops (``compact``, ``branch_summary``) and ``constants``: the summarization system
  prompt, and the instruction template of each summary prompt except its heading lines (the mask
  compares the headings; the offline summarizer reads them), become a stand-in of the same length,
  escapes and character classes (:func:`tests.support.pi_prose.stand_in`), so the prompts keep every
  size Pi's had. The conversation, previous summary, ``Additional focus`` line and a caller's own
  instructions stay.

:func:`scrub_answer` is idempotent; ``test_golden_scrub.py`` checks the committed goldens are in this form.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from lsp_server.conformance.harness import map_strings
from lsp_server.conformance.ops_summaries import split_prompt_text
from lsp_server.conformance.prompt_mask import replace_pi_prose, request_package_dir
from tests.support.pi_prose import stand_in

Json = Any
Scrub = Callable[[dict[str, Any], Json], Json]

SYSTEM_PROMPT_LABEL: Final = "[Pi's summarization system prompt, not reproduced here]"
INSTRUCTIONS_LABEL: Final = "[Pi's summary instructions, not reproduced here; its headings are kept]"


def scrub_prompt_result(req: dict[str, Any], result: Json) -> Json:
    """Every string of a prompt op's answer with Pi's sentences replaced by their placeholders."""
    package_dir = request_package_dir(req)
    return map_strings(result, lambda text: replace_pi_prose(text, package_dir))


def _template_stand_in(template: str) -> str:
    """The template's lines stood in for, all but its headings (``#`` lines), which stay where they are."""
    lines = template.split("\n")
    prose = [index for index, line in enumerate(lines) if not line.startswith("#")]
    replaced = stand_in("\n".join(lines[index] for index in prose), INSTRUCTIONS_LABEL).split("\n")
    for index, line in zip(prose, replaced, strict=True):
        lines[index] = line
    return "\n".join(lines)


def scrub_prompt_text(text: str, req: dict[str, Any]) -> str:
    """A summary prompt with its instruction template stood in for (the split the mask makes)."""
    head, template, tail = split_prompt_text(text, req)
    return head + ("" if template is None else _template_stand_in(template)) + tail


def scrub_summary_result(req: dict[str, Any], result: Json) -> Json:
    """A ``compact``/``branch_summary`` answer with the prose of each recorded model request stood in for."""
    if not isinstance(result, dict) or not isinstance(result.get("requests"), list):
        return result
    requests = []
    for request in result["requests"]:
        request = dict(request)
        if isinstance(request.get("systemPrompt"), str):
            request["systemPrompt"] = stand_in(request["systemPrompt"], SYSTEM_PROMPT_LABEL)
        if isinstance(request.get("promptText"), str):
            request["promptText"] = scrub_prompt_text(request["promptText"], req)
        raw = request.get("rawContext")
        if isinstance(raw, dict) and isinstance(raw.get("messages"), list):
            request["rawContext"] = {**raw, "messages": [_scrub_message(m, req) for m in raw["messages"]]}
        requests.append(request)
    return {**result, "requests": requests}


def _scrub_message(message: Json, req: dict[str, Any]) -> Json:
    if not isinstance(message, dict):
        return message
    content = message.get("content")
    if message.get("role") == "system" and isinstance(content, str):
        return {**message, "content": stand_in(content, SYSTEM_PROMPT_LABEL)}
    if isinstance(content, list):
        blocks = [
            {**block, "text": scrub_prompt_text(block["text"], req)}
            if isinstance(block, dict) and isinstance(block.get("text"), str)
            else block
            for block in content
        ]
        return {**message, "content": blocks}
    return message


def scrub_constants(req: dict[str, Any], result: Json) -> Json:
    if isinstance(result, dict) and isinstance(result.get("SUMMARIZATION_SYSTEM_PROMPT"), str):
        return {
            **result,
            "SUMMARIZATION_SYSTEM_PROMPT": stand_in(result["SUMMARIZATION_SYSTEM_PROMPT"], SYSTEM_PROMPT_LABEL),
        }
    return result


# The ops whose answers hold Pi's prose: each is masked the same way (the @op registrations).
SCRUBS: Final[dict[str, Scrub]] = {
    "build_sections": scrub_prompt_result,
    "build_system_prompt": scrub_prompt_result,
    "diff_sections": scrub_prompt_result,
    "format_skills_for_prompt": scrub_prompt_result,
    "compact": scrub_summary_result,
    "branch_summary": scrub_summary_result,
    "constants": scrub_constants,
}


def scrub_answer(request: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    """One oracle answer (its envelope) in the stored form: the result, or the error, scrubbed."""
    scrub = SCRUBS.get(str(request.get("op")))
    if scrub is None:
        return answer
    if answer.get("ok") is True:
        return {**answer, "result": scrub(request, answer.get("result"))}
    if isinstance(answer.get("error"), str):
        return {**answer, "error": scrub(request, {"error": answer["error"]})["error"]}
    return answer
