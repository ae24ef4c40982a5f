"""pi-context's own settings, parsed above the domain: the ``piContext`` model, the editor's layers, the summarizer.

Lenient (a bad value is reported and falls back to its default) and parsed here, once; what the
domain takes from them it receives as plain values (``check_options()``, ``window_overrides()``,
:func:`~lsp_server.settings.summarizer.config_from_settings`).
"""
