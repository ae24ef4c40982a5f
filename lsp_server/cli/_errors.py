"""One error style and one set of exit statuses for every sub-command.

Every error the CLI prints is one line on stderr, ``pi-context: PATH: reason`` (``pi-context:
reason`` when no file is involved), whatever layer found it. The domain keeps the messages Pi
itself gives (Node's ``ENOENT: no such file or directory, open '/x'``, Pi's ``Session file is not a
valid pi session: /x``), because the language server and the conformance harness answer with Pi's
words; :func:`cli_reason` turns those into the reason part here.

Exit statuses (README.md, "Exit status"; ``pi-context --help``):

* 0: done (``check``: no error-severity finding);
* 1: ``check`` found an error, or a command could not do its work on its input (a file that is not
  a session, a ``--leaf`` that names no entry, nothing to compact, a summary that failed: nothing
  was written);
* 2: the command line is wrong: an unknown flag or a bad value, a PATH, ``--cwd`` or session file
  that does not exist, no summarizer as described;
* 130: interrupted (Ctrl-C; nothing written).
"""

from __future__ import annotations

import re
import sys

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_CANCELLED = 130

EXIT_STATUS_HELP = (
    "exit status: 0 done; 1 check found an error, or the input could not be used (nothing written); "
    "2 usage: a bad flag or value, a path that does not exist; 130 interrupted"
)

_NODE_ERROR = re.compile(r"^E[A-Z]+: (?P<reason>.+?), [a-z]+ '(?P<path>.*)'$", re.DOTALL)
_NOT_A_SESSION = re.compile(r"^Session file is not a valid pi session: (?P<path>.+?)(?: \((?P<detail>.+)\))?$")


def cli_reason(message: str, path: str | None) -> str:
    """The reason part of ``pi-context: PATH: reason`` for a message from any layer."""
    node = _NODE_ERROR.match(message)
    if node is not None and (path is None or node["path"] == path):
        return node["reason"]
    session = _NOT_A_SESSION.match(message)
    if session is not None and (path is None or session["path"] == path):
        return "not a valid Pi session" + (f" ({session['detail']})" if session["detail"] else "")
    if path is None:
        return message
    if message.startswith(f"{path}: "):
        message = message[len(path) + 2 :]
    for tail in (f": {path}", f" in {path}", f" to {path}"):  # Pi's reasons name the file last
        if message.endswith(tail):
            return message[: -len(tail)]
    return message


def fail(path: str | None, message: str, code: int = EXIT_FAILURE) -> int:
    """Print ``pi-context: PATH: reason`` (or ``pi-context: reason``) on stderr; return ``code``."""
    reason = cli_reason(message, path)
    sys.stderr.write(f"pi-context: {path}: {reason}\n" if path is not None else f"pi-context: {reason}\n")
    return code
