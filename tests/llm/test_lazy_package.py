"""``lsp_server.llm`` names its public API at the package and imports each name on first use."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

import lsp_server.llm as llm


def test_a_leaf_module_loads_none_of_the_client() -> None:
    """In a new process: the session serializer reads only the transcript labels of this package."""
    code = (
        "import json, sys\n"
        "import lsp_server.compaction.serialize\n"
        "heavy = ['asyncio', 'certifi', 'lsp_server.llm.client', 'lsp_server.llm.factory', 'lsp_server.llm.offline']\n"
        "print(json.dumps([name for name in heavy if name in sys.modules]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == []


def test_the_public_names_are_the_lazy_ones() -> None:
    assert sorted(llm.__all__) == sorted(llm._HOMES)


@pytest.mark.parametrize("name", llm.__all__)
def test_every_public_name_is_its_home_modules_object(name: str) -> None:
    home = importlib.import_module(llm._HOMES[name])
    assert getattr(llm, name) is getattr(home, name)
    assert name in dir(llm)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        llm.no_such_name  # noqa: B018
