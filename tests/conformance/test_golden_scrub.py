"""The goldens are stored without Pi's prose, in a form that compares as Pi's answer did.

``golden_scrub.py`` is what ``regen_goldens.py`` applies to each oracle answer. Pi's own text is not
here to try it on, so the scrubs are tried on our answers (our prose has the places Pi's has), and
the committed goldens are checked to be in the stored form; ``tests/test_pi_prose.py`` checks, with
Pi's sentences read from the installed Pi, that none of them is left in a golden.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lsp_server.compaction.prompts import SUMMARIZATION_SYSTEM_PROMPT, branch_prompt, history_prompt
from lsp_server.conformance.harness import handle, load_ops
from lsp_server.conformance.ops_compaction import mask_constants
from lsp_server.conformance.ops_summaries import mask_prompt_text, mask_summary_prompts
from lsp_server.conformance.prompt_mask import mask_prompt_result
from lsp_server.js.strings import js_len
from tests.conformance.golden_scrub import (
    INSTRUCTIONS_LABEL,
    SCRUBS,
    SYSTEM_PROMPT_LABEL,
    scrub_answer,
    scrub_prompt_text,
    scrub_summary_result,
)
from tests.support.pi_prose import stand_in

HERE = Path(__file__).resolve().parent
PROSE_MASKS = {mask_prompt_result, mask_summary_prompts, mask_constants}


def _pairs(op: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    requests = (HERE / "requests" / f"{op}.jsonl").read_text(encoding="utf-8").splitlines()
    goldens = (HERE / "golden" / f"{op}.jsonl").read_text(encoding="utf-8").splitlines()
    return [(json.loads(r), json.loads(g)) for r, g in zip(requests, goldens, strict=True) if r.strip()]


def test_every_op_whose_mask_hides_pis_prose_has_a_stored_form() -> None:
    assert {name for name, spec in load_ops().items() if spec.mask in PROSE_MASKS} == set(SCRUBS)


@pytest.mark.parametrize("op", sorted(SCRUBS))
def test_the_committed_goldens_are_in_the_stored_form(op: str) -> None:
    pairs = _pairs(op)
    assert pairs
    assert [scrub_answer(request, golden) for request, golden in pairs] == [golden for _, golden in pairs], (
        f"golden/{op}.jsonl holds Pi's prose: regenerate it with regen_goldens.py"
    )


def test_a_summary_prompt_keeps_its_headings_focus_and_every_size() -> None:
    focus = "Mention file names."
    prompt = history_prompt("[User]: hi\n\n[Assistant]: hello", "An earlier summary.", focus)
    request = {"op": "compact", "customInstructions": focus}
    scrubbed = scrub_prompt_text(prompt, request)
    assert scrubbed != prompt and scrubbed.startswith(
        "<conversation>\n[User]: hi\n\n[Assistant]: hello\n</conversation>"
    )
    assert "<previous-summary>\nAn earlier summary.\n</previous-summary>" in scrubbed
    assert scrubbed.endswith(f"\n\nAdditional focus: {focus}")
    assert INSTRUCTIONS_LABEL in scrubbed
    assert [line for line in scrubbed.split("\n") if line.startswith("#")] == [
        line for line in prompt.split("\n") if line.startswith("#")
    ]
    assert js_len(scrubbed) == js_len(prompt) and scrubbed.count("\n") == prompt.count("\n")
    assert mask_prompt_text(scrubbed, request) == mask_prompt_text(prompt, request)
    assert scrub_prompt_text(scrubbed, request) == scrubbed


def test_instructions_the_caller_replaced_stay_as_they_are() -> None:
    mine = "Just list the files."
    prompt = branch_prompt("[User]: hi", mine, replace_instructions=True)
    assert scrub_prompt_text(prompt, {"customInstructions": mine, "replaceInstructions": True}) == prompt


@pytest.mark.parametrize(
    ("op", "name"), [("compact", "example/compact_update"), ("branch_summary", "example/branch_summary")]
)
def test_a_scrubbed_summary_answer_compares_as_the_answer_did(op: str, name: str) -> None:
    request = next(r for r, _ in _pairs(op) if r["name"] == name)
    ours = handle(request)["result"]
    scrubbed = scrub_summary_result(request, ours)
    first = scrubbed["requests"][0]
    assert first["systemPrompt"] == stand_in(SUMMARIZATION_SYSTEM_PROMPT, SYSTEM_PROMPT_LABEL)
    assert first["rawContext"]["messages"][0]["content"] == first["systemPrompt"]
    assert (
        first["rawContext"]["messages"][1]["content"][0]["text"]
        == first["promptText"]
        != ours["requests"][0]["promptText"]
    )
    assert mask_summary_prompts(request, scrubbed) == mask_summary_prompts(request, ours)
    assert {key: value for key, value in scrubbed.items() if key != "requests"} == {
        key: value for key, value in ours.items() if key != "requests"
    }
