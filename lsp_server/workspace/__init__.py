"""What the language server knows about a workspace folder, as plain values (no LSP here).

* :mod:`.prompt_state`: the assembled prompt of a folder, which files feed it, what changed
  between two builds (Pi's patch with token deltas);
* :mod:`.wire`: those values as the protocol models of :mod:`lsp_server.protocol`;
* :mod:`.file_roles`: where one context file, SYSTEM.md or SKILL.md sits in the prompt (code lenses);
* :mod:`.outline`: a Markdown file's ``#`` headings with token counts (document symbols);
* :mod:`.sessions`: session files followed incrementally, session lists, the tree view;
* :mod:`.summaries`: ``pi.compact`` / ``pi.branchSummary`` end to end, with preview reuse.

The feature modules in ``lsp_server/server/features`` convert LSP params to these inputs and the
results back, and nothing else.
"""
