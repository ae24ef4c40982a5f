"""Every file derived from the profile table and the provider registry is current (docs/gen_vocabularies.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
GENERATOR = ROOT / "docs" / "gen_vocabularies.py"


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_vocabularies", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_derived_files_match_the_tables() -> None:
    stale = [str(path.relative_to(ROOT)) for path in generator().stale_files()]
    assert stale == [], "run: python docs/gen_vocabularies.py"


def test_a_table_change_shows_up_in_the_derived_files() -> None:
    gen = generator()
    package = gen.PACKAGE.read_text(encoding="utf-8")
    edited = package.replace('"claude-code",', '"cursor",', 1)
    assert gen.package_json(edited) == package
    settings = gen.SETTINGS_DOC.read_text(encoding="utf-8")
    assert gen.settings_doc(settings.replace("`claude-code`", "`cursor`", 1)) == settings
