"""The system prompt as Pi 1.6.0 builds it: sections, rendering, diffs, transcript replay, assembly.

Pure domain code (no LSP): :mod:`.sections` builds and diffs the ordered section map,
:mod:`.skills_block` renders the skills list, :mod:`.system_messages` replays the transcript's
system messages, :mod:`.assembly` turns loaded resources into sections with sources and token
counts, and :mod:`.texts` holds the only authored prose.
"""
