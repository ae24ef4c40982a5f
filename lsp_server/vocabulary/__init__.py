"""The vocabulary: the words every layer above speaks, each family one table, importing nothing of ours.

Pi's file and folder names (:mod:`.pi_files`), the rule profiles (:mod:`.profiles`), the summarizer's
wire formats (:mod:`.providers`), the size and time limits (:mod:`.limits`), Pi's compaction
settings and defaults (:mod:`.compaction`) and Pi's releases with what changed between them
(:mod:`.pi_releases`). A leaf: ``lint-imports`` (pyproject.toml) fails when a module here imports
another package of ``lsp_server``.
"""
