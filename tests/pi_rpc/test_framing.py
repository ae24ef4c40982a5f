"""Pi's JSONL framing: records split on LF only, CRLF accepted, bounded lines, bad lines reported."""

from __future__ import annotations

import json

from lsp_server.pi_rpc.framing import FramingProblem, LineSplitter, encode_record


def test_u2028_and_u2029_inside_a_string_do_not_split_a_record() -> None:
    text = "one\u2028two\u2029three"
    raw = json.dumps({"type": "message_update", "delta": text}, ensure_ascii=False).encode() + b"\n"
    assert "\u2028".encode() in raw  # really on the wire, not escaped
    assert LineSplitter().feed(raw) == [{"type": "message_update", "delta": text}]


def test_crlf_line_endings_are_accepted() -> None:
    frames = LineSplitter().feed(b'{"type":"a"}\r\n{"type":"b"}\r\n')
    assert frames == [{"type": "a"}, {"type": "b"}]


def test_a_record_split_across_reads_at_every_byte_comes_out_once_and_whole() -> None:
    record = {"type": "text", "delta": "héllo ✓ \u2028 😀"}
    raw = json.dumps(record, ensure_ascii=False).encode() + b"\n" + b'{"type":"next"}\n'
    splitter = LineSplitter()
    frames = []
    for i in range(len(raw)):  # one byte at a time, through the middle of multi-byte characters
        frames.extend(splitter.feed(raw[i : i + 1]))
    assert frames == [record, {"type": "next"}]
    assert splitter.buffered == 0


def test_many_records_in_one_read_keep_their_order() -> None:
    raw = b"".join(json.dumps({"type": "e", "n": n}).encode() + b"\n" for n in range(100))
    assert [frame["n"] for frame in LineSplitter().feed(raw) if isinstance(frame, dict)] == list(range(100))


def test_an_over_long_line_is_reported_not_buffered_and_the_next_line_is_read() -> None:
    splitter = LineSplitter(max_line_bytes=1000)
    frames = splitter.feed(b'{"type":"huge","data":"' + b"x" * 600)
    frames += splitter.feed(b"x" * 600)
    assert splitter.buffered == 0  # dropped as it arrived
    frames += splitter.feed(b"x" * 600)
    frames += splitter.feed(b'"}\n{"type":"after"}\n')
    problem, after = frames
    assert isinstance(problem, FramingProblem) and problem.kind == "too-long"
    assert problem.size == len(b'{"type":"huge","data":"') + 1800 + 2
    assert problem.preview.startswith('{"type":"huge"')
    assert after == {"type": "after"}


def test_an_over_long_line_in_a_single_read_is_reported_too() -> None:
    line = b'{"type":"huge","data":"' + b"y" * 2000 + b'"}\n'
    (problem,) = LineSplitter(max_line_bytes=1000).feed(line)
    assert isinstance(problem, FramingProblem) and (problem.kind, problem.size) == ("too-long", len(line) - 1)


def test_an_over_long_response_names_the_request_it_answered() -> None:
    line = b'{"id":"pc-7","type":"response","command":"get_messages","success":true,"data":"' + b"z" * 5000 + b'"}\n'
    (problem,) = LineSplitter(max_line_bytes=1000).feed(line)
    assert isinstance(problem, FramingProblem) and problem.response_id == "pc-7"


def test_a_line_that_is_not_json_is_reported_and_reading_goes_on() -> None:
    frames = LineSplitter().feed(b'Debugger attached.\n{"type":"ok"}\n')
    problem, ok = frames
    assert isinstance(problem, FramingProblem) and problem.kind == "not-json"
    assert problem.preview == "Debugger attached."
    assert "not JSON" in problem.message
    assert ok == {"type": "ok"}


def test_invalid_utf8_is_a_not_json_problem() -> None:
    (problem,) = LineSplitter().feed(b'{"type":"\xff"}\n')
    assert isinstance(problem, FramingProblem) and problem.kind == "not-json"


def test_json_that_is_not_an_object_is_reported() -> None:
    frames = LineSplitter().feed(b"[1,2]\n42\n")
    assert [f.kind for f in frames if isinstance(f, FramingProblem)] == ["not-an-object", "not-an-object"]


def test_blank_lines_are_skipped() -> None:
    assert LineSplitter().feed(b'\n\r\n  \n{"type":"a"}\n') == [{"type": "a"}]


def test_a_last_line_without_newline_is_read_at_the_end_of_the_stream() -> None:
    splitter = LineSplitter()
    assert splitter.feed(b'{"type":"a"}\n{"type":"last"}') == [{"type": "a"}]
    assert splitter.finish() == [{"type": "last"}]


def test_commands_are_written_ascii_only_so_no_reader_can_split_them() -> None:
    raw = encode_record({"type": "prompt", "message": "a\u2028b ✓"})
    assert raw.endswith(b"\n") and raw.count(b"\n") == 1
    assert raw.isascii()
    assert json.loads(raw) == {"type": "prompt", "message": "a\u2028b ✓"}


def test_nesting_deeper_than_pythons_parser_is_a_problem_and_the_rest_of_the_read_goes_on() -> None:
    """Node parses a model's 5,000-deep tool arguments that Python's json refuses (RecursionError): the line is
    reported, a response among them fails its request instead of hanging, and the next records still come."""
    deep = "[" * 5000 + "]" * 5000
    event = b'{"type":"toolcall_end","arguments":' + deep.encode() + b"}\n"
    response = b'{"id":"pc-9","type":"response","command":"get_messages","success":true,"data":' + deep.encode()
    frames = LineSplitter().feed(event + response + b'}\n{"type":"agent_settled"}\n')
    first, second, last = frames
    assert isinstance(first, FramingProblem) and first.kind == "too-deep" and first.response_id is None
    assert "nested deeper" in first.message
    assert isinstance(second, FramingProblem) and (second.kind, second.response_id) == ("too-deep", "pc-9")
    assert last == {"type": "agent_settled"}
