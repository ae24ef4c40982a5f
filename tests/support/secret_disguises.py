"""Keys in the shapes real providers issue, the disguises they are pasted in, and placeholders that are not keys.

Shared by tests/rules/test_secrets.py (one case per shape and disguise) and the fuzz tier
(tests/fuzz/test_fuzz_secrets.py: generated keys in each disguise must be found, generated
placeholders must not be). Every key is random (drawn from the provider's alphabet with the length
its real keys have), so none of them is live.
"""

from __future__ import annotations

import base64
import random
from collections.abc import Callable

from lsp_server.rules.key_shapes import KEY_SHAPES, KeyShape


def real_looking_key(shape: KeyShape, rng: random.Random) -> str:
    """A random key of ``shape``: its prefix as written, then its real length of its alphabet."""
    return shape.written + "".join(rng.choice(shape.characters) for _ in range(shape.length))


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _percent(text: str) -> str:
    return "".join(f"%{byte:02X}" for byte in text.encode())


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def _zero_width(text: str) -> str:
    return text[:10] + "\u200b" + text[10:]


# A disguise: the line the key is written on; ``{key}`` is where it goes.
DISGUISES: dict[str, Callable[[str], str]] = {
    "prose": lambda key: f"Use {key} for the calls.",
    "unlabeled fence": lambda key: f"```\n{key}\n```",
    "env line": lambda key: f"ANTHROPIC_API_KEY={key}",
    "export in prose": lambda key: f"Run export SERVICE_TOKEN={key} first.",
    "quoted": lambda key: f'client = Client(api_key="{key}")',
    "yaml value": lambda key: f"api_key: {key}",
    "url query": lambda key: f"Fetch https://api.example.com/v1/items?key={key}&page=2 now.",
    "url userinfo": lambda key: f"Clone https://me:{key}@git.example.com/repo.git today.",
    "percent-encoded url": lambda key: f"See https://api.example.com/v1?k={_percent(key)} here.",
    "base64": lambda key: f"Token: {_b64(key)}",
    "base64url": lambda key: f"Blob {base64.urlsafe_b64encode(key.encode()).decode().rstrip('=')} end",
    "basic auth header": lambda key: f"Authorization: Basic {_b64('deploy:' + key)}",
    "zero-width space inside": lambda key: f"Key {_zero_width(key)} here.",
    "fullwidth": lambda key: f"Key {_fullwidth(key)} here.",
}

# Stand-ins for a secret, as documentation writes them (each must not be reported in any place).
PLACEHOLDER_VALUES: tuple[str, ...] = (
    "mypassword",
    "xxx",
    "xxxxxxxxxxxxxxxxxxxxxxxx",
    "<token>",
    "<your-api-key>",
    "${API_KEY}",
    "$API_KEY",
    "{{ api_key }}",
    "%API_KEY%",
    "changeme",
    "your-api-key",
    "YOUR_API_KEY_HERE",
    "...",
    "****",
    "********************",
    "example",
    "placeholder",
    "dummy",
    "test",
    "aaaaaaaaaaaaaaaaaaaaaaaa",
    "secret123",
    "password123",
    "your_token_here",
    "AKIAIOSFODNN7EXAMPLE",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "replace-me",
    "sk-ant-api03-...",
    "sk-ant-api03-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "sk-proj-your-openai-key-goes-here",
    "AIzaXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
    "hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
)

# Where a placeholder is written (each a line; ``{value}`` is the placeholder).
PLACEHOLDER_PLACES: dict[str, Callable[[str], str]] = {
    "prose": lambda value: f"Set the key to {value} first.",
    "env line": lambda value: f"ANTHROPIC_API_KEY={value}",
    "export in prose": lambda value: f"Run export SERVICE_TOKEN={value} first.",
    "bash fence": lambda value: f"```bash\nexport API_KEY={value}\nqpdf --password={value} --decrypt a.pdf b.pdf\n```",
    "quoted": lambda value: f'client = Client(api_key="{value}")',
    "yaml value": lambda value: f"api_key: {value}",
    "url query": lambda value: f"Fetch https://api.example.com/v1/items?api_key={value}&page=2 now.",
    "url userinfo": lambda value: f"Clone https://me:{value}@git.example.com/repo.git today.",
}


def shapes() -> tuple[KeyShape, ...]:
    return KEY_SHAPES
