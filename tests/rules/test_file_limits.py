"""The limits of every file: a cap on findings per file, and bodies too large to check."""

from __future__ import annotations

from pathlib import Path

from lsp_server.rules.context_rules import check_context_text
from lsp_server.rules.registry import BODY_CHECK_MAX_BYTES, MAX_FINDINGS_PER_FILE
from lsp_server.rules.skill_rules import check_skill_file, check_skill_text

FRONT = "---\nname: s\ndescription: A skill.\n---\n"
LINK = "See [the guide](docs/missing.md).\n"


def test_file_too_many_findings_caps_a_link_per_line() -> None:
    result = check_skill_text("/x/s/SKILL.md", FRONT + LINK * 5000)
    codes = [f.code for f in result.findings]
    assert len(codes) == MAX_FINDINGS_PER_FILE + 1  # body-too-long, 999 missing references, the cap
    assert codes[-1] == "file/too-many-findings" and codes.count("file/too-many-findings") == 1
    assert result.findings[-1].message == (
        "more than 1,000 findings in this file; the rest are not reported (limit per file)"
    )


def test_file_too_many_findings_caps_a_context_file() -> None:
    findings = check_context_text("/x/AGENTS.md", LINK * 3000)
    assert len(findings) == MAX_FINDINGS_PER_FILE + 1
    assert findings[-1].code == "file/too-many-findings"


def test_file_body_not_checked_above_8_mib(tmp_path: Path) -> None:
    """A valid frontmatter and a 50 MB body: the frontmatter is checked, the body refused with a finding."""
    path = tmp_path / "s" / "SKILL.md"
    path.parent.mkdir()
    line = "See [the guide](docs/guide.md) for the details of this step.\n"
    path.write_text(FRONT + line * (50 * 1024 * 1024 // len(line)), encoding="utf-8")
    result = check_skill_file(str(path))
    assert [f.code for f in result.findings] == ["skill/too-large", "file/body-not-checked"]
    size = path.stat().st_size
    assert result.findings[1].message == (
        f"body not checked: the file is {size:,} bytes, over the {BODY_CHECK_MAX_BYTES:,} whose lines and links "
        "are checked"
    )
    assert result.loaded and result.name == "s"  # the frontmatter still decides whether Pi loads it


def test_an_editor_buffer_over_the_limit_is_bounded_too() -> None:
    result = check_skill_text("/x/s/SKILL.md", FRONT + LINK * (BODY_CHECK_MAX_BYTES // len(LINK) + 10))
    assert [f.code for f in result.findings] == ["skill/too-large", "file/body-not-checked"]
