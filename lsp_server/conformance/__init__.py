"""Pi conformance: the ``debug eval`` harness and the comparison against the Pi oracle."""
