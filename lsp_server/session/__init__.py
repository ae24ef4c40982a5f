"""Pi session files: entries, loading and following, the tree, the projection to request messages, tokens."""
