"""Rules and profiles: what pi-context reports about skills and context files, and for which agent.

``profiles`` holds the profile table (one row per agent: its keys, booleans, name rules);
``registry`` holds every rule (code, explanation, fix, severity and message per profile);
``skill_rules`` and ``context_rules`` check one file (or one folder's context-file candidates) and
return positioned :class:`~lsp_server.base.findings.Finding` values; ``references`` finds the file
references those rules follow. The workspace-level pass (discovery and name collisions) is
``lsp_server.checks``.
"""

from lsp_server.rules.context_rules import check_context_file, check_context_folder, check_context_text
from lsp_server.rules.registry import RULES, Rule
from lsp_server.rules.skill_rules import SkillCheck, check_skill_file, check_skill_text, collision_finding
from lsp_server.vocabulary.limits import Thresholds
from lsp_server.vocabulary.profiles import DEFAULT_PROFILE, PROFILES, ProfileId

__all__ = [
    "DEFAULT_PROFILE",
    "PROFILES",
    "RULES",
    "ProfileId",
    "Rule",
    "SkillCheck",
    "Thresholds",
    "check_context_file",
    "check_context_folder",
    "check_context_text",
    "check_skill_file",
    "check_skill_text",
    "collision_finding",
]
