"""The base: what every layer reads files and reports problems with, knowing nothing of Pi's rules.

Paths as Node resolves them (:mod:`.paths`), the bounded folder walk (:mod:`.walk`), reading user files
without raising or blocking (:mod:`.fsread`), the one finding type (:mod:`.findings`), lenient
validation of JSON settings (:mod:`.lenient`), positions of keys in JSON text
(:mod:`.json_positions`) and dollar amounts as every front end prints them (:mod:`.money`).
It imports only :mod:`lsp_server.js` and :mod:`lsp_server.vocabulary`.
"""
