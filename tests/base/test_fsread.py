"""Reading user files never raises and never blocks."""

from __future__ import annotations

import os
from pathlib import Path

from lsp_server.base.fsread import read_text


def test_fifo_is_refused_instead_of_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "AGENTS.md"
    os.mkfifo(fifo)
    result = read_text(fifo)
    assert result.text is None
    assert result.error is not None and "not a regular file" in result.error


def test_directory_is_an_error_value(tmp_path: Path) -> None:
    result = read_text(tmp_path)
    assert result.text is None and result.error is not None and result.error.startswith("EISDIR")


def test_symlink_loop_is_an_error_value(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    result = read_text(tmp_path / "a")
    assert result.text is None and result.error is not None and result.error.startswith("ELOOP")


def test_invalid_utf8_is_replaced_and_located(tmp_path: Path) -> None:
    path = tmp_path / "x.md"
    path.write_bytes(b"ok\nab\xffcd\n")
    result = read_text(path)
    assert result.text == "ok\nab\ufffdcd\n"
    assert result.invalid_utf8 is not None
    assert (result.invalid_utf8.line, result.invalid_utf8.column, result.invalid_utf8.byte_offset) == (1, 2, 5)


def test_file_over_the_limit_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "big.md"
    path.write_bytes(b"x" * 2048)
    result = read_text(path, max_bytes=1024)
    assert result.text is None and result.error is not None and "too large" in result.error
    assert result.size == 2048
