"""JavaScript semantics that Pi's answers depend on, reproduced in Python, one module per question.

Pi is written in TypeScript, so its counts are UTF-16 code units, its sorts compare code units, its
trims use ECMAScript's whitespace set, a missing key is ``undefined``, ``if (x)`` follows JS
truthiness, numbers print as ``Number.prototype.toString`` prints them and objects enumerate
"array index" keys first. Python differs on each of these for some inputs, and a byte-exact
reimplementation needs the JavaScript answer. Everything that crosses that boundary goes through
this package, so the rest of the code can say what it means (``js_len(description) > 1024``):

- :mod:`lsp_server.js.strings`: lengths, slices, sort order, trims and UTF-8 bytes of strings.
- :mod:`lsp_server.js.numbers`: what a number is (``1.0`` is ``1``), how it prints (``toString``,
  ``toFixed``), ``JSON.parse``'s integers and ``Number.MAX_SAFE_INTEGER``.
- :mod:`lsp_server.js.values`: ``undefined``, property access, truthiness, ``String(value)``.
- :mod:`lsp_server.js.objects`: the order in which an object enumerates its keys.
- :mod:`lsp_server.js.json`: ``JSON.stringify``.
- :mod:`lsp_server.js.dates`: ``new Date(value).getTime()``.
"""
