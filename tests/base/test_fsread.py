"""Reading user files never raises and never blocks; the C reader answers as the Python one does."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from lsp_server.base.fsread import ReadResult, _native_read, read_text, read_text_python

Reader = Callable[[str, int], ReadResult]
# read_text runs the C reader (base/_native.c) where it is built; read_text_python is the fallback.
READERS: list[Reader] = [read_text_python]
if _native_read() is not None:
    READERS.append(read_text)
both = pytest.mark.parametrize("read", READERS, ids=lambda reader: reader.__name__)


def _read(read: Reader, path: Path, max_bytes: int = 64 << 20) -> ReadResult:
    return read(str(path), max_bytes)


@both
def test_fifo_is_refused_instead_of_blocking(tmp_path: Path, read: Reader) -> None:
    fifo = tmp_path / "AGENTS.md"
    os.mkfifo(fifo)
    result = _read(read, fifo)
    assert result.text is None
    assert result.error is not None and "not a regular file" in result.error


@both
def test_directory_is_an_error_value(tmp_path: Path, read: Reader) -> None:
    result = _read(read, tmp_path)
    assert result.text is None and result.error is not None and result.error.startswith("EISDIR")


@both
def test_symlink_loop_is_an_error_value(tmp_path: Path, read: Reader) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    result = _read(read, tmp_path / "a")
    assert result.text is None and result.error is not None and result.error.startswith("ELOOP")


@both
def test_invalid_utf8_is_replaced_and_located(tmp_path: Path, read: Reader) -> None:
    path = tmp_path / "x.md"
    path.write_bytes(b"ok\nab\xffcd\n")
    result = _read(read, path)
    assert result.text == "ok\nab\ufffdcd\n"
    assert result.invalid_utf8 is not None
    assert (result.invalid_utf8.line, result.invalid_utf8.column, result.invalid_utf8.byte_offset) == (1, 2, 5)


@both
def test_file_over_the_limit_is_not_read(tmp_path: Path, read: Reader) -> None:
    path = tmp_path / "big.md"
    path.write_bytes(b"x" * 2048)
    result = _read(read, path, max_bytes=1024)
    assert result.text is None and result.error is not None and "too large" in result.error
    assert result.size == 2048


def test_the_c_reader_answers_every_case_as_the_python_reader(tmp_path: Path) -> None:
    if len(READERS) < 2:
        pytest.skip("built without the C reader (base/_native.c)")
    big = tmp_path / "big.md"
    big.write_bytes(b"y" * 200_000)  # more than one 64 KiB read
    (tmp_path / "empty.md").write_bytes(b"")
    (tmp_path / "bom.md").write_bytes(b"\xef\xbb\xbfname: x\r\n")
    (tmp_path / "bad.md").write_bytes(b"\xc3(\xa0\xa1 \xf0\x28\x8c\xbc")
    (tmp_path / "limit.md").write_bytes(b"z" * 100)
    (tmp_path / "dir").mkdir()
    (tmp_path / "to-dir").symlink_to(tmp_path / "dir")
    (tmp_path / "to-file").symlink_to(big)
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "through-file").symlink_to(big / "x")
    os.mkfifo(tmp_path / "fifo")
    odd = os.fsdecode(b"\xff\xfeodd.md")  # a name that is no UTF-8: surrogate escapes both ways
    Path(tmp_path, odd).write_text("odd\n", encoding="utf-8")
    cases = [
        *(tmp_path / name for name in ("big.md", "empty.md", "bom.md", "bad.md", "limit.md", "dir", "to-dir")),
        tmp_path / "to-file",
        *(tmp_path / name for name in ("dangling", "through-file", "fifo", "missing.md", odd)),
        Path("/dev/null"),
        Path(""),
    ]
    for path in cases:
        for limit in (64 << 20, 100, 99, 0):
            assert read_text(str(path), limit) == read_text_python(str(path), limit), (path, limit)
    for reader in READERS:
        with pytest.raises(ValueError):
            reader(str(tmp_path / "nul\0.md"), 100)
