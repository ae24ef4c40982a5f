"""``docs/protocol.md`` is generated from the models and the recorded examples, and both are current."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from lsp_server import protocol

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = ROOT / "docs" / "gen_protocol.py"
MARKER = re.compile(r"^… \d+ more$")


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_protocol", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def unabridged(value: Any) -> Any:
    """An example without the "… N more" list markers (cut strings are still strings)."""
    if isinstance(value, list):
        return [unabridged(item) for item in value if not (isinstance(item, str) and MARKER.match(item))]
    if isinstance(value, dict):
        return {key: unabridged(item) for key, item in value.items()}
    return value


def test_the_committed_protocol_doc_is_generated_from_the_current_models() -> None:
    page = generator().render()
    assert (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8") == page, (
        "docs/protocol.md is stale: run python docs/gen_protocol.py"
    )


def test_every_custom_method_and_model_is_documented() -> None:
    module = generator()
    documented = {method.name for method in module.METHODS}
    constants = {value for name, value in vars(protocol).items() if name.isupper() and isinstance(value, str)}
    assert {value for value in constants if value.startswith(("pi/", "pi."))} <= documented
    page = module.render()
    for name in protocol.ALL_MODELS:
        assert f"### {name}\n" in page


def test_every_example_validates_against_its_model() -> None:
    module = generator()
    examples = json.loads((ROOT / "docs" / "protocol-examples.json").read_text(encoding="utf-8"))
    for method in module.METHODS:
        if method.params is None:
            continue
        example = examples[method.name]
        protocol.ALL_MODELS[method.params].model_validate(unabridged(example["params"]))
        if method.result is not None:
            protocol.ALL_MODELS[method.result].model_validate(unabridged(example["result"]))
