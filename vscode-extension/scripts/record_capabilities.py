"""Record what each real Pi release answers the chat's capability probes (``test/fixtures/chat/capabilities``).

For every release of ``lsp_server/vocabulary/pi_releases.py`` that is installed (``tests/support/install_pi.sh``),
start it in RPC mode against the loopback fake model and write ``<version>.json``: the
``capabilities`` of ``pi/chat/start``'s answer for a new chat, as the view's unit tests read them
(``test/chatCapabilities.test.ts``); also ``1.7.0.json`` (the newest release answering as a release
newer than every known one) and ``stand-in-0.9.0.json`` (the stand-in peer, a Pi whose RPC lacks
every probed command: no release on npm does). ``tests/pi_rpc/test_real_capabilities.py`` fails when a fixture is
no longer what its release answers.

Run from the repository root: ``.venv/bin/python vscode-extension/scripts/record_capabilities.py [VERSION...]``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from lsp_server.vocabulary.pi_releases import NEWEST, RELEASES  # noqa: E402
from tests.support.pi_capabilities import (  # noqa: E402
    capabilities_at_start,
    fixture_path,
    stand_in_capabilities,
)
from tests.support.pi_for_tests import find_test_pi  # noqa: E402

NEWER_THAN_KNOWN = "1.7.0"  # answered by the newest release, as if it printed this version
STAND_IN_VERSION = "0.9.0"  # the stand-in peer (tests/support/fake_pi_rpc.py): a Pi lacking the probed commands


def write(name: str, answer: dict[str, Any]) -> None:
    path = fixture_path(name)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(answer, indent=2) + "\n", encoding="utf-8")
    print(f"{name}: {sum(not f['available'] for f in answer['features'])} features off -> {path}")


async def main(only: list[str]) -> int:
    for release in RELEASES:
        if only and release.version not in only:
            continue
        pi, reason = find_test_pi(release.version)
        if pi is None:
            print(f"{release.version}: skipped ({reason})")
            continue
        write(release.version, await capabilities_at_start(pi))
        if release == NEWEST:  # what a release newer than every known one gets (its version is all that differs)
            write(NEWER_THAN_KNOWN, await capabilities_at_start(pi, as_version=NEWER_THAN_KNOWN))
    if not only:
        write(f"stand-in-{STAND_IN_VERSION}", await stand_in_capabilities(STAND_IN_VERSION))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
