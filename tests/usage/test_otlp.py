"""``pi-context usage --otlp``: one span per counted request, received and decoded by a real OTLP/HTTP receiver.

The receiver (:mod:`tests.support.otlp_receiver`) is an HTTP server on 127.0.0.1 that parses each body
with the official ``ExportTraceServiceRequest`` definition. The sessions are the real Pi's forks and
clones, so the five paid requests sit in ten assistant entries: exactly five spans must arrive, once
each, also across runs and across a restart (and a ``kill -9``) of ``--watch``.
"""

from __future__ import annotations

import getpass
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.otlp_receiver import OtlpReceiver, ReceivedSpan, receiver
from tests.usage._folders import appended_turn, forks_folder, lines

SPAN_KIND_CLIENT = 3
STATUS_UNSET = 0


@pytest.fixture
def collector() -> Iterator[OtlpReceiver]:
    with receiver() as running:
        yield running


def command(sessions: Path, agent: Path, collector: OtlpReceiver, state: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "lsp_server", "usage", str(sessions), "--agent-dir", str(agent),
        "--otlp", collector.endpoint, "--otlp-state", str(state), "--timezone", "UTC", *extra,
    ]  # fmt: skip


def environment(tmp_path: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PI_", "OTEL_", "XDG_"))}
    env.update(HOME=str(tmp_path / "home"), PI_PACKAGE_DIR=str(tmp_path / "no-pi"))
    return env


def run(tmp_path: Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, env=environment(tmp_path), check=False, timeout=120)


def expected_requests(files: dict[str, Path]) -> dict[str, dict[str, Any]]:
    """Every paid reply once, by entry id, with the session that made it (the first holder in A, B, C, D)."""
    out: dict[str, dict[str, Any]] = {}
    for key in "abcd":
        header, *entries = lines(files[key])
        for entry in entries:
            if entry.get("type") == "message" and entry["message"]["role"] == "assistant" and entry["id"] not in out:
                out[entry["id"]] = {"entry": entry, "session": header, "path": str(files[key])}
    return out


def texts(files: dict[str, Path]) -> set[str]:
    """Every text of every message in the files (none may reach the collector)."""
    found: set[str] = set()
    for path in files.values():
        for entry in lines(path):
            for part in (entry.get("message") or {}).get("content") or []:
                if isinstance(part, dict) and part.get("text"):
                    found.add(part["text"])
    return found


def test_each_counted_request_arrives_once_as_a_genai_span(tmp_path: Path, collector: OtlpReceiver) -> None:
    sessions, files, agent = forks_folder(tmp_path)
    state = tmp_path / "state" / "sent"
    done = run(tmp_path, command(sessions, agent, collector, state, "--json", "--no-cache"))
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["otlp"] == {
        "endpoint": collector.endpoint + "/v1/traces", "state": str(state), "sent": 5, "alreadySent": 0, "error": None
    }  # fmt: skip
    spans = collector.wait_for(5)
    assert len(spans) == 5
    expected = expected_requests(files)
    by_entry = {span.attributes["pi.entry.id"]: span for span in spans}
    assert set(by_entry) == set(expected)
    secret = texts(files)
    for entry_id, span in by_entry.items():
        entry, header = expected[entry_id]["entry"], expected[entry_id]["session"]
        usage = entry["message"]["usage"]
        assert (span.name, span.kind, span.status_code) == ("chat fake-1", SPAN_KIND_CLIENT, STATUS_UNSET)
        assert span.attributes == {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "fake",
            "gen_ai.system": "fake",
            "gen_ai.request.model": "fake-1",
            "gen_ai.response.model": "fake-1",
            "gen_ai.usage.input_tokens": usage["input"] + usage["cacheRead"] + usage["cacheWrite"],
            "gen_ai.usage.output_tokens": usage["output"],
            "gen_ai.usage.cache_read.input_tokens": usage["cacheRead"],
            "gen_ai.usage.cache_creation.input_tokens": usage["cacheWrite"],
            "gen_ai.conversation.id": header["id"],
            "gen_ai.response.finish_reasons": [entry["message"]["stopReason"]],
            "pi.usage.input_tokens": usage["input"],
            "pi.usage.cost": usage["cost"]["total"],
            "pi.usage.cost_source": "recorded",
            "pi.request.kind": "turn",
            "pi.session.file": expected[entry_id]["path"],
            "pi.entry.id": entry_id,
        }
        assert span.start_ns == entry["message"]["timestamp"] * 1_000_000  # when Pi started the request
        assert span.resource["service.name"] == "pi" and span.resource["pi.project"] == header["cwd"]
        assert span.resource["host.name"] == socket.gethostname()
        assert span.resource["user.name"] == getpass.getuser()
        assert span.scope == "pi-context.usage" and span.parent_span_id == ""
        assert not any(isinstance(value, str) and value in secret for value in span.attributes.values())
    assert len({span.trace_id for span in spans}) == 5
    assert len(state.read_text().splitlines()) == 5

    again = run(tmp_path, command(sessions, agent, collector, state, "--no-cache"))
    assert again.returncode == 0, again.stderr
    assert f"otlp: sent 0 spans to {collector.endpoint}/v1/traces (5 sent before, skipped" in again.stdout
    assert len(collector.spans) == 5


def test_a_refused_export_is_not_marked_and_goes_out_on_the_next_run(tmp_path: Path, collector: OtlpReceiver) -> None:
    sessions, _files, agent = forks_folder(tmp_path)
    state = tmp_path / "sent"
    collector.refuse = 400
    refused = run(tmp_path, command(sessions, agent, collector, state))
    assert refused.returncode == 1 and collector.requests == 1
    assert f"{collector.endpoint}/v1/traces did not accept 5 spans" in refused.stderr
    assert not state.exists() and collector.spans == []
    collector.refuse = None
    accepted = run(tmp_path, command(sessions, agent, collector, state))
    assert accepted.returncode == 0, accepted.stderr
    assert len(collector.wait_for(5)) == 5 and len(state.read_text().splitlines()) == 5


def wait_for_lines(path: Path, count: int) -> None:
    """Wait until the cursor holds ``count`` ids (a hang guard: nothing signals a file's growth here)."""
    deadline = time.monotonic() + 60
    while len(path.read_text().splitlines()) < count:
        assert time.monotonic() < deadline, path.read_text()
        time.sleep(0.02)


class Watcher:
    """``pi-context usage --otlp --watch`` as a child process, its output read as it comes."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.lines: list[str] = []
        self.ready = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)
            if line.startswith("otlp: watching"):
                self.ready.set()

    def wait_ready(self) -> None:
        assert self.ready.wait(60), (self.lines, self.process.poll())

    def stop(self, sig: int) -> int:
        self.process.send_signal(sig)
        code = self.process.wait(60)
        self._reader.join(10)
        return code


def test_watch_sends_each_new_request_once_across_restarts(tmp_path: Path, collector: OtlpReceiver) -> None:
    sessions, files, agent = forks_folder(tmp_path)
    state = tmp_path / "sent"
    argv = command(sessions, agent, collector, state, "--watch", "--cache", str(tmp_path / "cache.json"))
    env = environment(tmp_path)

    def append(number: int) -> None:
        with files["c"].open("a", encoding="utf-8") as handle:
            handle.write(appended_turn(files["c"], number))

    first = Watcher(argv, env)
    first.wait_ready()
    assert len(collector.wait_for(5)) == 5
    append(1)
    collector.wait_for(6)
    assert first.stop(signal.SIGTERM) == 0
    append(2)  # written while nobody watches
    second = Watcher(argv, env)
    second.wait_ready()
    collector.wait_for(7)
    append(3)
    collector.wait_for(8)
    wait_for_lines(state, 8)  # accepted and remembered (a kill before that sends it again, with the same ids)
    assert second.stop(signal.SIGKILL) == -signal.SIGKILL  # no clean end: the cursor was synced per batch
    third = Watcher(argv, env)
    third.wait_ready()
    append(4)
    spans: list[ReceivedSpan] = collector.wait_for(9)
    assert third.stop(signal.SIGINT) == 0  # Ctrl-C ends the watch between two exports
    entry_ids = [span.attributes["pi.entry.id"] for span in spans]
    assert len(entry_ids) == len(set(entry_ids)) == 9
    assert entry_ids[5:] == ["new00001", "new00002", "new00003", "new00004"]
    assert len(state.read_text().splitlines()) == 9


def test_content_is_sent_only_when_asked_in_the_conventions_message_shape(
    tmp_path: Path, collector: OtlpReceiver
) -> None:
    sessions, files, agent = forks_folder(tmp_path)
    done = run(tmp_path, command(sessions, agent, collector, tmp_path / "sent", "--no-cache", "--otlp-content"))
    assert done.returncode == 0, done.stderr
    spans = {span.attributes["pi.entry.id"]: span for span in collector.wait_for(5)}
    expected = expected_requests(files)
    for entry_id, span in spans.items():
        entry = expected[entry_id]["entry"]
        output = json.loads(span.attributes["gen_ai.output.messages"])
        reply_text = entry["message"]["content"][0]["text"]
        assert output == [
            {"role": "assistant", "parts": [{"type": "text", "content": reply_text}], "finish_reason": "stop"}
        ]
        inputs = json.loads(span.attributes["gen_ai.input.messages"])
        # What the turn added since the previous reply on its branch: the user's prompt that asked for it.
        parent = next(e for e in lines(Path(expected[entry_id]["path"])) if e.get("id") == entry["parentId"])
        assert inputs == [
            {"role": "user", "parts": [{"type": "text", "content": parent["message"]["content"][0]["text"]}]}
        ]
    replies = sorted(
        json.loads(span.attributes["gen_ai.output.messages"])[0]["parts"][0]["content"] for span in spans.values()
    )
    assert replies == ["five (pi --fork)", "four (in the fork)", "one", "three (in the clone)", "two"]
