"""``python -m lsp_server``: the pi-context command line (``serve`` starts the language server)."""

import sys

from lsp_server.cli import main

if __name__ == "__main__":
    sys.exit(main())
