"""Our ``debug eval`` answers against Pi's answers (committed goldens), for every Pi release.

Every request line in ``requests/<op>.jsonl`` has Pi 1.6.0's answer on the same line of
``golden/<op>.jsonl`` (made by ``regen_goldens.py``). Where an older release answers otherwise,
``golden/releases/<version>/<op>.jsonl`` holds that release's answer for the request (made by
``regen_goldens.py --release``): those are the rules Pi changed (docs/pi-versions.md). Each case runs
our implementation on the request with the release's rules and checks that every key of Pi's result
is in ours with the same value, after the op's mask (Pi prose we do not copy; the YAML parser's own
error wording).

* :func:`test_matches_pi` runs every request for the release under test: the newest by default,
  another in CI's version matrix (``PI_CONTEXT_PI_RELEASE=1.4.0``, ``.ci/run``), with its answers
  where they differ and the newest release's elsewhere;
* :func:`test_matches_each_release_where_it_differs` runs every per-release answer, so each changed
  rule is checked against the release that has it in every run.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from lsp_server.conformance.compare import compare_answers
from lsp_server.conformance.harness import handle, load_ops
from lsp_server.vocabulary.pi_releases import NEWEST, RELEASES, rules_for

HERE = Path(__file__).resolve().parent
RELEASES_DIR = HERE / "golden" / "releases"
RELEASE_ENV = "PI_CONTEXT_PI_RELEASE"


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").split("\n") if x.strip()]


def _requests() -> dict[str, list[tuple[str, dict[str, Any], dict[str, Any]]]]:
    """op -> [(case id, request, Pi 1.6.0's answer)], in file order."""
    out: dict[str, list[tuple[str, dict[str, Any], dict[str, Any]]]] = {}
    for request_file in sorted((HERE / "requests").glob("*.jsonl")):
        golden_file = HERE / "golden" / request_file.name
        requests, goldens = _lines(request_file), _lines(golden_file)
        assert len(requests) == len(goldens), f"{golden_file.name} is stale: run regen_goldens.py"
        out[request_file.stem] = [
            (request.get("name") or f"{request_file.stem}[{index}]", request, golden)
            for index, (request, golden) in enumerate(zip(requests, goldens, strict=True))
        ]
    return out


def _release_answers(version: str) -> dict[str, dict[str, Any]]:
    """case id -> the release's answer, where it differs from the newest's."""
    folder = RELEASES_DIR / version
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
        for line in _lines(path):
            found[line["case"]] = line["answer"]
    return found


def _cases() -> list[Any]:
    version = os.environ.get(RELEASE_ENV) or NEWEST.version
    differing = _release_answers(version)
    cases = []
    for cases_of_op in _requests().values():
        for name, request, golden in cases_of_op:
            cases.append(pytest.param(request, differing.get(name, golden), version, id=name))
    return cases


def _differing_cases() -> list[Any]:
    by_name = {name: request for cases in _requests().values() for name, request, _ in cases}
    cases = []
    for release in RELEASES:
        for name, answer in _release_answers(release.version).items():
            cases.append(pytest.param(by_name[name], answer, release.version, id=f"{release.version}/{name}"))
    return cases


def _check(request: dict[str, Any], golden: dict[str, Any], version: str) -> None:
    if request["op"] not in load_ops():
        pytest.skip(f"op {request['op']} is not implemented yet")
    ours = handle(request, rules_for(version))
    problems = compare_answers(request, golden, ours)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(("request_", "golden", "version"), _cases())
def test_matches_pi(request_: dict[str, Any], golden: dict[str, Any], version: str) -> None:
    _check(request_, golden, version)


@pytest.mark.parametrize(("request_", "golden", "version"), _differing_cases())
def test_matches_each_release_where_it_differs(request_: dict[str, Any], golden: dict[str, Any], version: str) -> None:
    _check(request_, golden, version)


def test_every_release_folder_is_a_known_release_and_names_known_cases() -> None:
    known = {release.version for release in RELEASES}
    names = {name for cases in _requests().values() for name, _, _ in cases}
    for folder in RELEASES_DIR.iterdir() if RELEASES_DIR.is_dir() else []:
        assert folder.name in known, f"{folder.name} is not in lsp_server/vocabulary/pi_releases.py"
        assert set(_release_answers(folder.name)) <= names, f"{folder.name} names requests that no longer exist"
