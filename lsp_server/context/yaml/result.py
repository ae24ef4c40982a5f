"""What a parse gives: the JavaScript value, the nodes with positions, the error, the warnings."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lsp_server.context.yaml.errors import YamlError, YamlWarning
from lsp_server.context.yaml.nodes import YamlNode


@dataclass(frozen=True)
class YamlResult:
    value: Any  # JS-like value: dict[str, Any] | list | str | int | float | bool | None
    node: YamlNode | None
    error: YamlError | None = None
    warnings: tuple[YamlWarning, ...] = ()

    @property
    def ok(self) -> bool:
        return self.error is None
