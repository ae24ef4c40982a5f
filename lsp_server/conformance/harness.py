"""The ``debug eval`` harness: answer Pi-oracle requests with our own implementation.

A request is the JSON object the Pi oracle (``shared/oracle/pi-oracle.mjs``) accepts: an ``op``
name, op-specific keys, and the common set-up keys (``fs`` written into a fresh temp dir,
``${TMP}`` / ``${FIXTURES}`` substitution, ``env``, ``relativize``). The answer uses the oracle's
envelope (``{"ok": true, "op", "result"}`` or ``{"ok": false, "op", "error"}``), so the same
request file can be piped through both programs and the results compared key by key. One key is
ours: a string ``{pi-prose:<role>}`` stands for the built-in sentence of that role, which each side
puts in in its own wording (here ours; ``tests/conformance/regen_goldens.py`` puts in Pi's before
asking the oracle), so a request can hold "a guideline equal to a built-in rule" without Pi's text.

Ops live in ``ops_*.py`` modules next to this one; each registers its handlers in its own table
(``OPS``, an :class:`~lsp_server.conformance.op_table.OpTable`) and imports only
:mod:`.op_table` and other op modules, never this module. :data:`OP_HOMES` names the module of
every op, so that a request imports only the module that answers it: the ops' imports differ by
tens of megabytes (``compact``'s model client and asyncio against ``prepare_compaction``'s session
reader), and the smallest is what ``debug eval`` should cost next to a 200 MB session.
``tests/conformance/test_harness_ops.py`` fails for an op or a module left out of that table.
"""

from __future__ import annotations

import base64
import importlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from lsp_server import __version__
from lsp_server.conformance.op_table import EvalContext, Json, OpError, OpSpec, map_strings
from lsp_server.js.errors import JsTypeError
from lsp_server.js.json import js_json_stringify
from lsp_server.vocabulary.pi_releases import CURRENT, PiRules

# A request string ``{pi-prose:<role>}`` names the built-in sentence of that role (prompt_mask.py):
# the implementation answering puts in its own wording (regen_goldens.py puts in Pi's).
PROSE_REFERENCE = "{pi-prose:"
OP_HOMES: dict[str, str] = {
    "constants": "ops_compaction",
    "find_cut_point": "ops_compaction",
    "find_turn_start_index": "ops_compaction",
    "prepare_compaction": "ops_compaction",
    "load_context_files": "ops_context",
    "load_resources": "ops_context",
    "calculate_cost": "ops_cost",
    "prompt_cache_ttl": "ops_cost",
    "build_sections": "ops_prompt",
    "build_system_prompt": "ops_prompt",
    "diff_sections": "ops_prompt",
    "format_skills_for_prompt": "ops_prompt",
    "replay_system_messages": "ops_prompt",
    "build_session_context": "ops_session",
    "calculate_context_tokens": "ops_session",
    "compute_file_lists": "ops_session",
    "convert_to_llm": "ops_session",
    "estimate_tokens": "ops_session",
    "format_size": "ops_session",
    "get_last_assistant_usage": "ops_session",
    "load_session_file": "ops_session",
    "parse_session_jsonl": "ops_session",
    "serialize_conversation": "ops_session",
    "should_compact": "ops_session",
    "truncate_head": "ops_session",
    "truncate_line": "ops_session",
    "truncate_tail": "ops_session",
    "session_script": "ops_session_script",
    "load_skills": "ops_skills",
    "parse_frontmatter": "ops_skills",
    "collect_entries_for_branch_summary": "ops_summaries",
    "compact": "ops_summaries",
    "prepare_branch_entries": "ops_summaries",
    "branch_summary": "ops_summaries",
}
"""Every op, by name, and the module (of this package) that answers it."""


def op_spec(name: str) -> OpSpec | None:
    """The op ``name``, importing only the module that answers it; ``None`` for a name no module answers."""
    home = OP_HOMES.get(name)
    if home is None:
        return None
    module = importlib.import_module(f"{__package__}.{home}")
    spec: OpSpec | None = module.OPS.ops.get(name)
    if spec is None:
        raise RuntimeError(f"op {name!r} is listed under {home}, which does not answer it")
    return spec


def load_ops() -> dict[str, OpSpec]:
    """Every op of every module of :data:`OP_HOMES`, by name; a name two modules answer is a bug."""
    ops: dict[str, OpSpec] = {}
    for home in sorted(set(OP_HOMES.values())):
        module = importlib.import_module(f"{__package__}.{home}")
        for name, spec in module.OPS.ops.items():
            if name in ops:
                raise RuntimeError(f"op {name!r} registered twice")
            ops[name] = spec
    return ops


def default_fixtures_dir() -> Path:
    """Pi's test fixtures: ``PI_FIXTURES_DIR``, else the copy under ``tests/fixtures/pi``."""
    env = os.environ.get("PI_FIXTURES_DIR")
    if env:
        return Path(env)
    repo_copy = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "pi"
    return repo_copy


def materialize_fs(spec: dict[str, Any], root: Path) -> None:
    """Write the request's ``fs`` map below ``root`` exactly as the oracle does."""
    token = "${TMP}"
    for rel, content in spec.items():
        target = root / rel
        if content is None or rel.endswith("/"):
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            target.write_bytes(content.replace(token, str(root)).encode("utf-8", "surrogatepass"))
        elif isinstance(content, dict) and isinstance(content.get("symlink"), str):
            os.symlink(content["symlink"].replace(token, str(root)), target)
        elif isinstance(content, dict) and isinstance(content.get("base64"), str):
            target.write_bytes(base64.b64decode(content["base64"]))
        else:
            raise OpError(f"fs entry {rel}: expected string, null, {{symlink}}, or {{base64}}")


@contextmanager
def _patched_env(env: dict[str, Any]) -> Iterator[None]:
    saved: dict[str, str | None] = {}
    try:
        for key, value in env.items():
            saved[key] = os.environ.get(key)
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = str(value)
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old


def handle(raw: dict[str, Any], rules: PiRules = CURRENT, *, retained: list[Any] | None = None) -> dict[str, Any]:
    """Answer one request as the release of ``rules`` would; never raises (errors become ``ok: false``).

    ``retained``, when given, receives what the op read (a session's values: :meth:`EvalContext.retain`),
    for the caller to drop once the answer is written. Freeing the values of a 100 MB session takes
    about a tenth of the time reading it did; Pi's collector frees them after its answer too.
    """
    name = raw.get("op") if isinstance(raw, dict) else None
    tmp: Path | None = None
    fixtures = default_fixtures_dir()
    try:
        if not isinstance(raw, dict):
            raise OpError("request must be a JSON object")
        req = map_strings(raw, lambda s: s.replace("${FIXTURES}", str(fixtures)))
        if PROSE_REFERENCE in js_json_stringify(req):
            from lsp_server.conformance.prompt_mask import our_prose_roles, resolve_prose_references
            from lsp_server.prompt.texts import texts_for

            # a built-in sentence, in our wording of the release's prompt
            req = resolve_prose_references(req, our_prose_roles(texts_for(rules)))
        if req.get("fs") or "${TMP}" in js_json_stringify(req):
            tmp = Path(tempfile.mkdtemp(prefix="pi-context-eval-"))
            materialize_fs(req.get("fs") or {}, tmp)
            tmp_str = str(tmp)
            req = map_strings(req, lambda s: s.replace("${TMP}", tmp_str))
        spec = op_spec(str(name))
        if spec is None:
            raise OpError(f"unknown op: {name}. Known: {', '.join(sorted(OP_HOMES))}")
        ctx = EvalContext(tmp=tmp, fixtures=fixtures, package_dir=req.get("packageDir"), rules=rules)
        clock = req.get("clock")
        if isinstance(clock, dict):
            if isinstance(clock.get("stepMs"), int):
                ctx.clock_step_ms = clock["stepMs"]
            if isinstance(clock.get("start"), int):
                ctx.clock_start_ms = clock["start"]
            elif isinstance(clock.get("start"), str):
                from datetime import datetime

                parsed = datetime.fromisoformat(clock["start"].replace("Z", "+00:00"))
                ctx.clock_start_ms = int(parsed.timestamp() * 1000)
            ctx.__post_init__()
        ctx.deterministic_ids = req.get("deterministicIds") is not False
        with _patched_env(dict(req.get("env") or {})):
            try:
                result = spec.handler(req, ctx)
            finally:
                if retained is not None:
                    retained.extend(ctx.retained)
        if req.get("relativize") is not False:
            result = relativize(result, tmp, fixtures)
        return {"ok": True, "op": name, "implementation": f"pi-context {__version__}", "result": result}
    except Exception as exc:  # every failure is an answer, as in the oracle
        # OpError: the request was wrong; JsTypeError: Pi's own code throws here (V8's message, as the oracle's)
        message = str(exc) if isinstance(exc, (OpError, JsTypeError)) else f"{type(exc).__name__}: {exc}"
        if tmp is not None:
            message = message.replace(str(tmp), "${TMP}")
        return {"ok": False, "op": name, "error": message}
    finally:
        if tmp is not None and not (isinstance(raw, dict) and raw.get("keepTmp") is True):
            shutil.rmtree(tmp, ignore_errors=True)


def relativize(result: Json, tmp: Path | None, fixtures: Path) -> Json:
    def fix(s: str) -> str:
        if tmp is not None:
            s = s.replace(str(tmp), "${TMP}")
        return s.replace(str(fixtures), "${FIXTURES}")

    return map_strings(result, fix)


def is_answerable(raw: Any) -> bool:
    """A request names an op we have. ``ok: false`` for it is then an answer (Pi throws there too);
    for anything else it is a request nobody can answer, and the exit status says so."""
    return isinstance(raw, dict) and str(raw.get("op")) in OP_HOMES


def run_jsonl(stdin: TextIO, stdout: TextIO, rules: PiRules = CURRENT) -> int:
    """One request per line in, one compact answer per line out, in order; exit 2 if any line was
    not an answerable request."""
    import json

    status = 0
    for line in stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
        except json.JSONDecodeError as exc:
            stdout.write(js_json_stringify({"ok": False, "error": f"invalid JSON request: {exc}"}) + "\n")
            status = 2
            continue
        if not is_answerable(req):
            status = 2
        retained: list[Any] = []
        stdout.write(js_json_stringify(handle(req, rules, retained=retained)) + "\n")
        stdout.flush()
        del retained  # what the op read is freed once its answer is out
    return status


def run_one(stdin: TextIO, stdout: TextIO, pretty: bool = True, rules: PiRules = CURRENT) -> int:
    import json

    try:
        req = json.loads(stdin.read())
    except json.JSONDecodeError as exc:
        stdout.write(js_json_stringify({"ok": False, "error": f"invalid JSON request: {exc}"}) + "\n")
        return 2
    retained: list[Any] = []
    answer = handle(req, rules, retained=retained)
    indent = 1 if pretty and isinstance(req, dict) and req.get("pretty") is not False else None
    stdout.write(js_json_stringify(answer, indent=indent) + "\n")
    stdout.flush()
    del retained  # what the op read is freed once its answer is out
    return 0 if is_answerable(req) else 2


if __name__ == "__main__":  # pragma: no cover - convenience for ad-hoc runs
    sys.exit(run_jsonl(sys.stdin, sys.stdout))
