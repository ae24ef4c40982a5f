"""Which text is the truth for a file: the editor's buffer while it is open, the disk otherwise.

The domain reads files through ``DocumentStore.read`` so an unsaved edit in the editor is what
gets checked and assembled into the prompt, exactly as the user sees it, while a file nobody has
open is read from disk as Pi would read it. Keys are absolute, normalised paths (not URIs), the
same keys the watcher reports, so an open buffer can silence the watcher for its file.

The store is touched only from the server's event-loop thread; it holds no locks.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

from lsp_server.base.fsread import read_text


def path_key(path: str) -> str:
    """The store's key for a path: absolute and normalised, symlinks left alone (Pi does the same)."""
    return os.path.normpath(os.path.abspath(path))


@dataclass(frozen=True)
class OpenBuffer:
    path: str
    uri: str
    text: str
    version: int
    language_id: str = ""


@dataclass(frozen=True)
class SourceText:
    """A file's text as the server sees it right now.

    ``version`` is the editor's version for an open buffer and ``None`` for disk; ``text`` is
    ``None`` when the file is closed and cannot be read (``error`` says why, Node-style).
    """

    path: str
    text: str | None
    version: int | None
    from_buffer: bool
    error: str | None = None


class DocumentStore:
    """Open editor buffers by path, falling back to disk for everything else."""

    def __init__(self) -> None:
        self._buffers: dict[str, OpenBuffer] = {}

    def open(self, path: str, uri: str, text: str, version: int, language_id: str = "") -> OpenBuffer:
        buffer = OpenBuffer(path_key(path), uri, text, version, language_id)
        self._buffers[buffer.path] = buffer
        return buffer

    def update(self, path: str, text: str, version: int) -> OpenBuffer | None:
        """Replace an open buffer's text; ``None`` if the file is not open (a late didChange)."""
        key = path_key(path)
        current = self._buffers.get(key)
        if current is None:
            return None
        buffer = OpenBuffer(key, current.uri, text, version, current.language_id)
        self._buffers[key] = buffer
        return buffer

    def close(self, path: str) -> OpenBuffer | None:
        return self._buffers.pop(path_key(path), None)

    def get(self, path: str) -> OpenBuffer | None:
        return self._buffers.get(path_key(path))

    def is_open(self, path: str) -> bool:
        return path_key(path) in self._buffers

    def open_paths(self) -> list[str]:
        return sorted(self._buffers)

    def __iter__(self) -> Iterator[OpenBuffer]:
        return iter(list(self._buffers.values()))

    def __len__(self) -> int:
        return len(self._buffers)

    def read(self, path: str) -> SourceText:
        """The buffer's text when open, else the file on disk (decoded like Node; never raises)."""
        key = path_key(path)
        buffer = self._buffers.get(key)
        if buffer is not None:
            return SourceText(key, buffer.text, buffer.version, from_buffer=True)
        result = read_text(key)
        return SourceText(key, result.text, None, from_buffer=False, error=result.error)
