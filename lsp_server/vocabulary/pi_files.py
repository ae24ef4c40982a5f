"""File and folder names Pi looks for. Facts of Pi's format, kept in one place."""

from __future__ import annotations

# Per directory, the first of these that is a regular file is the directory's context file.
CONTEXT_FILE_CANDIDATES: tuple[str, ...] = ("AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD")

SKILL_FILE_NAME = "SKILL.md"
SYSTEM_PROMPT_FILE = "SYSTEM.md"
APPEND_SYSTEM_PROMPT_FILE = "APPEND_SYSTEM.md"
PROJECT_CONFIG_DIR = ".pi"  # <cwd>/.pi/SYSTEM.md, <cwd>/.pi/skills, <cwd>/.pi/settings.json
AGENTS_SKILLS_DIR = (".agents", "skills")  # <dir>/.agents/skills up the ancestors, and ~/.agents/skills
SETTINGS_FILE = "settings.json"
DEFAULT_AGENT_DIR = "~/.pi/agent"
AGENT_DIR_ENV = "PI_CODING_AGENT_DIR"
IGNORE_FILE_NAMES: tuple[str, ...] = (".gitignore", ".ignore", ".fdignore")
