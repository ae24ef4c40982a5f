"""Recording project trust in Pi's trust store: the bytes, the key, the lock, and a store Pi cannot read."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from lsp_server.context.trust import project_trust
from lsp_server.context.trust_record import TrustRecorded, record_trust, trust_store_text
from tests.support.pi_for_tests import find_test_pi


def store(agent: Path) -> str:
    return (agent / "trust.json").read_text(encoding="utf-8")


def test_a_new_store_holds_the_folders_real_path_as_pi_writes_it(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    link = tmp_path / "link"
    link.symlink_to(project)
    recorded = record_trust(str(tmp_path / "agent"), str(link))
    assert recorded == TrustRecorded(str(tmp_path / "agent" / "trust.json"), str(project), True)
    assert store(tmp_path / "agent") == f'{{\n  "{project}": true\n}}\n'
    assert not (tmp_path / "agent" / "trust.json.lock").exists()  # the lock is let go


def test_keys_are_sorted_and_an_earlier_decision_for_the_folder_is_replaced(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "trust.json").write_text(json.dumps({"/z": True, f"{tmp_path}/p/": False, "/a": None}), encoding="utf-8")
    (tmp_path / "p").mkdir()
    assert isinstance(record_trust(str(agent), str(tmp_path / "p")), TrustRecorded)
    assert store(agent) == f'{{\n  "/a": null,\n  "{tmp_path}/p": true,\n  "/z": true\n}}\n'
    assert project_trust(str(tmp_path / "p"), str(agent)).trusted  # which the trust decision reads back


def test_a_store_pi_cannot_read_is_left_alone_with_the_reason(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "trust.json").write_text('{"/x": "yes"}', encoding="utf-8")
    found = record_trust(str(agent), str(tmp_path))
    assert isinstance(found, str) and "must be true, false, or null" in found and str(agent / "trust.json") in found
    assert store(agent) == '{"/x": "yes"}'


def test_a_held_lock_is_waited_for_then_refused_and_a_stale_one_is_taken(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    lock = agent / "trust.json.lock"
    lock.mkdir(parents=True)
    found = record_trust(str(agent), str(tmp_path))
    assert isinstance(found, str) and "locked by another process" in found
    assert not (agent / "trust.json").exists()
    old = time.time() - 60
    os.utime(lock, (old, old))  # a process died holding it: proper-lockfile's stale rule (10 s)
    assert isinstance(record_trust(str(agent), str(tmp_path)), TrustRecorded)


def test_an_empty_store_text_is_an_empty_object() -> None:
    assert trust_store_text({}) == "{}\n"


NODE_SET_TRUST = """
const [pkg, agentDir, cwd] = process.argv.slice(1);
const { ProjectTrustStore } = await import(`${pkg}/dist/core/trust-manager.js`);
new ProjectTrustStore(agentDir).set(cwd, true);
"""


def test_the_store_is_byte_for_byte_what_pis_own_store_writes(tmp_path: Path) -> None:
    pi, why = find_test_pi()
    if pi is None:
        pytest.skip(why)
    folders = [tmp_path / name for name in ("b", "a", "Ä", "a b")]
    for folder in folders:
        folder.mkdir()
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    for folder in folders:
        assert isinstance(record_trust(str(ours), str(folder)), TrustRecorded)
        subprocess.run(
            [str(pi.node), "--input-type=module", "-e", NODE_SET_TRUST, str(pi.package), str(theirs), str(folder)],
            check=True,
            capture_output=True,
        )
    assert store(ours) == store(theirs)
