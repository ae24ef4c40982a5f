"""A snapshot of Pi's model catalog, bundled: prices are known for the models Pi ships without an installed Pi.

Pi prices a reply from the model's ``cost`` in pi-ai's catalog (``pi-ai/dist/providers/data/*.json``).
With Pi installed, :class:`~lsp_server.cost.prices.PriceCatalog` reads that catalog, the one Pi
itself uses. Without it, ``session --costs`` used to know no price at all (the README's example
showed none). ``pi_catalog.json`` beside this module is a fact table taken from an installed Pi's
catalog by this module (``python -m lsp_server.cost.catalog_snapshot [PI_PACKAGE_DIR]``), with the
Pi and pi-ai versions it came from: for every chat model, its ``cost`` (rates and tiers), its
``promptCache`` lifetimes and whether it takes mid-conversation system messages, read with the
same reader and the same "later group wins" rule as the installed catalog. Nothing else is kept.

Order of use (docs/cost.md, "Where prices come from"): models.json, else the installed Pi's catalog,
else this snapshot (named as such in every price's detail), else unknown. An installed Pi of another
version supersedes the snapshot as a whole, so the numbers are always one Pi's.
``tests/cost/test_catalog_snapshot.py`` fails when the file is not what the installed Pi 1.6.0 gives.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

from lsp_server.budget.models import catalog_chat_models, find_pi_ai_data_dir

SNAPSHOT_PATH: Final = Path(__file__).with_name("pi_catalog.json")
KEPT_KEYS: Final = ("cost", "promptCache")
ABOUT: Final = (
    "The chat models of Pi's model catalog (pi-ai's dist/providers/data): cost (US dollars per million tokens), "
    "promptCache (seconds) and compat.supportsMidConvoSystemMessages, taken from an installed Pi by "
    "`python -m lsp_server.cost.catalog_snapshot`. Used only when no Pi is installed."
)


@dataclass(frozen=True)
class CatalogSnapshot:
    """The bundled catalog: the Pi version it was taken from and each provider's models by id."""

    pi_version: str
    pi_ai_version: str
    providers: Mapping[str, Mapping[str, Mapping[str, Any]]]

    @property
    def label(self) -> str:
        return f"Pi {self.pi_version}'s model catalog, bundled snapshot"

    def model(self, provider: str, model_id: str) -> Mapping[str, Any] | None:
        return self.providers.get(provider, {}).get(model_id)


@lru_cache(maxsize=1)
def bundled_snapshot() -> CatalogSnapshot | None:
    """The snapshot shipped with pi-context (read once), or None when the file is missing or broken."""
    try:
        data = json.loads(SNAPSHOT_PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    providers = data.get("providers") if isinstance(data, dict) else None
    if not isinstance(providers, dict):
        return None
    return CatalogSnapshot(str(data.get("piVersion")), str(data.get("piAiVersion")), providers)


def _kept(model: Mapping[str, Any]) -> dict[str, Any]:
    kept = {key: model[key] for key in KEPT_KEYS if key in model}
    compat = model.get("compat")
    if isinstance(compat, Mapping) and isinstance(compat.get("supportsMidConvoSystemMessages"), bool):
        kept["compat"] = {"supportsMidConvoSystemMessages": compat["supportsMidConvoSystemMessages"]}
    return kept


def _version(package_json: str) -> str:
    try:
        value = json.loads(Path(package_json).read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError, AttributeError):
        return "unknown"
    return str(value)


def snapshot_of(data_dir: str, pi_version: str, pi_ai_version: str) -> dict[str, Any]:
    """The snapshot of the catalog in ``data_dir`` (what ``pi_catalog.json`` holds), providers and ids sorted."""
    providers: dict[str, dict[str, Any]] = {}
    for name in sorted(os.listdir(data_dir)):
        if not name.endswith(".json") or name.startswith("."):
            continue
        provider = name.removesuffix(".json")
        models = {model["id"]: _kept(model) for model in catalog_chat_models(data_dir, provider)}  # later groups win
        if models:
            providers[provider] = dict(sorted(models.items()))
    return {"about": ABOUT, "piVersion": pi_version, "piAiVersion": pi_ai_version, "providers": providers}


def render(snapshot: Mapping[str, Any]) -> str:
    """The file's text: one model per line, so a new Pi's changes read as a short diff."""
    head = {key: value for key, value in snapshot.items() if key != "providers"}
    lines = ["{"]
    lines.extend(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}," for key, value in head.items())
    lines.append('  "providers": {')
    providers = list(snapshot["providers"].items())
    for index, (provider, models) in enumerate(providers):
        lines.append(f"    {json.dumps(provider)}: {{")
        entries = list(models.items())
        for number, (model_id, model) in enumerate(entries):
            comma = "," if number < len(entries) - 1 else ""
            lines.append(f"      {json.dumps(model_id)}: {json.dumps(model, separators=(', ', ': '))}{comma}")
        lines.append("    }" + ("," if index < len(providers) - 1 else ""))
    lines.extend(["  }", "}"])
    return "\n".join(lines) + "\n"


def snapshot_of_package(package_dir: str) -> dict[str, Any] | None:
    """The snapshot of the Pi installed at ``package_dir`` (pi-coding-agent's folder), or None without its catalog."""
    data_dir = find_pi_ai_data_dir(package_dir)
    if data_dir is None:
        return None
    pi_ai = os.path.dirname(os.path.dirname(os.path.dirname(data_dir)))
    return snapshot_of(
        data_dir,
        _version(os.path.join(package_dir, "package.json")),
        _version(os.path.join(pi_ai, "package.json")),
    )


def main(argv: list[str] | None = None) -> int:
    """``python -m lsp_server.cost.catalog_snapshot [PI_PACKAGE_DIR]``: rewrite ``pi_catalog.json``."""
    args = sys.argv[1:] if argv is None else argv
    default = Path.home() / ".cache" / "pi-oracle" / "node_modules" / "@earendil-works" / "pi-coding-agent"
    package_dir = args[0] if args else os.environ.get("PI_PKG_DIR") or str(default)
    snapshot = snapshot_of_package(package_dir)
    if snapshot is None:
        sys.stderr.write(f"catalog_snapshot: no pi-ai model catalog next to {package_dir}\n")
        return 1
    SNAPSHOT_PATH.write_text(render(snapshot), encoding="utf-8")
    count = sum(len(models) for models in snapshot["providers"].values())
    sys.stdout.write(f"wrote {SNAPSHOT_PATH} (Pi {snapshot['piVersion']}, {count} models)\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
