"""``pi-context usage --parquet`` and ``--duckdb``: the counted requests, read back with DuckDB."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb

from tests.usage._folders import forks_folder, pi_fixture_folder


def usage(tmp_path: Path, *args: str) -> dict[str, Any]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PI_", "XDG_"))}
    env.update(HOME=str(tmp_path / "home"), PI_PACKAGE_DIR=str(tmp_path / "no-pi"))
    command = [sys.executable, "-m", "lsp_server", "usage", *args, "--json", "--no-cache", "--timezone", "UTC"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    parsed: dict[str, Any] = json.loads(done.stdout)
    return parsed


def test_the_parquet_file_holds_one_row_per_counted_request(tmp_path: Path) -> None:
    folder = pi_fixture_folder(tmp_path)
    target = tmp_path / "out" / "usage.parquet"
    report = usage(tmp_path, str(folder), "--parquet", str(target))
    table = f"read_parquet('{target}')"
    ((count, cost, inputs, reads, writes, outputs),) = duckdb.sql(
        f"SELECT count(*), sum(cost), sum(input), sum(cache_read), sum(cache_write), sum(output) FROM {table}"
    ).fetchall()
    totals = report["totals"]
    assert count == totals["requests"] == 937
    assert (inputs, reads, writes, outputs) == (
        totals["input"],
        totals["cacheRead"],
        totals["cacheWrite"],
        totals["output"],
    )
    assert math.isclose(cost, totals["cost"], rel_tol=1e-12)
    days = duckdb.sql(
        f"SELECT strftime(started_at AT TIME ZONE 'UTC', '%Y-%m-%d') AS day, count(*), sum(input) FROM {table} "
        "GROUP BY day ORDER BY day"
    ).fetchall()
    assert days == [(group["key"], group["requests"], group["input"]) for group in report["groups"]]
    models = dict(duckdb.sql(f"SELECT provider || '/' || model, count(*) FROM {table} GROUP BY ALL").fetchall())
    assert models == {"anthropic/claude-opus-4-5": 484, "anthropic/claude-sonnet-4-5": 452, "openai/gpt-5.1-codex": 1}
    assert not list(target.parent.glob(".usage-*"))


def test_the_duckdb_table_is_replaced_and_the_databases_other_tables_stay(tmp_path: Path) -> None:
    sessions, files, agent = forks_folder(tmp_path)
    database = tmp_path / "team.duckdb"
    with duckdb.connect(str(database)) as connection:
        connection.execute("CREATE TABLE notes AS SELECT 'keep me' AS text")
    for _ in range(2):  # a second run replaces the table, it does not append to it
        report = usage(tmp_path, str(sessions), "--agent-dir", str(agent), "--duckdb", str(database))
    with duckdb.connect(str(database), read_only=True) as connection:
        rows = connection.execute(
            "SELECT session_file, entry_id, parent_session, cost_source, cost, kind FROM requests ORDER BY started_at"
        ).fetchall()
        assert connection.execute("SELECT text FROM notes").fetchall() == [("keep me",)]
    assert len(rows) == report["totals"]["requests"] == 5
    assert {row[0] for row in rows} == {str(path) for path in files.values()}
    assert [row[3] for row in rows] == ["recorded"] * 5 and all(row[5] == "turn" for row in rows)
    clone_rows = [row for row in rows if row[0] == str(files["b"])]
    assert len(clone_rows) == 1 and clone_rows[0][2] == str(files["a"])  # the clone's own turn, with its parent


def test_since_and_until_apply_to_the_rows(tmp_path: Path) -> None:
    folder = pi_fixture_folder(tmp_path)
    target = tmp_path / "december.parquet"
    report = usage(tmp_path, str(folder), "--since", "2025-12-01", "--parquet", str(target))
    ((count,),) = duckdb.sql(f"SELECT count(*) FROM read_parquet('{target}')").fetchall()
    assert count == report["totals"]["requests"] == 484
