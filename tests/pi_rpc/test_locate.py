"""Finding Pi: the user's command, the PATH, the usual folders; Node and Pi versions; one-sentence failures.

Most cases use small shell scripts standing in for ``node`` and ``pi`` (their version output is all
that is read); the last tests check the real Pi (the release under test) and its Node.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from lsp_server.pi_rpc.find_pi import (
    INSTALL_COMMAND,
    LocateCache,
    PiInstallation,
    PiUnavailable,
    candidate_folders,
    check_pi,
    locate_pi,
    parse_version,
    split_command,
)
from tests.support.pi_for_tests import PiUnderTest

SH = shutil.which("sh") or "/bin/sh"


def program(path: Path, body: str, shebang: str | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{shebang or '#!' + SH}\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def fake_node(folder: Path, version: str) -> Path:
    """A ``node`` that prints its version and, given a script, runs it with sh (enough for ``pi --version``)."""
    return program(folder / "node", f'if [ "$1" = --version ]; then echo v{version}; else shift 0; exec {SH} "$@"; fi')


def fake_pi(folder: Path, version: str = "1.6.0", shebang: str = "#!/usr/bin/env node") -> Path:
    return program(folder / "pi", f'echo "{version}"', shebang)


def env_with(*folders: Path) -> dict[str, str]:
    system = [p for p in ("/usr/bin", "/bin") if os.path.isdir(p)]
    return {"PATH": os.pathsep.join([*map(str, folders), *system]), "HOME": "/nonexistent-home"}


def test_a_command_setting_is_split_like_a_shell() -> None:
    assert split_command("node '/opt/my pi/cli.js' --offline") == ("node", "/opt/my pi/cli.js", "--offline")
    assert split_command(["/usr/bin/pi"]) == ("/usr/bin/pi",)
    assert split_command(None) == ()


def test_pi_on_the_path_with_a_new_enough_node(tmp_path: Path) -> None:
    fake_node(tmp_path / "node-bin", "22.19.0")
    fake_pi(tmp_path / "pi-bin")
    found = locate_pi(env=env_with(tmp_path / "pi-bin", tmp_path / "node-bin"), home=tmp_path / "home")
    assert found == PiInstallation((str(tmp_path / "pi-bin" / "pi"),), "1.6.0", "22.19.0", "PATH")


def test_node_and_a_script_given_as_the_setting(tmp_path: Path) -> None:
    node = fake_node(tmp_path / "n", "24.1.0")
    cli = program(tmp_path / "pkg" / "cli.js", 'echo "Pi 1.7.2"')
    found = locate_pi(f"{node} {cli}", env=env_with())
    assert isinstance(found, PiInstallation)
    assert (found.argv, found.pi_version, found.node_version, found.source) == (
        (str(node), str(cli)),
        "1.7.2",
        "24.1.0",
        "setting",
    )


def test_a_setting_that_names_nothing_says_so_with_the_install_command(tmp_path: Path) -> None:
    found = locate_pi(str(tmp_path / "nope" / "pi"), env=env_with())
    assert isinstance(found, PiUnavailable) and found.kind == "not-found"
    assert found.message == f"`{tmp_path / 'nope' / 'pi'}` was not found; install Pi with: {INSTALL_COMMAND}"


def test_no_pi_anywhere_is_one_sentence_with_the_install_command(tmp_path: Path) -> None:
    found = locate_pi(env={"PATH": str(tmp_path)}, home=tmp_path)
    if isinstance(found, PiInstallation):  # this machine has a global pi in /usr/local/bin or /usr/bin
        pytest.skip(f"a global Pi is installed at {found.argv[0]}")
    assert found.kind == "not-found" and found.install_command == INSTALL_COMMAND
    assert found.message.endswith(INSTALL_COMMAND) and found.message.count(".") <= 1


def test_an_old_node_on_the_path_is_too_old_with_its_version(tmp_path: Path) -> None:
    fake_node(tmp_path / "node-bin", "20.20.2")
    fake_pi(tmp_path / "pi-bin")
    found = locate_pi(str(tmp_path / "pi-bin" / "pi"), env=env_with(tmp_path / "node-bin"))
    assert isinstance(found, PiUnavailable) and found.kind == "node-too-old"
    assert "Node.js 22.19.0 or newer" in found.message and "Node.js 20.20.2" in found.message


def test_a_new_node_next_to_the_script_wins_over_an_old_one_on_the_path(tmp_path: Path) -> None:
    """nvm's layout: ``bin/pi`` beside ``bin/node``, while the editor's PATH has the system Node."""
    fake_node(tmp_path / "system", "20.20.2")
    nvm_bin = tmp_path / "home" / ".nvm" / "versions" / "node" / "v22.21.1" / "bin"
    node = fake_node(nvm_bin, "22.21.1")
    script = fake_pi(nvm_bin)
    found = locate_pi(env=env_with(tmp_path / "system"), home=tmp_path / "home")
    assert isinstance(found, PiInstallation)
    assert found.argv == (str(node), str(script)) and found.node_version == "22.21.1"
    assert found.source == str(nvm_bin)


def test_a_node_named_in_the_shebang_is_checked(tmp_path: Path) -> None:
    node = fake_node(tmp_path / "opt", "18.0.0")
    fake_pi(tmp_path / "bin", shebang=f"#!{node}")
    found = locate_pi(str(tmp_path / "bin" / "pi"), env=env_with())
    assert isinstance(found, PiUnavailable) and found.kind == "node-too-old" and "18.0.0" in found.message


def test_node_crashing_on_pi_says_which_node_was_too_old(tmp_path: Path) -> None:
    """A wrapper we cannot see through: Node's own last stderr line names its version."""
    body = "echo \"SyntaxError: The requested module 'node:module' does not provide...\" >&2\n"
    body += 'echo "Node.js v20.20.2" >&2\nexit 1'
    program(tmp_path / "pi", body)
    found = locate_pi(str(tmp_path / "pi"), env=env_with())
    assert isinstance(found, PiUnavailable) and found.kind == "node-too-old" and "20.20.2" in found.message


def test_an_old_pi_is_found_not_refused(tmp_path: Path) -> None:
    """No version floor: the chat asks the running Pi what it supports (pi_rpc/capabilities.py)."""
    fake_node(tmp_path / "n", "22.21.1")
    fake_pi(tmp_path / "p", version="0.85.1")
    found = locate_pi(str(tmp_path / "p" / "pi"), env=env_with(tmp_path / "n"))
    assert isinstance(found, PiInstallation) and found.pi_version == "0.85.1"


def test_a_program_that_is_not_pi_is_broken(tmp_path: Path) -> None:
    program(tmp_path / "pi", "echo hello")
    found = locate_pi(str(tmp_path / "pi"), env=env_with())
    assert isinstance(found, PiUnavailable) and found.kind == "broken" and "printed no version" in found.message


def test_a_hanging_pi_is_bounded_by_the_timeout(tmp_path: Path) -> None:
    program(tmp_path / "pi", "sleep 30")
    found = locate_pi(str(tmp_path / "pi"), env=env_with(), timeout_s=0.3)
    assert isinstance(found, PiUnavailable) and found.message.endswith("did not answer within 0.3 s")


def test_a_file_that_is_not_executable_cannot_be_run(tmp_path: Path) -> None:
    plain = tmp_path / "pi"
    plain.write_text("echo 1.6.0\n")
    found = locate_pi(str(plain), env=env_with())
    assert isinstance(found, PiUnavailable) and found.kind == "not-runnable"


def test_the_usual_folders_are_searched_when_pi_is_not_on_the_path(tmp_path: Path) -> None:
    home = tmp_path / "home"
    fake_node(tmp_path / "n", "22.19.0")
    script = fake_pi(home / ".npm-global" / "bin")
    found = locate_pi(env=env_with(tmp_path / "n"), home=home)
    assert isinstance(found, PiInstallation) and found.argv == (str(script),)
    assert found.source == str(home / ".npm-global" / "bin")


def test_the_usual_folders_come_in_order_and_nvm_newest_first(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for version in ("v20.1.0", "v22.9.0", "v22.21.1"):
        (home / ".nvm" / "versions" / "node" / version / "bin").mkdir(parents=True)
    folders = candidate_folders({"NPM_CONFIG_PREFIX": "/opt/npm"}, home)
    nvm = [f.parent.name for f in folders if ".nvm" in f.parts]
    assert nvm == ["v22.21.1", "v22.9.0", "v20.1.0"]
    assert folders[0] == home / ".npm-global" / "bin"
    assert folders.index(Path("/opt/npm/bin")) < folders.index(home / ".volta" / "bin")


def test_a_cache_answers_again_without_probing_until_the_file_changes(tmp_path: Path) -> None:
    fake_node(tmp_path / "n", "22.19.0")
    script = fake_pi(tmp_path / "p")
    env = env_with(tmp_path / "n")
    cache = LocateCache()
    first = locate_pi(str(script), env=env, cache=cache)
    script.write_text(script.read_text().replace("1.6.0", "1.6.1") + "\n")  # size changes
    second = locate_pi(str(script), env=env, cache=cache)
    assert isinstance(first, PiInstallation) and isinstance(second, PiInstallation)
    assert (first.pi_version, second.pi_version) == ("1.6.0", "1.6.1")
    assert locate_pi(str(script), env=env, cache=cache) is second


def test_a_failure_is_not_cached_a_node_installed_since_is_found_by_the_next_look(tmp_path: Path) -> None:
    fake_node(tmp_path / "n", "20.20.2")
    script = fake_pi(tmp_path / "p")
    env = env_with(tmp_path / "n")
    cache = LocateCache()
    assert isinstance(locate_pi(str(script), env=env, cache=cache), PiUnavailable)
    fake_node(tmp_path / "n", "22.19.0")  # the same PATH and the same pi: only the node beneath changed
    assert isinstance(locate_pi(str(script), env=env, cache=cache), PiInstallation)


@pytest.mark.pi
def test_the_real_pi_and_its_node(pi_under_test: PiUnderTest) -> None:
    found = check_pi(pi_under_test.argv, env={"PATH": "/usr/bin:/bin", "HOME": str(Path.home())})
    assert isinstance(found, PiInstallation)
    assert (found.argv, found.pi_version) == (pi_under_test.argv, pi_under_test.version)
    assert found.node_version is not None and (parse_version(found.node_version) or (0, 0, 0)) >= (22, 19, 0)


@pytest.mark.pi
def test_the_real_npm_layout_runs_pi_with_the_node_beside_it(pi_under_test: PiUnderTest, tmp_path: Path) -> None:
    """npm's ``node_modules/.bin`` holds ``pi`` (a symlink to cli.js) and ``node``; the PATH's node is old."""
    bin_dir = pi_under_test.package.parents[1] / ".bin"
    if not (bin_dir / "pi").exists() or not (bin_dir / "node").exists():
        pytest.skip(f"{bin_dir} has no pi and node links")
    fake_node(tmp_path / "old", "20.20.2")
    found = locate_pi(env={"PATH": f"{tmp_path / 'old'}{os.pathsep}{bin_dir}", "HOME": str(tmp_path)})
    assert isinstance(found, PiInstallation)
    assert found.argv == (str(bin_dir / "node"), str(pi_under_test.cli.resolve()))
    assert found.pi_version == pi_under_test.version
