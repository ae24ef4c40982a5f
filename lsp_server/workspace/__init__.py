"""The application layer of the language server, without pygls: the workspace an editor has open.

:class:`~lsp_server.workspace.workspace.Workspace` owns the open buffers, the open projects and their
prompts, the followed session files, the diagnostics book, the per-file scheduler, the watcher and the
chats with Pi, and speaks to the editor only through a small client interface (:mod:`.client`:
notify, publish diagnostics, progress, log). The LSP binding (:mod:`lsp_server.server`) turns LSP
messages into calls on it: params in, one call, result out (ruff's session/api split).
"""
