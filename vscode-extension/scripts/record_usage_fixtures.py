"""Write the extension's usage fixtures (``test/fixtures/usage/*.json``): ``pi/usage`` answers for fixed inputs.

The Usage panel's unit tests (``test/usage.test.ts``) word and draw real server answers. Each fixture is
computed by the code the server's handler calls (:func:`lsp_server.usage.collect.collect`, then
:func:`lsp_server.project.usage.usage_result`) over session folders kept in the repository: Pi's two
fixture sessions, and the real Pi's forks and clones (``tests/usage/fixtures/real-pi-forks``) with their
models.json. ``tests/usage/test_extension_fixtures.py`` runs this with ``--print`` and compares.

    python vscode-extension/scripts/record_usage_fixtures.py          # write the fixtures
    python vscode-extension/scripts/record_usage_fixtures.py --print  # print them as one JSON object

The folders are copied under a fixed path (:data:`ROOT`, held under a lock) because the answer names
the files; days are in UTC.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

FIXTURES = REPO / "vscode-extension" / "test" / "fixtures" / "usage"
ROOT = Path("/tmp/pi-context-usage-fixtures")


@contextlib.contextmanager
def _fixed_root() -> Iterator[Path]:
    ROOT.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{ROOT}.lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        shutil.rmtree(ROOT, ignore_errors=True)
        ROOT.mkdir()
        try:
            yield ROOT
        finally:
            shutil.rmtree(ROOT, ignore_errors=True)


def answers() -> dict[str, Any]:
    from lsp_server import protocol
    from lsp_server.budget.models import read_models_json
    from lsp_server.cost.prices import PriceCatalog
    from lsp_server.project.usage import usage_query, usage_result
    from lsp_server.usage.cache import UsageCache
    from lsp_server.usage.collect import collect
    from tests.usage._folders import forks_folder, pi_fixture_folder

    out: dict[str, Any] = {}
    with _fixed_root() as root:
        fixtures = pi_fixture_folder(root / "pi")
        forks, _files, agent = forks_folder(root / "forks")
        prices = PriceCatalog(models_json=read_models_json(str(agent)))
        for name, folder, by in (
            ("pi-fixtures.day.json", fixtures, "day"),
            ("pi-fixtures.model.json", fixtures, "model"),
            ("forks.session.json", forks, "session"),
        ):
            params = protocol.UsageParams(by=by, time_zone="UTC")
            roots = (str(folder),)
            query = usage_query(params, roots)
            assert not isinstance(query, str)
            report = collect(query, UsageCache(None), prices.prices_for).report
            out[name] = usage_result(report, roots).wire()
    return out


def main() -> int:
    found = answers()
    if "--print" in sys.argv:
        sys.stdout.write(json.dumps(found) + "\n")
        return 0
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name, answer in found.items():
        (FIXTURES / name).write_text(json.dumps(answer, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
