"""The guard every handler runs inside: a failure is logged and answered, never fatal.

A bad file or a bad request must cost the user one answer, not the server. ``guard`` wraps a
handler so that an unexpected exception

* is logged to the client with ``window/logMessage`` (type Error, handler name, message, and the
  innermost frames of the traceback), which editors show in the server's output channel, not
  as a pop-up;
* for a request, becomes a JSON-RPC error answer (-32603 with the exception's message), so the
  client is not left waiting;
* for a notification, is swallowed after logging (there is nobody to answer).

JSON-RPC errors raised on purpose (``JsonRpcException``: invalid params, request cancelled) and
task cancellation pass through untouched: they are answers, not failures. So are the application
layer's own answers (:mod:`lsp_server.workspace.errors`), turned into their JSON-RPC errors here:
``InvalidParams`` into -32602, ``RequestFailed`` into -32803 (LSP's RequestFailed) with its data.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import traceback
from collections.abc import Callable
from typing import Any, Protocol, TypeVar, cast

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams

from lsp_server.workspace.errors import InvalidParams, RequestFailed

logger = logging.getLogger(__name__)
# A log record the client also gets as ``window/logMessage``: an editor showing the server's stderr in the
# same channel would show it twice, so the stdio server's stderr leaves it out (``cli/serve.py``).
SENT_TO_CLIENT = "sent_to_client"

F = TypeVar("F", bound=Callable[..., Any])

# How many innermost traceback frames go into the log message.
TRACEBACK_FRAMES = 6
REQUEST_FAILED = -32803  # LSP's RequestFailed: a valid request the server could not carry out


def as_json_rpc(exc: InvalidParams | RequestFailed) -> JsonRpcException:
    """The application layer's answer as the JSON-RPC error it is."""
    if isinstance(exc, InvalidParams):
        return JsonRpcInvalidParams(message=str(exc))
    return JsonRpcException(code=REQUEST_FAILED, message=exc.message, data=exc.data)


class LogSink(Protocol):
    def window_log_message(self, params: types.LogMessageParams) -> None: ...


def is_notification(method: str) -> bool:
    """Whether LSP defines ``method`` as a notification (custom methods count as requests)."""
    message_type = types.METHOD_TO_TYPES.get(method, (None,))[0]
    if message_type is None:
        return False
    fields = getattr(message_type, "__attrs_attrs__", ())
    return not any(getattr(field, "name", None) == "id" for field in fields)


def describe_failure(what: str, exc: BaseException) -> str:
    """``<what> failed: ValueError: bad\\n<last frames>`` for the client's log."""
    frames = traceback.format_tb(exc.__traceback__)[-TRACEBACK_FRAMES:]
    head = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return f"{what} failed: {head}\n{''.join(frames)}".rstrip()


def log_failure(sink: LogSink, what: str, exc: BaseException) -> None:
    """Log a failure to the client; never raises (the client may already be gone)."""
    text = describe_failure(what, exc)
    logger.error("%s", text, extra={SENT_TO_CLIENT: True})  # the client gets it below
    try:
        sink.window_log_message(types.LogMessageParams(type=types.MessageType.Error, message=text))
    except Exception:
        logger.exception("could not send window/logMessage")


def _answer(exc: Exception) -> JsonRpcInternalError:
    head = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return JsonRpcInternalError(message=head)


def _failed(ls: LogSink, what: str, exc: Exception, request: bool) -> None:
    """What each wrapper does with a handler's exception: log it; a request answers an error."""
    log_failure(ls, what, exc)
    if request:
        raise _answer(exc) from exc


def guard(fn: F, *, what: str, request: bool) -> F:
    """Wrap a pygls handler ``fn(ls, *args)`` as described in the module docstring.

    The wrapper keeps ``fn``'s signature (pygls reads it to inject the server and to convert
    command arguments), and stays a coroutine function when ``fn`` is one.
    """
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def async_wrapper(ls: LogSink, *args: Any, **kwargs: Any) -> Any:
            try:
                return await fn(ls, *args, **kwargs)
            except (JsonRpcException, asyncio.CancelledError):
                raise
            except (InvalidParams, RequestFailed) as exc:
                raise as_json_rpc(exc) from None
            except Exception as exc:
                _failed(ls, what, exc, request)
                return None

        return cast(F, async_wrapper)

    if inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def generator_wrapper(ls: LogSink, *args: Any, **kwargs: Any) -> Any:
            try:
                return (yield from fn(ls, *args, **kwargs))
            except JsonRpcException:
                raise
            except (InvalidParams, RequestFailed) as exc:
                raise as_json_rpc(exc) from None
            except Exception as exc:
                _failed(ls, what, exc, request)
                return None

        return cast(F, generator_wrapper)

    @functools.wraps(fn)
    def wrapper(ls: LogSink, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(ls, *args, **kwargs)
        except JsonRpcException:
            raise
        except (InvalidParams, RequestFailed) as exc:
            raise as_json_rpc(exc) from None
        except Exception as exc:
            _failed(ls, what, exc, request)
            return None

    return cast(F, wrapper)
