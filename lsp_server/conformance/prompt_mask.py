"""The mask for the system-prompt ops: hide Pi's prose and ours, keep everything else exact.

pi-context writes its own sentences for the default prompt (:mod:`lsp_server.prompt.texts`), so
a golden from Pi and our answer differ exactly there. This mask puts the same placeholder
``{pi-prose:<role>}`` in place of either wording of each sentence, on both sides, so the
comparison still checks *which* sentence appears *where* (the role), and every byte around it.

Pi's sentences are recognized by their SHA-256 (the tables below, made from each release's answers
to ``default_tool_prompts`` and ``build_sections``: Pi 1.5.0 and later, 1.0.4 to 1.4.x, 1.0.3; see
:func:`lsp_server.prompt.texts.texts_for`), so this module does not contain Pi's text.
Ours are recognized by exact text. Matching is per line:

- a whole line (preamble, docs lines with the package folder written as ``<pkg>``, skills intro);
- ``- <sentence>`` (a rule bullet);
- ``- <tool>: <sentence>`` (a built-in tool's line in ``tools``).

One structural difference survives the placeholders: Pi removes a rule bullet that repeats an
earlier one *by text*. When a caller's guideline is one of Pi's fixed rules, Pi lists it once and
we list it next to our own fixed rule (different texts); when it is one of ours, the reverse.
So a rule bullet whose role already appeared **with a different original text** is dropped
from the masked string. A bullet repeated with the *same* text is kept, so a missing
deduplication on our side still fails the comparison.

The goldens are stored with Pi's sentences already replaced by their placeholders
(:func:`replace_pi_prose`, applied by ``tests/conformance/regen_goldens.py``), so a placeholder
counts as Pi's wording of its role here: masking it gives itself, and it is "a different text"
from ours for the deduplication above, exactly as Pi's sentence was. A request names a built-in
sentence the same way (``"{pi-prose:rule:fixed:0}"``); :func:`resolve_prose_references` puts in
the text of the implementation that answers (ours here, Pi's when the goldens are regenerated).
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Callable
from typing import Any

from lsp_server.base.paths import node_resolve, normalize_path
from lsp_server.prompt.texts import EARLIER_TEXTS, FIRST_TEXTS, OUR_TEXTS, PromptTexts, texts_for
from lsp_server.vocabulary.pi_releases import CURRENT, PiRules

Json = Any

# role -> sha256 of Pi 1.6.0's sentence (docs lines with the package folder as "<pkg>").
PI_PROSE_SHA256: dict[str, str] = {
    "snippet:read": "4b24d940f5836c690daf7c56f5735e35962fdf3de849ad858b3fad72e5468a8b",
    "snippet:bash": "849d8ed376ae899cc824e25f43bd855946c22f4b1dcfd03ebe0ea50fbbb893d2",
    "snippet:edit": "d43326dc03ce4709819e76bfbd3ea140a0538887b8e9910822499c454c95eb15",
    "snippet:write": "b29a2552b08fc6afff15e7d9e6276beeaa33e59f3fa298a999c6e8115b487d7a",
    "snippet:grep": "24865d1332c234302a153e897f0b4b8ef27dcc2292409fa79db8253245804fb2",
    "snippet:find": "4fd588c4c5fc43395ddf2bb18165f68c8535e934ac587d26cce9437db96998bc",
    "snippet:ls": "005f8b8312283e7693df099b151dd976be5f4ef8106056062fc37d80bf9752d2",
    "snippet:powershell": "e28c07c191f8654ece7536127f7b22afc5223b79c970621ad7ec2d9eed67e213",
    "guideline:read:0": "9b67a94e6457dc2558f9f082ab8cb1c0601faa88770c654073cca0540b1f0a36",
    "guideline:env": "600ca02ace9c0e6e28c6ab6029cc6cbc7dc54572a5573347d829b6315efe6040",
    "guideline:edit:0": "40d710af7a1656678635e6f11cb6cddd64b7b01138ee79e68ee64da6a97f832c",
    "guideline:edit:1": "440f4ee2046d4267ccf22458d50ecd82d48e2dd1e4b959244e921422dccc6214",
    "guideline:write:0": "fa74847372950510319d8f60aeb918c7f137617763816058183eb732dba53809",
    "preamble": "52b86ec55caba7168f91b679de867d700924bf2641d661550566408fd6a59e48",
    "rule:explore:bash": "c822b12774a61203057dacd8e997052f43f210e276956914e80ee98a4a6b11da",
    "rule:explore:powershell": "0f8b7d4cca5711bd638c19e182c87412918289af98e703eba7b6c76986f62eb4",
    "rule:explore:both": "a48aeccc76f2cbd67e9941883e4f32b5a290aebf048cb36907d8a619e08bacea",
    "rule:fixed:0": "c59d51a23042a8cca61ce0dde02c231d1cbbb35e7fb0b3b6bbc6f66e823af08c",
    "rule:fixed:1": "c3f4f51497e8638775529f3c1aabcff61009b92e1de12011a104116af7f4b9c0",
    "docs:0": "9b7c7694732d3cae28b6d648f7f1b877fa90512c59357dfba7f05d0e0e13c6db",
    "docs:1": "1221fb5e4c6dcc4b9a8211aae9cc6ca84d1707ba84cf3c445d63882e91d52752",
    "docs:2": "8a3fdc45521784d31a8b2f69dafbc0b4711858c6cf9bc81bd9bc1d604bc6d5ba",
    "docs:3": "794f69454d9bb0bd4cb4b7b27d7c4bd9c0c88bb42298282dac960a77712a1ddd",
    "docs:4": "8a802ab8ff7daf893f16c78f48f5a5aa8fb17fff73fc8ae4f13eb9889e64ca22",
    "docs:5": "622e5364154ba1071d01c240a4b5693d164e437e69de1c964f594f69496ae6b1",
    "docs:6": "f061253aef4feab3f93ffa1fa62816ed0f49a8de3b1aac5c1010f5331b7c026c",
    "skills:intro": "a9ad8d6565cfab64f1d0953f141356bb6d8c63764d0bf08a163b692d196124dd",
    "skills:reader:read": "3de47773cfbe5595c08b69ac74fa90faf8d30185ddd50e58e875c7e5669899ef",
    "skills:reader:bash": "79e8ee7d76427921407a3966cd4aeaaba4ba5070e66bedf2cac575eafdf4c563",
    "skills:reader:indirect": "4e19b7a779e311797c84d191ab19f530806e97a8424d6b474c214c0742501582",
    "skills:paths": "7d8aa6a7641de5d95d4e07615047d418765531ceed91ca8f6f9e9fdbdfcd39ec",
}
# Pi 1.0.4 to 1.4.x (before 1.5.0 tightened the prompt): the roles whose sentence differs, and the
# ones only that prompt has (two more edit guidelines, a fourth docs bullet). Same source as above.
EARLIER_PI_PROSE_SHA256: dict[str, str] = {
    **PI_PROSE_SHA256,
    **{
        "preamble": "00aa6d13d16562265135a7c704d8a33be5d9f647e98a36ea3efa25662e40fc97",
        "guideline:edit:0": "bb717e92afe0d40a8c3b3c5b1f0a5027ca70a2e5a3344e05ad54bd5b89cd93cb",
        "guideline:edit:1": "5e6031c0d815ee684352316283d1be7dde297a619d99b61a606a505913f2adcc",
        "guideline:edit:2": "d20ee17df5934a7622e0b5208a56b25dc745f4ba28c2ed81edcd7f3acabfb6c2",
        "guideline:edit:3": "715bebd502fa4dcf15354d28c74168bb02438a22957db5e7e0a3bcfcb779205b",
        "docs:0": "3b7374bad0cbe5a984698161c4e40e9a5a0d8f74d28704b69b38332b2cb01c4d",
        "docs:5": "0c0732ff1f0a9cc694e26395acf0d30c7d61d72a03440196af6655d4eef58ad0",
        "docs:6": "f8e0cafc032045e55c4682d1d4fe626045b85e7de97b8a8616edc8b5ce51b3de",
        "docs:7": "331502fd5078791194e41bcd74f3252390fd52c889adc6f776ae79a13149f217",
        "skills:paths": "28404a052c6fdfe49e3321cf51c0bb7ab0fcd8df527006880aad1d4c7459a275",
        "tools:footer": "2e201144a84ce6a0cead5b79e3c7a2d43c696006e202b2049e6e65a75158fbe4",
    },
}
# Pi 1.0.3: a skills block whose reader is hidden names bash (its line is the bash reader's).
FIRST_PI_PROSE_SHA256: dict[str, str] = {
    **EARLIER_PI_PROSE_SHA256,
    "skills:reader:indirect": PI_PROSE_SHA256["skills:reader:bash"],
}
PKG_TOKEN = "<pkg>"


def our_prose_roles(texts: PromptTexts = OUR_TEXTS) -> dict[str, str]:
    """role -> our sentence, with the same roles as :data:`PI_PROSE_SHA256`."""
    roles: dict[str, str] = {"preamble": texts.preamble}
    for name, tool in texts.tools.items():
        roles[f"snippet:{name}"] = tool.snippet
    roles["guideline:read:0"] = texts.tools["read"].guidelines[0]
    roles["guideline:env"] = texts.tools["bash"].guidelines[0]
    for index, guideline in enumerate(texts.tools["edit"].guidelines):
        roles[f"guideline:edit:{index}"] = guideline
    roles["guideline:write:0"] = texts.tools["write"].guidelines[0]
    roles["rule:explore:bash"] = texts.exploration.bash
    roles["rule:explore:powershell"] = texts.exploration.powershell
    roles["rule:explore:both"] = texts.exploration.both
    roles["rule:fixed:0"], roles["rule:fixed:1"] = texts.fixed_rules
    docs = texts.docs.render(f"{PKG_TOKEN}/README.md", f"{PKG_TOKEN}/docs", f"{PKG_TOKEN}/examples")
    for index, line in enumerate(docs.split("\n")):
        roles[f"docs:{index}"] = line
    roles["skills:intro"] = texts.skills.intro
    for reader in ("read", "bash", "indirect"):
        roles[f"skills:reader:{reader}"] = texts.skills.reader_line(reader)
    roles["skills:paths"] = texts.skills.paths
    if texts.tools_footer != OUR_TEXTS.tools_footer:  # prose before Pi 1.5.0, a fixed line since
        roles["tools:footer"] = texts.tools_footer
    return roles


def pi_prose_table(rules: PiRules = CURRENT) -> dict[str, str]:
    """role -> sha256 of the sentence of that role in the default prompt of the release these rules are."""
    texts = texts_for(rules)
    if texts is OUR_TEXTS:
        return PI_PROSE_SHA256
    return EARLIER_PI_PROSE_SHA256 if texts is EARLIER_TEXTS else FIRST_PI_PROSE_SHA256


# Every shape's sentences, ours and Pi's, map to their role (where two roles share a sentence, the newest
# prompt's role wins: Pi 1.0.3's hidden-reader line is its bash line, and masks as that).
_OUR_ROLE_BY_TEXT = {
    text: role for texts in (FIRST_TEXTS, EARLIER_TEXTS, OUR_TEXTS) for role, text in our_prose_roles(texts).items()
}
_ALL_PI_TABLES = (FIRST_PI_PROSE_SHA256, EARLIER_PI_PROSE_SHA256, PI_PROSE_SHA256)
_PI_ROLE_BY_HASH = {digest: role for table in _ALL_PI_TABLES for role, digest in table.items()}
_ALL_ROLES = frozenset(role for table in _ALL_PI_TABLES for role in table)
PLACEHOLDER = re.compile(r"\{pi-prose:([a-z0-9:]+)\}")
RoleOf = Callable[[str], str | None]


def placeholder(role: str) -> str:
    """How a golden stores Pi's sentence of ``role``, and how a request names a built-in sentence."""
    return "{pi-prose:" + role + "}"


def placeholder_role(text: str) -> str | None:
    """The role ``text`` is the placeholder of (a role of the table), else ``None``."""
    match = PLACEHOLDER.fullmatch(text)
    return match.group(1) if match and match.group(1) in _ALL_ROLES else None


def pi_prose_role(text: str) -> str | None:
    """The role of one of Pi's sentences, of any release (recognized by its hash), else ``None``."""
    return _PI_ROLE_BY_HASH.get(hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest())


def prose_role(text: str) -> str | None:
    """The role of a sentence if it is ours, Pi's, or the placeholder a golden stores for Pi's, else ``None``."""
    role = _OUR_ROLE_BY_TEXT.get(text)
    if role is not None:
        return role
    return pi_prose_role(text) or placeholder_role(text)


def line_prose(line: str, package_dir: str | None, role_of: RoleOf = prose_role) -> tuple[str, str, str] | None:
    """``(prefix, role, sentence)`` when ``line`` is a prose line, else ``None``.

    A prose line is a whole sentence (the docs lines with the package folder written as ``<pkg>``
    in ``sentence``), a ``- <sentence>`` bullet, or a built-in tool's ``- <tool>: <sentence>``;
    ``prefix`` is what stays in front of the placeholder.
    """
    role = role_of(line)
    if role is None and package_dir:
        relative = line.replace(package_dir, PKG_TOKEN)
        role = role_of(relative)
        if role is not None and role.startswith("docs:"):
            return "", role, relative
        role = None
    if role is not None:
        return "", role, line
    if line.startswith("- "):
        rest = line[2:]
        role = role_of(rest)
        if role is not None:
            return "- ", role, rest
        name, sep, snippet = rest.partition(": ")
        if sep:
            role = role_of(snippet)
            if role is not None and role.startswith("snippet:"):
                return f"- {name}: ", role, snippet
    return None


def _mask_line(line: str, package_dir: str | None) -> tuple[str, str | None]:
    """The masked line and, for a rule bullet, its role (used by the cross-wording dedup)."""
    found = line_prose(line, package_dir)
    if found is None:
        return line, None
    prefix, role, _ = found
    bullet = role if prefix == "- " and role.startswith(("rule:", "guideline:")) else None
    return prefix + placeholder(role), bullet


def mask_prose(text: str, package_dir: str | None = None) -> str:
    """``text`` with every prose line (Pi's or ours) replaced by its role placeholder."""
    if "\n" not in text:
        return _mask_line(text, package_dir)[0]
    out: list[str] = []
    first_text_by_role: dict[str, str] = {}
    for line in text.split("\n"):
        masked, bullet_role = _mask_line(line, package_dir)
        if bullet_role is not None:
            first = first_text_by_role.setdefault(bullet_role, line)
            if first != line:
                continue  # the same rule in the other wording: Pi's text-based dedup kept only one
        out.append(masked)
    return "\n".join(out)


def _map_strings(value: Json, fn: Callable[[str], str]) -> Json:
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, list):
        return [_map_strings(item, fn) for item in value]
    if isinstance(value, dict):
        return {key: _map_strings(item, fn) for key, item in value.items()}
    return value


def request_package_dir(req: dict[str, Any]) -> str | None:
    """The package folder the request's docs section names (absolute, as Pi resolves it)."""
    package_dir = req.get("packageDir")
    if not isinstance(package_dir, str) or not package_dir:
        return None
    return node_resolve(normalize_path(package_dir))


def mask_prompt_result(req: dict[str, Any], result: Json) -> Json:
    """The registered mask: every string of the result, prose lines replaced; input left untouched."""
    package_dir = request_package_dir(req)
    return _map_strings(copy.deepcopy(result), lambda s: mask_prose(s, package_dir))


def replace_pi_prose(text: str, package_dir: str | None = None) -> str:
    """``text`` with each of Pi's sentences replaced by its placeholder, and nothing else changed.

    The form a golden stores (no deduplication, our sentences left as they are): masking it gives
    what masking Pi's own text gives, so the comparison is the same.
    """
    out = []
    for line in text.split("\n"):
        found = line_prose(line, package_dir, pi_prose_role)
        out.append(line if found is None else found[0] + placeholder(found[1]))
    return "\n".join(out)


def resolve_prose_references(req: dict[str, Any], sentences: dict[str, str]) -> dict[str, Any]:
    """``req`` with each string that is a placeholder replaced by ``sentences[role]``.

    ``sentences`` is one implementation's built-in sentences by role (:func:`our_prose_roles` for
    ours); a docs line's ``<pkg>`` becomes the request's package folder. So a request can give a
    caller's guideline that *equals a built-in one* without the repository holding Pi's text.
    """
    package_dir = request_package_dir(req) or PKG_TOKEN

    def resolve(text: str) -> str:
        role = placeholder_role(text)
        if role is None:
            return text
        return sentences[role].replace(PKG_TOKEN, package_dir)

    resolved: dict[str, Any] = _map_strings(req, resolve)
    return resolved
