"""Where chats' keepers live when the shared temp folder is taken, and a path too long for a socket (issue 18 item 6).

The default keepers' folder without ``XDG_RUNTIME_DIR`` is ``<temp>/pi-context-<uid>``: a name anyone
can create first. Held by another user (or left reachable by others, or a symlink), it is refused as
before, but the keepers now live in a fresh private folder (``mkdtemp``) instead of nowhere, noted in
pi-context's state folder so that the user's next server finds the same one, and
:meth:`Keeping.fallback` says so.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from lsp_server.chat.keeping import Keeping
from lsp_server.pi_rpc.keeper_files import (
    FALLBACK_NOTE,
    RUNTIME_DIR_ENV,
    KeeperDirError,
    default_runtime_dir,
    ensure_private_dir,
)

ENV = {"PATH": os.environ.get("PATH", "")}  # no XDG_RUNTIME_DIR, no PI_CONTEXT_RUNTIME_DIR


@pytest.fixture
def temp(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A temp folder of the test's own, as ``tempfile.gettempdir()`` (short: a socket path has ~100 bytes).

    ``tmp_path`` is made first: pytest makes it under the real temp folder."""
    base = Path(tempfile.mkdtemp(prefix="pck", dir="/tmp"))
    monkeypatch.setattr(tempfile, "tempdir", str(base))
    yield base
    shutil.rmtree(base, ignore_errors=True)


def squat(temp: Path, how: str) -> Path:
    taken = temp / f"pi-context-{os.getuid()}"
    if how == "symlink":
        (temp / "elsewhere").mkdir(mode=0o700)
        taken.symlink_to(temp / "elsewhere")
    else:
        taken.mkdir(mode=0o700)
        if how == "another user":
            os.chown(taken, 65534, 65534)
        else:
            os.chmod(taken, 0o777)
    return taken


@pytest.mark.parametrize("how", ["another user", "open to all", "symlink"])
def test_a_squatted_temp_folder_falls_back_to_a_fresh_private_folder_and_says_so(
    temp: Path, tmp_path: Path, how: str
) -> None:
    if how == "another user" and os.geteuid() != 0:
        pytest.skip("making a folder another user's needs root")
    taken = squat(temp, how)
    state = tmp_path / "state"
    keeping = Keeping(str(state))
    folder = keeping.folder(ENV)
    assert folder is not None and folder != default_runtime_dir(ENV)  # a keeper, not none
    assert (
        folder.name == "keepers"
        and folder.parent.parent == temp
        and folder.parent.name.startswith(f"pi-context-{os.getuid()}-")
    )
    for level in (folder.parent, folder):
        info = os.lstat(level)
        assert stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) == 0o700
    said = keeping.fallback(ENV)
    assert said is not None and str(taken) in said and str(folder.parent) in said and keeping.problem(ENV) is None
    assert (state / FALLBACK_NOTE).read_text() == str(folder)
    # The next server of this user finds the same folder (its keepers outlive a window reload).
    assert Keeping(str(state)).folder(ENV) == folder


def test_a_noted_fallback_that_is_no_longer_private_is_not_used(temp: Path, tmp_path: Path) -> None:
    squat(temp, "open to all")
    state = tmp_path / "state"
    first = Keeping(str(state)).folder(ENV)
    assert first is not None
    os.chmod(first, 0o755)
    second = Keeping(str(state)).folder(ENV)
    assert second is not None and second != first and (state / FALLBACK_NOTE).read_text() == str(second)


def test_the_default_folder_is_used_when_it_is_free_and_no_fallback_is_said(temp: Path, tmp_path: Path) -> None:
    keeping = Keeping(str(tmp_path / "state"))
    assert keeping.folder(ENV) == default_runtime_dir(ENV) == temp / f"pi-context-{os.getuid()}" / "keepers"
    assert keeping.fallback(ENV) is None and not (tmp_path / "state").exists()


def test_an_explicit_folder_that_is_not_private_is_refused_without_a_fallback(temp: Path, tmp_path: Path) -> None:
    chosen = temp / "mine"
    chosen.mkdir(mode=0o777)
    os.chmod(chosen, 0o777)
    env = {**ENV, RUNTIME_DIR_ENV: str(chosen)}
    keeping = Keeping(str(tmp_path / "state"))
    assert keeping.folder(env) is None and keeping.fallback(env) is None
    assert "can be reached by other users" in (keeping.problem(env) or "")


def test_a_path_too_long_for_a_socket_is_refused_before_anything_is_created(temp: Path) -> None:
    folder = temp / ("x" * 120) / "keepers"
    with pytest.raises(KeeperDirError, match="too long a path for a Unix socket"):
        ensure_private_dir(folder)
    assert not folder.parent.exists()
