"""Chats with Pi itself: one Pi process in RPC mode per chat, and what the editor shows around it (no LSP here).

* :mod:`.chat`: one chat (its Pi process, the session file Pi writes, its run state);
* :mod:`.registry`: the open chats and the rule that a session has one writer;
* :mod:`.lens`: the next prompt's cost and a compaction's plan, computed from the session file;
* :mod:`.live`: what a chat's Pi read (settings, trust, prompt) and where the files now differ from it.

The process layer beneath is :mod:`lsp_server.pi_rpc`; the methods of ``pi/chat/*`` are
:mod:`lsp_server.workspace.chat_requests`, and what the workspace does around each chat (events
relayed, the session file followed and written back, drift) :mod:`lsp_server.workspace.chat_supervisor`.
See ``docs/chat.md``.
"""
