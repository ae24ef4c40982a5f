"""docs/extension.md documents every setting and every palette command the extension contributes."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = json.loads((ROOT / "vscode-extension" / "package.json").read_text(encoding="utf-8"))
DOC = (ROOT / "docs" / "extension.md").read_text(encoding="utf-8")


def test_every_setting_is_in_the_settings_table() -> None:
    missing = [key for key in PACKAGE["contributes"]["configuration"]["properties"] if f"| `{key}` |" not in DOC]
    assert not missing


def test_every_palette_command_is_documented() -> None:
    hidden = {item["command"] for item in PACKAGE["contributes"]["menus"]["commandPalette"] if item["when"] == "false"}
    titles = [c["title"] for c in PACKAGE["contributes"]["commands"] if c["command"] not in hidden]
    missing = [title for title in titles if title.split(" (")[0] not in DOC]
    assert not missing
