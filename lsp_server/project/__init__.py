"""The application layer: a project opened once, and what the front ends ask of it (no LSP here).

The CLI sub-commands and the language server's features call this package and do nothing else
with settings, trust or folders, so both always compute the same numbers:

* :mod:`.project`: :class:`~.project.Project` opened from :class:`~.project.ProjectInputs` (folder,
  agent dir, trust override, pi-context's settings): trust, Pi's settings, compaction settings and
  the window for a model, the budget configuration, the session folder; and the one rule for
  which project a session belongs to (:func:`~.project.session_folder`);
* :mod:`.prompt_state`: the project's assembled prompt, which files feed it, what changed between
  two builds (Pi's patch with token deltas);
* :mod:`.analysis`: a session analysed in its project (projected request and budget);
* :mod:`.summaries`: ``compact`` / ``branch-summary`` jobs end to end, with preview reuse;
* :mod:`.sessions`: session files followed incrementally, session lists, the tree view;
* :mod:`.file_roles`: where one context file, SYSTEM.md or SKILL.md sits in the prompt (code lenses);
* :mod:`.wire`: prompt snapshots and changes as the protocol models of :mod:`lsp_server.protocol`.
"""
