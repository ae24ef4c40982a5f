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
:mod:`.op_table`, never this module. :data:`OP_MODULES` lists them: a new op module is added to
that list (``tests/conformance/test_harness_ops.py`` fails for a module left out).
"""

from __future__ import annotations

import base64
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from lsp_server import __version__
from lsp_server.conformance import (
    ops_compaction,
    ops_context,
    ops_cost,
    ops_prompt,
    ops_session,
    ops_session_script,
    ops_skills,
)
from lsp_server.conformance.op_table import EvalContext, Json, OpError, OpSpec, map_strings
from lsp_server.js.errors import JsTypeError
from lsp_server.js.json import js_json_stringify
from lsp_server.vocabulary.pi_releases import CURRENT, PiRules

# A request string ``{pi-prose:<role>}`` names the built-in sentence of that role (prompt_mask.py):
# the implementation answering puts in its own wording (regen_goldens.py puts in Pi's).
PROSE_REFERENCE = "{pi-prose:"
OP_MODULES = (
    ops_compaction,
    ops_context,
    ops_cost,
    ops_prompt,
    ops_session,
    ops_session_script,
    ops_skills,
)
"""Every module of ops, in one list (``tests/conformance/test_harness_ops.py`` fails for a module left out)."""


def load_ops() -> dict[str, OpSpec]:
    """Every op of :data:`OP_MODULES` by name; a name two modules answer is a bug."""
    ops: dict[str, OpSpec] = {}
    for module in OP_MODULES:
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


def handle(raw: dict[str, Any], rules: PiRules = CURRENT) -> dict[str, Any]:
    """Answer one request as the release of ``rules`` would; never raises (errors become ``ok: false``)."""
    ops = load_ops()
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
        spec = ops.get(str(name))
        if spec is None:
            raise OpError(f"unknown op: {name}. Known: {', '.join(sorted(ops))}")
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
            result = spec.handler(req, ctx)
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
    return isinstance(raw, dict) and str(raw.get("op")) in load_ops()


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
        stdout.write(js_json_stringify(handle(req, rules)) + "\n")
        stdout.flush()
    return status


def run_one(stdin: TextIO, stdout: TextIO, pretty: bool = True, rules: PiRules = CURRENT) -> int:
    import json

    try:
        req = json.loads(stdin.read())
    except json.JSONDecodeError as exc:
        stdout.write(js_json_stringify({"ok": False, "error": f"invalid JSON request: {exc}"}) + "\n")
        return 2
    answer = handle(req, rules)
    indent = 1 if pretty and isinstance(req, dict) and req.get("pretty") is not False else None
    stdout.write(js_json_stringify(answer, indent=indent) + "\n")
    return 0 if is_answerable(req) else 2


if __name__ == "__main__":  # pragma: no cover - convenience for ad-hoc runs
    sys.exit(run_jsonl(sys.stdin, sys.stdout))
