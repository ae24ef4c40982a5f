"""A summarizer URL that cannot be one: ``pi.compact`` answers one error message, the file untouched."""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcException

from tests.lsp._custom import install_session
from tests.lsp.conftest import Launch, Workspace

BAD_URLS = [
    ("http://[::1", "is not a valid URL (Invalid IPv6 URL)"),
    ("http://127.0.0.1:99999", "has an invalid port '99999' (a number from 0 to 65535)"),
    ("ftp://127.0.0.1/", "must start with http:// or https:// (scheme: 'ftp')"),
]


@pytest.mark.parametrize(("url", "problem"), BAD_URLS)
async def test_a_bad_summarizer_url_is_one_error_message(
    launch: Launch, workspace: Workspace, url: str, problem: str
) -> None:
    path = install_session(workspace)
    before = path.read_bytes()
    summarizer = {"mode": "endpoint", "url": url, "model": "m", "retries": 0}
    session = await launch(init_options={"piContext": {"summarizer": summarizer}})
    for command in ("pi.compact", "pi.branchSummary"):
        args = {"session": str(path)} if command == "pi.compact" else {"session": str(path), "fromId": "a", "toId": "b"}
        with pytest.raises(JsonRpcException) as caught:
            await session.command(command, args)
        message = str(caught.value)
        assert f"summarizer: summarizer URL {url!r} {problem} (set by summarizer.url or $OPENAI_BASE_URL)" in message
        assert "Traceback" not in message
    assert path.read_bytes() == before
    assert "roots" in await session.state()
