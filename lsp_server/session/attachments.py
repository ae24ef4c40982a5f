"""Files and selections attached to a chat prompt, as Pi's own `pi @file` puts them into the message.

Pi's interactive and print modes turn each ``@file`` argument into a block of the first message
(``processFileArguments`` in ``cli/file-processor.js``, joined by ``buildInitialMessage``): the file's
absolute path in a ``<file name="...">`` tag, a newline, its text without a BOM, a newline, ``</file>`` and
a newline; an empty file adds nothing; the blocks come first and the typed message follows them with
nothing in between. RPC mode takes no file arguments, so the chat builds the same text itself and sends it
as the prompt (:func:`prompt_text`). A selection is pi-context's extension of that format: the same block
with a ``lines="START-END"`` attribute (1-based, inclusive) and only those lines inside.

Bounded: a file over :data:`MAX_ATTACHMENT_BYTES`, one that holds a NUL byte or starts like an image, and
more than :data:`MAX_ATTACHMENTS` attachments are refused, each with one sentence naming the file (errors are
values: :class:`Refused`). Nothing here knows the editor: paths and texts in, text out.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lsp_server.base.fsread import ReadResult, read_text
from lsp_server.tokens.pi import pi_text_tokens

#: A file larger than this is not attached (a whole log or a bundle is not context a user means to send).
MAX_ATTACHMENT_BYTES = 512 * 1024
#: At most this many attachments per prompt.
MAX_ATTACHMENTS = 32

_BOM = "\ufeff"
# The magic numbers of the image types Pi's file processor sends as images (png, jpeg, gif, webp).
_IMAGE_MAGIC: tuple[tuple[str, str], ...] = (
    ("\ufffdPNG", "PNG"),
    ("\ufffd\ufffd\ufffd", "JPEG"),
    ("GIF8", "GIF"),
)


@dataclass(frozen=True)
class AttachmentRequest:
    """What the editor attaches: a file, or lines of it (a selection, with the text as the editor has it)."""

    path: str
    start_line: int | None = None  # 1-based, inclusive: a selection
    end_line: int | None = None
    text: str | None = None  # a selection's text; read from the file when absent

    @property
    def lines(self) -> tuple[int, int] | None:
        if self.start_line is None:
            return None
        return (self.start_line, self.end_line if self.end_line is not None else self.start_line)


@dataclass(frozen=True)
class Attached:
    """One attachment as Pi receives it: its ``<file>`` block ('' for an empty file, which Pi skips)."""

    path: str
    lines: tuple[int, int] | None
    block: str

    @property
    def tokens(self) -> int:
        """Pi's estimate (chars / 4) of what the block adds to the message."""
        return pi_text_tokens(self.block)


@dataclass(frozen=True)
class Refused:
    """An attachment that is not sent, and why, in one sentence that names the file."""

    path: str
    lines: tuple[int, int] | None
    reason: str


@dataclass(frozen=True)
class BuiltPrompt:
    """The prompt text Pi gets, and what happened to each attachment (in the order given)."""

    text: str
    attached: tuple[Attached, ...]
    refused: tuple[Refused, ...]


def file_block(path: str, content: str, lines: tuple[int, int] | None = None) -> str:
    """The block Pi's ``@file`` makes of a text file (``lines``: pi-context's selection attribute)."""
    if not content and lines is None:
        return ""  # Pi skips a file of 0 bytes (a file holding only a BOM is not empty to it)
    if content.startswith(_BOM):
        content = content[1:]
    attribute = f' lines="{lines[0]}-{lines[1]}"' if lines is not None else ""
    return f'<file name="{path}"{attribute}>\n{content}\n</file>\n'


def prompt_text(message: str, attached: Sequence[Attached]) -> str:
    """The blocks, then the message, joined with nothing between them (Pi's ``parts.join("")``)."""
    return "".join(a.block for a in attached) + message


def _refusal(path: str, lines: tuple[int, int] | None, read: ReadResult | None, text: str | None) -> str | None:
    name = os.path.basename(path) or path
    if read is not None and read.text is None:
        if read.size > MAX_ATTACHMENT_BYTES:
            return (
                f"{name} is not attached: it has {read.size:,} bytes, "
                f"more than the {MAX_ATTACHMENT_BYTES:,} a chat attachment may have."
            )
        return f"{name} is not attached: {read.error}."
    if text is None:
        return None
    if "\x00" in text:
        return f"{name} is not attached: it is a binary file (it holds NUL bytes), not text."
    for magic, kind in _IMAGE_MAGIC:
        if text.startswith(magic):
            return f"{name} is not attached: it is a {kind} image, and the chat attaches text only."
    if text.startswith("RIFF") and text[8:12] == "WEBP":
        return f"{name} is not attached: it is a WEBP image, and the chat attaches text only."
    if len(text.encode("utf-8", errors="surrogatepass")) > MAX_ATTACHMENT_BYTES:
        what = "the selection" if lines is not None else "it"
        return f"{name} is not attached: {what} has more than the {MAX_ATTACHMENT_BYTES:,} bytes allowed."
    return None


def _slice_lines(content: str, lines: tuple[int, int]) -> str:
    rows = content.split("\n")
    start, end = lines
    return "\n".join(rows[start - 1 : end])


def attach(
    request: AttachmentRequest, cwd: str, read: Callable[[str, int], ReadResult] = read_text
) -> Attached | Refused:
    """One attachment's block, or why it is refused. A relative path is Pi's: relative to the chat's folder."""
    path = os.path.normpath(os.path.join(cwd, request.path))
    lines = request.lines
    if lines is not None and (lines[0] < 1 or lines[1] < lines[0]):
        name = os.path.basename(path)
        return Refused(path, lines, f"{name} is not attached: lines {lines[0]}-{lines[1]} are not a range.")
    if request.text is not None and lines is not None:
        content = request.text
        problem = _refusal(path, lines, None, content)
    else:
        found = read(path, MAX_ATTACHMENT_BYTES)
        problem = _refusal(path, lines, found, found.text)
        content = found.text or ""
        if problem is None and lines is not None:
            content = _slice_lines(content, lines)
    if problem is not None:
        return Refused(path, lines, problem)
    return Attached(path, lines, file_block(path, content, lines))


def build_prompt(
    message: str, requests: Sequence[AttachmentRequest], cwd: str, read: Callable[[str, int], ReadResult] = read_text
) -> BuiltPrompt:
    """The prompt with its attachments, as Pi's ``@file`` arguments would make it."""
    attached: list[Attached] = []
    refused: list[Refused] = []
    for index, request in enumerate(requests):
        if index >= MAX_ATTACHMENTS:
            path = os.path.normpath(os.path.join(cwd, request.path))
            reason = f"{os.path.basename(path)} is not attached: a prompt takes at most {MAX_ATTACHMENTS} attachments."
            refused.append(Refused(path, request.lines, reason))
            continue
        outcome = attach(request, cwd, read)
        if isinstance(outcome, Attached):
            attached.append(outcome)
        else:
            refused.append(outcome)
    return BuiltPrompt(prompt_text(message, attached), tuple(attached), tuple(refused))
