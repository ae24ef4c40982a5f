"""What Pi reads from a workspace: context files, SYSTEM.md / APPEND_SYSTEM.md, skills, settings.

Pure domain code: no LSP, no network. The language server, the CLI and the tests drive it.
"""
