"""The harness lists its op modules by name: every ``ops_*.py`` on disk is in that list."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lsp_server.conformance import harness

FOLDER = Path(harness.__file__).parent
ON_DISK = {f"lsp_server.conformance.{path.stem}" for path in FOLDER.glob("ops_*.py")}


def test_load_ops_imports_every_op_module_of_the_package() -> None:
    """In a fresh process, so that no other test's import stands in for a module left out of the list."""
    code = (
        "import json, sys\n"
        "from lsp_server.conformance.harness import load_ops\n"
        "ops = load_ops()\n"
        "print(json.dumps(sorted({spec.handler.__module__ for spec in ops.values()})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=FOLDER.parents[1]
    )
    assert ON_DISK and set(json.loads(done.stdout)) == ON_DISK
