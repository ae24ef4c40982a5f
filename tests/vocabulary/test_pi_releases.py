"""The release table: which rules a Pi version gets, and that the table agrees with what it names."""

from __future__ import annotations

import json
from pathlib import Path

from lsp_server.vocabulary.pi_releases import (
    CHANGES,
    CURRENT,
    NEWEST,
    OLDEST,
    RELEASES,
    first_release_with,
    package_version,
    parse_version,
    rules_for,
)


def test_releases_are_newest_first_and_changes_in_release_order() -> None:
    keys = [release.key for release in RELEASES]
    assert keys == sorted(keys, reverse=True) and len(set(keys)) == len(keys)
    since = [change.since_key for change in CHANGES]
    assert since == sorted(since)
    assert len({change.id for change in CHANGES}) == len(CHANGES)


def test_a_known_release_has_exactly_the_changes_up_to_it() -> None:
    assert rules_for("1.5.2").changes == CURRENT.changes  # nothing changed in 1.6.0 that the lens follows
    old = rules_for("1.0.3")
    assert old.version == old.basis == "1.0.3" and old.note is None
    assert old.changes == frozenset()
    assert rules_for("1.3.0").has("summary-omits-thinking") and rules_for("1.3.0").lacks("summary-uncapped")
    assert rules_for("1.5.0").lacks("surrogate-safe-cuts") and rules_for("1.5.0").has("usage-total-from-provider")


def test_a_release_between_known_ones_follows_its_own_version() -> None:
    """1.1.0 is off npm: its rules are the changes up to 1.1.0, its basis the release before it."""
    rules = rules_for("1.1.0")
    assert rules.has("tool-durations") and rules.lacks("summary-omits-thinking")
    assert rules.basis == "1.0.3" and rules.note is None


def test_a_newer_pi_gets_the_newest_rules_and_a_note() -> None:
    rules = rules_for("1.7.0")
    assert rules.changes == CURRENT.changes and rules.basis == NEWEST.version
    assert rules.note is not None and rules.note.startswith("Pi 1.7.0 is newer than every release pi-context knows")


def test_an_older_pi_gets_the_oldest_rules_and_a_note() -> None:
    rules = rules_for("0.85.1")
    assert rules.basis == OLDEST.version and rules.changes == rules_for(OLDEST.version).changes
    assert rules.note is not None and "older than every release pi-context was checked against" in rules.note


def test_no_version_or_a_bad_one_means_the_newest() -> None:
    assert rules_for(None) is CURRENT and rules_for("") is CURRENT and rules_for("nightly") is CURRENT
    assert parse_version("v1.5.2-beta.1") == (1, 5, 2)


def test_the_first_release_on_npm_with_a_change() -> None:
    assert first_release_with("tool-durations") == "1.3.0"  # 1.1.0 and 1.2.0 are no longer on npm
    assert first_release_with("surrogate-safe-cuts") == "1.5.2"


def test_an_installed_packages_version_is_read_from_its_manifest(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text(json.dumps({"name": "@earendil-works/pi-coding-agent", "version": "1.4.0"}))
    assert package_version(str(tmp_path)) == "1.4.0"
    assert package_version(str(tmp_path / "missing")) is None and package_version(None) is None
    (tmp_path / "package.json").write_text("{not json")
    assert package_version(str(tmp_path)) is None
