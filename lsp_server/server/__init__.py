"""The language server: pygls wiring around the pure domain.

``app.create_server()`` builds the server; the other modules are its parts, each usable (and
tested) on its own: settings (``config``), open buffers (``documents``), the file watcher
(``watch``), the debounced per-file queue (``scheduler``), progress and cancellation
(``progress``), and the handler guard (``errors``). Nothing in ``lsp_server.context`` or the other
domain packages imports from here.
"""
