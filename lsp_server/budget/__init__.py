"""The context budget: which model and window, Pi's context tokens, and breakdowns that add up.

:mod:`.models` resolves a model's context window (our settings, models.json, Pi's catalog, our
table, a default); :mod:`.parts` splits a request into counted pieces; :mod:`.breakdown` turns
them into categories that add up to the window; :mod:`.budget` computes Pi's numbers and both
breakdowns; :mod:`.projected` lays out the request the model would receive next. Pure domain: no
LSP imports.
"""
