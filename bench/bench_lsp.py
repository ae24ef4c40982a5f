"""Language-server latencies, measured from the client side over stdio.

Run: ``python bench/bench_lsp.py [--runs N] [--skills K] [--edits E] [--json]``, or
``python bench/bench_lsp.py --folders 50 [--folder-skills 5]`` for the multi-root workspace alone.

* **start**: spawn ``python -m lsp_server serve`` -> ``initialize`` answered (what an editor waits
  for before it can talk to the server), and -> ``initialized`` handled (settings loaded,
  watcher up, first check scheduled; read through ``pi.debug.state``).
* **save**: in the same workspace (project trusted, so the K skills are in the prompt), a save of
  AGENTS.md (didChange + write + didSave) -> ``pi/promptSectionsChanged``; and, for comparison, a
  save of one SKILL.md, which walks the skill folders again (an AGENTS.md save reuses the skills).
* **edit**: in a workspace of K skills (``--shapes real``, the default: the realistic frontmatter
  mix of ``corpora.py`` in a 12-level tree; ``--shapes plain``: two-line frontmatter), a didChange
  of one SKILL.md -> the ``textDocument/publishDiagnostics`` for it (only when the rules are
  installed: the server's checker is not ``none``). Each edit flips the file between broken and
  fixed so every edit publishes. Edits are ``--edit-gap-ms`` apart (default 100, a fast typist's
  pace). Back to back (0), each edit arrives within the last check's time, and the scheduler
  coalesces it by design: it waits twice that time for the burst to end (``workspace/scheduler.py``).
  Also the time from spawn until all K skills are checked, and the server's resident memory then.
  Then a burst: 500 didChanges sent without waiting, the number of checks the server ran for them
  and the time until the last version's diagnostics arrived.

  With it, the server's own time on a CPU until ``initialize`` is answered, and its time waiting
  for one (``/proc/PID/task/*/schedstat``): on the shared machine the wall time is mostly waiting.

* **imports** (with the start): ``python -X importtime -m lsp_server serve`` with an empty stdin,
  once per start run: the cumulative import time of the server module (``lsp_server.server.app``)
  and of the biggest imports under it, best run (``--start-only`` runs just the start and this).

* **cold** (``--cold N [--agents-mb 30]``, only this part runs; issue 18): a workspace of N skill
  folders (one in 50 lacks its description) and an AGENTS.md of 30 MB, the project trusted. Times
  spawn -> ``initialize`` answered, -> a completion answered (it waits for the settings only: the
  server is ready, the workspace still cold), -> the first hover on an open SKILL.md answered (sent
  once that completion is answered; its own latency too) and -> ``pi/systemPrompt`` answered (sent
  right after ``initialized``), a hover after that, -> ``pi.debug.state`` idle (every file checked),
  the server's time on and waiting for a CPU at the two answers, and its peak resident memory.

* **folders** (``--folders F``, only this part runs): a workspace of F folders, each with its own
  ``.pi/skills`` of ``--folder-skills`` skills (every one lacks its description, so every one gets
  diagnostics) and an AGENTS.md, opened as F workspace folders in one ``initialize``. Times spawn
  -> ``initialize`` answered, -> every skill's diagnostics published (the hovered one, whose buffer is fixed,
  is not counted), and -> ``pi.debug.state``
  idle; the server's RSS then. Meanwhile a client loop sends hover and completion requests on a
  skill opened in the last folder, one after another, and reports how many were answered before the
  last diagnostics arrived and their latency (the server must stay responsive while it indexes).

Reports median and p95 in milliseconds, with the machine's load average before and after. The
machine is shared: compare runs made back to back.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpora import realistic_skills

SERVER = [sys.executable, "-m", "lsp_server", "serve"]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def summary(values: list[float]) -> dict[str, float]:
    return {
        "median_ms": round(statistics.median(values), 1),
        "p95_ms": round(percentile(values, 0.95), 1),
        "min_ms": round(min(values), 1),
        "runs": len(values),
    }


def env_for(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update({"HOME": str(home), "PI_CODING_AGENT_DIR": str(home / "agent"), "PI_CONTEXT_DEBUG": "1"})
    return env


async def start_client(root: Path, home: Path, init_options: Any = None) -> tuple[LanguageClient, float, float]:
    client = LanguageClient("bench", "0")
    published: asyncio.Queue[types.PublishDiagnosticsParams] = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_publish(params: types.PublishDiagnosticsParams) -> None:
        published.put_nowait(params)

    client.published = published  # type: ignore[attr-defined]
    began = time.perf_counter()
    await client.start_io(*SERVER, env=env_for(home))
    uri = from_fs_path(str(root))
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(window=types.WindowClientCapabilities(work_done_progress=True)),
            root_uri=uri,
            workspace_folders=[types.WorkspaceFolder(uri=uri or "", name="bench")],
            initialization_options=init_options,
        )
    )
    initialize_ms = (time.perf_counter() - began) * 1000
    client.cpu_at_initialize = server_schedstat(client)  # type: ignore[attr-defined]
    client.initialized(types.InitializedParams())
    await client.workspace_execute_command_async(types.ExecuteCommandParams(command="pi.debug.state", arguments=[{}]))
    ready_ms = (time.perf_counter() - began) * 1000
    return client, initialize_ms, ready_ms


def server_schedstat(client: LanguageClient) -> tuple[float, float] | None:
    """Milliseconds the server's threads ran on a CPU and waited for one, so far (Linux schedstat).

    On a shared machine the wall time to ``initialize`` is mostly waiting for a CPU; the time on
    the CPU is what the server itself costs, and what the wall time is on an idle machine.
    """
    process = client._server
    if process is None:
        return None
    ran = waited = 0
    try:
        for task in os.listdir(f"/proc/{process.pid}/task"):
            with open(f"/proc/{process.pid}/task/{task}/schedstat", encoding="ascii") as stat:
                fields = stat.read().split()
            ran, waited = ran + int(fields[0]), waited + int(fields[1])
    except (OSError, IndexError, ValueError):
        return None
    return ran / 1e6, waited / 1e6


def server_rss_mb(client: LanguageClient) -> float | None:
    """Resident memory of the server process (Linux ``/proc``), in MiB."""
    process = client._server
    if process is None:
        return None
    try:
        with open(f"/proc/{process.pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


async def stop_client(client: LanguageClient) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


async def bench_start(runs: int) -> dict[str, Any]:
    initialize: list[float] = []
    ready: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        root, home = Path(tmp, "ws"), Path(tmp, "home")
        root.mkdir()
        home.mkdir()
        on_cpu: list[float] = []
        waiting: list[float] = []
        for _ in range(runs):
            client, init_ms, ready_ms = await start_client(root, home)
            initialize.append(init_ms)
            ready.append(ready_ms)
            if client.cpu_at_initialize is not None:  # type: ignore[attr-defined]
                on_cpu.append(client.cpu_at_initialize[0])  # type: ignore[attr-defined]
                waiting.append(client.cpu_at_initialize[1])  # type: ignore[attr-defined]
            await stop_client(client)
    cpu = {"server_on_cpu_to_initialize": summary(on_cpu), "server_waiting_for_cpu": summary(waiting)} if on_cpu else {}
    return {"start_to_initialize": summary(initialize), "start_to_ready": summary(ready), **cpu, **import_times(runs)}


def import_times(runs: int) -> dict[str, Any]:
    """``-X importtime`` of ``serve`` (stdin empty, so it exits at once): the server's imports, best run."""
    best: dict[str, float] | None = None
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "lsp_server", "serve"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            check=False,
        )
        cumulative: dict[str, float] = {}
        for line in done.stderr.splitlines():
            parts = line.removeprefix("import time:").split("|")
            if len(parts) == 3 and parts[1].strip().isdigit():
                cumulative[parts[2].strip()] = int(parts[1]) / 1000
        if "lsp_server.server.app" in cumulative and (
            best is None or cumulative["lsp_server.server.app"] < best["lsp_server.server.app"]
        ):
            best = cumulative
    if best is None:
        return {}
    watched = ("lsp_server.server.app", "lsprotocol.types", "pygls.lsp.server", "asyncio", "lsp_server.server.features")
    return {"import_ms": {name: round(best[name], 1) for name in watched if name in best}}


def skill_text(name: str, broken: bool) -> str:
    description = "" if broken else f"description: Does {name} things.\n"
    return f"---\nname: {name}\n{description}---\n\n# {name}\n"


def edit_workspace(root: Path, skills: int, shapes: str) -> tuple[Path, list[str]]:
    """The edit workspace's skills, the SKILL.md the edits go to, and its two texts (fixed, broken).

    ``real``: ``corpora.realistic_skills``, the mix of frontmatter shapes real skills have (a 12-level
    tree; folded and literal descriptions, quoted values, ``allowed-tools``, nested ``metadata``); the
    edits go to the first skill whose frontmatter is not of the plain kind, and break it by giving it
    a name in capitals (a finding: not its folder's name, characters a name may not have).
    ``plain``: two-line ``name`` / ``description`` frontmatter, the edits drop the description.
    """
    skills_dir = root / ".pi" / "skills"
    if shapes == "plain":
        for n in range(skills):
            path = skills_dir / f"skill-{n:04d}" / "SKILL.md"
            path.parent.mkdir(parents=True)
            path.write_text(skill_text(f"skill-{n:04d}", broken=False), encoding="utf-8")
        target = skills_dir / "skill-0000" / "SKILL.md"
        return target, [skill_text("skill-0000", broken=False), skill_text("skill-0000", broken=True)]
    skills_dir.mkdir(parents=True)
    paths, _ = realistic_skills(skills_dir, skills)
    for path in paths:
        text = path.read_text(encoding="utf-8")
        frontmatter = text.split("\n---\n", 1)[0]
        block_description = "description: >" in frontmatter or "description: |" in frontmatter
        if block_description and "metadata:" in frontmatter and "allowed-tools:" in frontmatter:
            name = path.parent.name
            return path, [text, text.replace(f"name: {name}\n", f"name: {name.upper()}\n", 1)]
    raise RuntimeError("the realistic corpus has no skill with a block description, allowed-tools and metadata")


async def bench_edit(skills: int, edits: int, shapes: str = "real", gap_s: float = 0.0) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root, home = Path(tmp, "ws"), Path(tmp, "home")
        home.mkdir()
        target, texts = edit_workspace(root, skills, shapes)
        began = time.perf_counter()
        client, _, _ = await start_client(root, home)
        state = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="pi.debug.state", arguments=[{"idle": True}])
        )
        scan_ms = round((time.perf_counter() - began) * 1000, 1)
        rss_mb = server_rss_mb(client)
        if state["checker"] == "none":
            await stop_client(client)
            return {"edit_to_diagnostics": "skipped: no rules installed (checker 'none')"}
        uri = from_fs_path(str(target)) or ""
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=target.read_text())
            )
        )
        queue: asyncio.Queue[types.PublishDiagnosticsParams] = client.published  # type: ignore[attr-defined]
        timings: list[float] = []
        on_cpu: list[float] = []  # the server's own CPU time per edit: what the latency is on an idle machine
        for version in range(2, edits + 2):
            await asyncio.sleep(gap_s)
            while not queue.empty():
                queue.get_nowait()
            cpu_before = server_schedstat(client)
            began = time.perf_counter()
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    content_changes=[types.TextDocumentContentChangeWholeDocument(texts[version % 2 == 0])],
                )
            )
            while True:
                params = await asyncio.wait_for(queue.get(), 30)
                if params.uri == uri and params.version == version:
                    break
            timings.append((time.perf_counter() - began) * 1000)
            cpu_after = server_schedstat(client)
            if cpu_before is not None and cpu_after is not None:
                on_cpu.append(cpu_after[0] - cpu_before[0])
        debounce = state["settings"]["debounceMs"]
        burst = await _burst(client, uri, target, texts, edits + 2)
        await stop_client(client)
    return {
        "edit_to_diagnostics": {**summary(timings), "skills": skills, "shapes": shapes, "debounce_ms": debounce},
        "server_on_cpu_per_edit": summary(on_cpu) if on_cpu else None,
        "burst_of_500_edits": burst,
        "start_to_workspace_checked_ms": scan_ms,
        "server_rss_after_scan_mb": rss_mb,
    }


SECTIONS_CHANGED = "pi/promptSectionsChanged"


async def _burst(
    client: LanguageClient, uri: str, target: Path, texts: list[str], first_version: int
) -> dict[str, Any]:
    """500 didChanges sent without waiting: how many checks ran, and the time to the last one's diagnostics."""

    async def state() -> dict[str, Any]:
        result: Any = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="pi.debug.state", arguments=[{"idle": True}])
        )
        return result

    async def state_now() -> dict[str, Any]:
        result: Any = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="pi.debug.state", arguments=[{}])
        )
        return result

    queue: asyncio.Queue[types.PublishDiagnosticsParams] = client.published  # type: ignore[attr-defined]
    before = (await state())["stats"]["validations"][str(target)]
    while not queue.empty():
        queue.get_nowait()
    last = first_version + 499
    began = time.perf_counter()
    for version in range(first_version, last + 1):
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(texts[version % 2 == 0])],
            )
        )
    # The last version's diagnostics arrive as a publish of that version, unless they equal what the
    # client already shows (the server does not publish the same findings twice): then the server's
    # own record of the last version checked says when it was done.
    deadline = began + 30
    while time.perf_counter() < deadline:
        try:
            params = await asyncio.wait_for(queue.get(), 0.02)
        except TimeoutError:
            if (await state_now())["stats"]["lastVersion"].get(str(target)) == last:
                break
            continue
        if params.uri == uri and params.version == last:
            break
    else:
        raise TimeoutError(f"version {last} of {target} was not checked within 30 s")
    elapsed_ms = round((time.perf_counter() - began) * 1000, 1)
    after = await state()
    return {
        "checks": after["stats"]["validations"][str(target)] - before,
        "last_version_checked": after["stats"]["lastVersion"][str(target)] == last,
        "send_to_last_diagnostics_ms": elapsed_ms,
    }


async def _timed_saves(
    client: LanguageClient, changes: asyncio.Queue[Any], path: Path, texts: list[str], first_version: int
) -> list[float]:
    """Edit + write + didSave of ``path`` once per text; the time until its ``pi/promptSectionsChanged``."""
    uri = from_fs_path(str(path)) or ""
    timings: list[float] = []
    for offset, text in enumerate(texts):
        while not changes.empty():
            changes.get_nowait()
        began = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=first_version + offset),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text)],
            )
        )
        path.write_text(text, encoding="utf-8")
        client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri=uri)))
        while True:
            params = await asyncio.wait_for(changes.get(), 60)
            triggers = params["triggerPaths"] if isinstance(params, dict) else params.triggerPaths  # namedtuple
            if str(path) in triggers:
                break
        timings.append((time.perf_counter() - began) * 1000)
    return timings


async def bench_save(skills: int, saves: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root, home = Path(tmp, "ws"), Path(tmp, "home")
        home.mkdir()
        for n in range(skills):
            path = root / ".pi" / "skills" / f"skill-{n:04d}" / "SKILL.md"
            path.parent.mkdir(parents=True)
            path.write_text(skill_text(f"skill-{n:04d}", broken=False), encoding="utf-8")
        agents = root / "AGENTS.md"
        agents.write_text("# Rules\n", encoding="utf-8")
        client, _, _ = await start_client(root, home, {"piContext": {"trust": "trusted"}})
        changes: asyncio.Queue[Any] = asyncio.Queue()

        @client.feature(SECTIONS_CHANGED)
        def on_change(params: Any) -> None:
            changes.put_nowait(params)

        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="pi.debug.promptState", arguments=[{"idle": True}])
        )
        for path in (agents, root / ".pi" / "skills" / "skill-0000" / "SKILL.md"):
            client.text_document_did_open(
                types.DidOpenTextDocumentParams(
                    types.TextDocumentItem(
                        uri=from_fs_path(str(path)) or "", language_id="markdown", version=1, text=path.read_text()
                    )
                )
            )
        agents_texts = [f"# Rules\nSave number {n}.\n" for n in range(saves)]
        agents_ms = await _timed_saves(client, changes, agents, agents_texts, 2)
        skill = root / ".pi" / "skills" / "skill-0000" / "SKILL.md"
        skill_texts = [skill_text("skill-0000", broken=False) + f"Body {n}.\n" for n in range(max(3, saves // 4))]
        skill_texts = [text.replace("things.", f"things, take {n}.") for n, text in enumerate(skill_texts)]
        skill_ms = await _timed_saves(client, changes, skill, skill_texts, 2)
        state = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="pi.debug.promptState", arguments=[{"idle": True}])
        )
        rss_mb = server_rss_mb(client)
        await stop_client(client)
    cache = next(iter(state.values())) if isinstance(state, dict) else None
    return {
        "save_agents_md_to_sections_changed": {**summary(agents_ms), "skills": skills},
        "save_skill_md_to_sections_changed": {**summary(skill_ms), "skills": skills},
        "prompt_builds": cache["builds"] if isinstance(cache, dict) else None,
        "server_rss_after_saves_mb": rss_mb,
    }


def multi_root_workspace(base: Path, folders: int, per_folder: int) -> tuple[list[Path], set[str]]:
    """F folders with ``per_folder`` skills (all missing their description) and an AGENTS.md each."""
    roots: list[Path] = []
    expected: set[str] = set()
    for f in range(folders):
        root = base / f"folder-{f:02d}"
        for n in range(per_folder):
            name = f"f{f:02d}-skill-{n}"
            path = root / ".pi" / "skills" / name / "SKILL.md"
            path.parent.mkdir(parents=True)
            path.write_text(skill_text(name, broken=True), encoding="utf-8")
            expected.add(from_fs_path(str(path)) or "")
        (root / "AGENTS.md").write_text(f"# Folder {f}\n\nRun the tests before a commit.\n", encoding="utf-8")
        roots.append(root)
    return roots, expected


def _open(client: LanguageClient, path: Path, text: str) -> types.TextDocumentIdentifier:
    """didOpen of ``path`` with ``text`` (the editor's buffer; the file on disk is left as it is)."""
    uri = from_fs_path(str(path)) or ""
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=text))
    )
    return types.TextDocumentIdentifier(uri=uri)


async def bench_folders(folders: int, per_folder: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp, "home")
        home.mkdir()
        roots, expected = multi_root_workspace(Path(tmp, "ws"), folders, per_folder)
        client = LanguageClient("bench", "0")
        published: set[str] = set()
        all_published = asyncio.Event()
        began = time.perf_counter()
        done_ms: list[float] = []

        @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_publish(params: types.PublishDiagnosticsParams) -> None:
            if params.diagnostics and params.uri in expected:
                published.add(params.uri)
                if len(published) == len(expected) and not all_published.is_set():
                    done_ms.append((time.perf_counter() - began) * 1000)
                    all_published.set()

        await client.start_io(*SERVER, env=env_for(home))
        uris = [from_fs_path(str(root)) or "" for root in roots]
        await client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(window=types.WindowClientCapabilities(work_done_progress=True)),
                root_uri=uris[0],
                workspace_folders=[
                    types.WorkspaceFolder(uri=uri, name=Path(root).name) for uri, root in zip(uris, roots, strict=True)
                ],
            )
        )
        initialize_ms = (time.perf_counter() - began) * 1000
        client.initialized(types.InitializedParams())
        skills = roots[-1] / ".pi" / "skills"
        name = f"f{folders - 1:02d}-skill-0"
        hovered = _open(client, skills / name / "SKILL.md", f"---\nname: {name}\ndescription: Does things.\n---\n")
        expected.discard(hovered.uri)  # its buffer is fixed (it has a description): not counted
        typing = _open(client, skills / "typing" / "SKILL.md", "---\nname: typing\nde\n---\n")  # a key being typed
        hovers: list[float] = []
        completions: list[float] = []
        answered_before_done = 0
        while True:  # at least one round, even if everything was published already
            sent = time.perf_counter()
            hover = await client.text_document_hover_async(types.HoverParams(hovered, types.Position(2, 3)))
            hovers.append((time.perf_counter() - sent) * 1000)
            sent = time.perf_counter()
            completion = await client.text_document_completion_async(
                types.CompletionParams(typing, types.Position(2, 2))
            )
            completions.append((time.perf_counter() - sent) * 1000)
            if not all_published.is_set():
                answered_before_done += 2
            assert hover is not None, "no hover on the description key"
            items = completion.items if isinstance(completion, types.CompletionList) else completion
            assert items, "no completion for the key being typed"
            if (time.perf_counter() - began) > 600:
                raise SystemExit(f"only {len(published)} of {len(expected)} skills published in 600 s")
            if all_published.is_set():
                break
        state = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="pi.debug.state", arguments=[{"idle": True}])
        )
        idle_ms = (time.perf_counter() - began) * 1000
        rss_mb = server_rss_mb(client)
        await stop_client(client)
    return {
        "folders": folders,
        "skills": len(expected),
        "checker": state.get("checker") if isinstance(state, dict) else None,
        "start_to_initialize_ms": round(initialize_ms, 1),
        "start_to_all_diagnostics_ms": round(done_ms[0], 1),
        "start_to_idle_ms": round(idle_ms, 1),
        "requests_answered_while_indexing": answered_before_done,
        "first_hover_ms": round(hovers[0], 1),  # sent right after initialized: waits for the server to be ready
        "hover_while_indexing": summary(hovers),
        "completion_while_indexing": summary(completions),
        "server_rss_after_idle_mb": rss_mb,
    }


def cold_workspace(root: Path, skills: int, agents_mb: float) -> Path:
    """``skills`` skill folders under ``.pi/skills`` and an AGENTS.md of ``agents_mb`` MB (issue 18's workspace)."""
    for n in range(skills):
        path = root / ".pi" / "skills" / f"skill-{n:05d}" / "SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_text(skill_text(f"skill-{n:05d}", broken=n % 50 == 0), encoding="utf-8")
    line = "- Run `npm test` before every commit; keep the changelog in sync with the release notes.\n"
    paragraph = "## Conventions\n\n" + line * 40 + "\n"
    (root / "AGENTS.md").write_text(paragraph * max(1, int(agents_mb * 1e6 / len(paragraph))), encoding="utf-8")
    return root / ".pi" / "skills" / "skill-00001" / "SKILL.md"


async def bench_cold(skills: int, agents_mb: float) -> dict[str, Any]:
    """Issue 18: a cold start in a huge workspace; spawn -> first hover, -> pi/systemPrompt answered."""
    with tempfile.TemporaryDirectory() as tmp:
        root, home = Path(tmp, "ws"), Path(tmp, "home")
        home.mkdir()
        hovered_path = cold_workspace(root, skills, agents_mb)
        client = LanguageClient("bench", "0")
        began = time.perf_counter()
        await client.start_io(*SERVER, env=env_for(home))
        uri = from_fs_path(str(root)) or ""
        await client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(window=types.WindowClientCapabilities(work_done_progress=True)),
                root_uri=uri,
                workspace_folders=[types.WorkspaceFolder(uri=uri, name="cold")],
                initialization_options={"piContext": {"trust": "trusted"}},
            )
        )
        initialize_ms = (time.perf_counter() - began) * 1000
        client.initialized(types.InitializedParams())
        hovered = _open(client, hovered_path, hovered_path.read_text(encoding="utf-8"))

        cpu: dict[str, Any] = {}

        async def hover() -> tuple[float, float, float]:
            # A completion first: it waits only for the server's settings (ready), not for the workspace.
            await client.text_document_completion_async(types.CompletionParams(hovered, types.Position(2, 3)))
            ready = time.perf_counter()
            result = await client.text_document_hover_async(types.HoverParams(hovered, types.Position(2, 3)))
            assert result is not None, "no hover on the description key"
            cpu["hover"] = server_schedstat(client)
            answered = time.perf_counter()
            return (ready - began) * 1000, (answered - began) * 1000, (answered - ready) * 1000

        async def system_prompt() -> tuple[float, int]:
            result = await client.protocol.send_request_async("pi/systemPrompt", {})
            cpu["prompt"] = server_schedstat(client)
            rendered = result["rendered"] if isinstance(result, dict) else result.rendered
            return (time.perf_counter() - began) * 1000, len(rendered)

        ((ready_ms, hover_ms, hover_own_ms), (prompt_ms, prompt_chars)) = await asyncio.gather(hover(), system_prompt())
        second_hover_began = time.perf_counter()
        await client.text_document_hover_async(types.HoverParams(hovered, types.Position(2, 3)))
        second_hover_ms = (time.perf_counter() - second_hover_began) * 1000
        state = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="pi.debug.state", arguments=[{"idle": True}])
        )
        idle_ms = (time.perf_counter() - began) * 1000
        peak_mb = server_peak_mb(client)
        await stop_client(client)
    return {
        "skills": skills,
        "agents_md_mb": agents_mb,
        "checker": state.get("checker") if isinstance(state, dict) else None,
        "start_to_initialize_ms": round(initialize_ms, 1),
        "start_to_ready_ms": round(ready_ms, 1),  # a completion answered: the settings are loaded
        "start_to_first_hover_ms": round(hover_ms, 1),
        "first_hover_sent_when_ready_ms": round(hover_own_ms, 1),  # the workspace still cold
        "start_to_system_prompt_ms": round(prompt_ms, 1),
        # the server's time on a CPU and waiting for one, summed over its threads, at those two answers
        "server_cpu_and_wait_at_hover_ms": [round(value) for value in cpu["hover"] or ()],
        "server_cpu_and_wait_at_system_prompt_ms": [round(value) for value in cpu["prompt"] or ()],
        "system_prompt_chars": prompt_chars,
        "hover_after_that_ms": round(second_hover_ms, 1),
        "start_to_idle_ms": round(idle_ms, 1),
        "server_peak_rss_mb": peak_mb,
    }


def server_peak_mb(client: LanguageClient) -> float | None:
    """Peak resident memory of the server process so far (``VmHWM``), in MiB."""
    process = client._server
    if process is None:
        return None
    try:
        with open(f"/proc/{process.pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def load_average() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    if args.cold:
        return {"load_before": load_average(), **await bench_cold(args.cold, args.agents_mb)}
    if args.folders:
        return {"load_before": load_average(), **await bench_folders(args.folders, args.folder_skills)}
    results = {"load_before": load_average(), **await bench_start(args.runs)}
    if args.start_only:
        return results
    results.update(await bench_edit(args.skills, args.edits, args.shapes, args.edit_gap_ms / 1000))
    results.update(await bench_save(args.skills, args.saves))
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10, help="server starts to time (default 10)")
    parser.add_argument("--skills", type=int, default=1000, help="skills in the edit workspace (default 1000)")
    parser.add_argument("--edits", type=int, default=20, help="edits to time (default 20)")
    parser.add_argument(
        "--edit-gap-ms",
        type=float,
        default=100.0,
        help="pause between two timed edits (default 100: a fast typist; 0: back to back, which coalesces)",
    )
    parser.add_argument(
        "--shapes",
        choices=("real", "plain"),
        default="real",
        help="the edit workspace's skills: real-shaped frontmatter (bench/corpora.py, default) or two-line",
    )
    parser.add_argument("--saves", type=int, default=20, help="AGENTS.md saves to time (default 20)")
    parser.add_argument("--folders", type=int, default=0, help="only the multi-root workspace of F folders")
    parser.add_argument("--folder-skills", type=int, default=5, help="skills per folder with --folders (default 5)")
    parser.add_argument("--start-only", action="store_true", help="only the start and import times")
    parser.add_argument("--cold", type=int, default=0, help="only a cold start among N skill folders (issue 18)")
    parser.add_argument("--agents-mb", type=float, default=30, help="AGENTS.md size with --cold (default 30 MB)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    results = asyncio.run(main_async(args))
    results["load_after"] = load_average()
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for name, value in results.items():
            print(f"{name}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
