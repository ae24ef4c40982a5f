"""Attachments become the prompt text Pi's own `pi @file` makes (cli/file-processor.js, cli/initial-message.js)."""

from __future__ import annotations

from pathlib import Path

from lsp_server.session.attachments import (
    MAX_ATTACHMENT_BYTES,
    MAX_ATTACHMENTS,
    Attached,
    AttachmentRequest,
    Refused,
    attach,
    build_prompt,
    file_block,
)


def test_a_text_file_is_its_absolute_name_a_newline_its_text_a_newline_and_the_closing_tag() -> None:
    assert file_block("/w/a.py", "x = 1\n") == '<file name="/w/a.py">\nx = 1\n\n</file>\n'


def test_the_blocks_come_first_and_the_message_follows_with_nothing_between(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha", encoding="utf-8")
    (tmp_path / "b.txt").write_text("beta\n", encoding="utf-8")
    requests = [AttachmentRequest("a.txt"), AttachmentRequest(str(tmp_path / "b.txt"))]
    built = build_prompt("explain", requests, str(tmp_path))
    assert built.text == (
        f'<file name="{tmp_path}/a.txt">\nalpha\n</file>\n<file name="{tmp_path}/b.txt">\nbeta\n\n</file>\nexplain'
    )
    assert built.refused == ()


def test_a_bom_is_dropped_as_pi_strips_it(tmp_path: Path) -> None:
    (tmp_path / "bom.md").write_bytes("\ufeffhello".encode())
    outcome = attach(AttachmentRequest("bom.md"), str(tmp_path))
    assert isinstance(outcome, Attached) and outcome.block == f'<file name="{tmp_path}/bom.md">\nhello\n</file>\n'


def test_an_empty_file_adds_nothing_as_pi_skips_it(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_bytes(b"")
    built = build_prompt("hi", [AttachmentRequest("empty.txt")], str(tmp_path))
    assert built.text == "hi" and built.attached[0].block == "" and built.attached[0].tokens == 0


def test_a_file_holding_only_a_bom_is_an_empty_block_as_pi_checks_the_size_before_stripping(tmp_path: Path) -> None:
    (tmp_path / "bom-only.md").write_bytes("\ufeff".encode())
    outcome = attach(AttachmentRequest("bom-only.md"), str(tmp_path))
    assert isinstance(outcome, Attached) and outcome.block == f'<file name="{tmp_path}/bom-only.md">\n\n</file>\n'


def test_a_selection_carries_a_lines_attribute_and_only_those_lines(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("one\ntwo\nthree\nfour\n", encoding="utf-8")
    from_disk = attach(AttachmentRequest("m.py", 2, 3), str(tmp_path))
    assert isinstance(from_disk, Attached)
    assert from_disk.block == f'<file name="{tmp_path}/m.py" lines="2-3">\ntwo\nthree\n</file>\n'
    # the editor's text wins (an unsaved buffer)
    from_editor = attach(AttachmentRequest("m.py", 2, 2, "TWO"), str(tmp_path))
    assert isinstance(from_editor, Attached)
    assert from_editor.block == f'<file name="{tmp_path}/m.py" lines="2-2">\nTWO\n</file>\n'


def test_the_tokens_are_pis_estimate_of_the_block() -> None:
    block = file_block("/w/a", "x" * 40)
    assert Attached("/w/a", None, block).tokens == -(-len(block) // 4)


def test_a_binary_file_is_refused_naming_it(tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(b"ab\x00cd")
    outcome = attach(AttachmentRequest("blob.bin"), str(tmp_path))
    assert isinstance(outcome, Refused)
    assert outcome.reason == "blob.bin is not attached: it is a binary file (it holds NUL bytes), not text."


def test_an_image_is_refused_naming_it(tmp_path: Path) -> None:
    (tmp_path / "pic.gif").write_bytes(b"GIF89a\x01\x02")
    outcome = attach(AttachmentRequest("pic.gif"), str(tmp_path))
    assert isinstance(outcome, Refused) and "pic.gif" in outcome.reason and "GIF image" in outcome.reason


def test_a_huge_file_is_refused_naming_it_and_the_limit(tmp_path: Path) -> None:
    (tmp_path / "big.log").write_bytes(b"a" * (MAX_ATTACHMENT_BYTES + 1))
    outcome = attach(AttachmentRequest("big.log"), str(tmp_path))
    assert isinstance(outcome, Refused)
    assert outcome.reason.startswith("big.log is not attached: it has 524,289 bytes, more than the 524,288")


def test_a_missing_file_is_refused_with_the_read_error(tmp_path: Path) -> None:
    outcome = attach(AttachmentRequest("gone.txt"), str(tmp_path))
    assert isinstance(outcome, Refused) and outcome.reason.startswith("gone.txt is not attached: ENOENT")


def test_a_bad_range_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n", encoding="utf-8")
    outcome = attach(AttachmentRequest("a.txt", 3, 2), str(tmp_path))
    assert isinstance(outcome, Refused) and "3-2" in outcome.reason


def test_at_most_max_attachments_are_attached(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a", encoding="utf-8")
    built = build_prompt("m", [AttachmentRequest("a.txt")] * (MAX_ATTACHMENTS + 1), str(tmp_path))
    assert len(built.attached) == MAX_ATTACHMENTS and len(built.refused) == 1
    assert f"at most {MAX_ATTACHMENTS}" in built.refused[0].reason
