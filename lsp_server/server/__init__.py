"""The language server's LSP binding: pygls around the workspace (:mod:`lsp_server.workspace`).

``create.create_server()`` builds the server; ``app`` is pygls's server with what only LSP has
(the workspace's client over pygls, URIs, capabilities, the running operations), ``handlers`` the
custom methods registered from the method table, ``lifecycle`` and ``sync`` the standard
notifications, ``features/`` the editor features, ``early`` the answer to ``initialize`` before
pygls is imported, ``errors`` the guard every handler runs in, ``progress`` ``$/progress`` and
cancellation. Nothing below the front ends imports from here (pyproject.toml's contracts).
"""
