"""The wire: JSON-RPC 2.0, one object per line, and how kernel errors cross it.

Requests are facade methods (``methods.METHODS``) plus the service's own:
``hello`` (the version handshake, first on every connection), ``subscribe``
(events from a ledger seq on), ``status``, ``shutdown``. Events are
notifications ``event {seq, event}``: ``seq`` is the newest ledger entry the
kernel had recorded when the event was published, so a client that comes
back asks for what followed the last one it saw. ``resync`` tells a client
that fell too far behind that it was dropped and must subscribe again.
A kernel error travels as its class name and fields and is raised again on
the client side as the same class.
"""

from __future__ import annotations

from typing import Any, Mapping

from ledger import LedgerError

from ..core.errors import ConfigError, InvalidState, KernelError, UnknownAgent

VERSION = 1
MAX_LINE = 4 << 20          # bytes; a longer line closes the connection
QUEUE_LIMIT = 20_000        # events waiting for one subscriber before it is told to resync

# JSON-RPC 2.0 error codes (the spec's) and ours (-32000…-32099 are server errors)
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603
KERNEL_ERROR, NOT_HELLO, BAD_VERSION = -32000, -32001, -32002
PEER_REFUSED = -32003  # the connecting process was started by the kernel (kernel.service.peers)


class ServiceError(KernelError):
    """Something went wrong between a client and the kernel service (``code``: the JSON-RPC code)."""

    def __init__(self, message: str, code: int = KERNEL_ERROR) -> None:
        super().__init__(message)
        self.code = code


class NotRunning(ServiceError):
    """No kernel serves this home (nothing listens on its socket)."""


class Disconnected(ServiceError):
    """The kernel went away (or dropped this client) mid-call."""


def request(rid: int, method: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": dict(params or {})}


def notification(method: str, params: Mapping[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": dict(params)}


def result(rid: Any, value: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "result": value}


def error(rid: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    return {"jsonrpc": "2.0", "id": rid, "error": body}


def error_data(exc: BaseException) -> dict[str, Any]:
    """A kernel error as its class and the fields callers branch on."""
    fields = {k: v for k in ("agent_id", "state", "action", "variable", "file", "field", "allowed")
              if isinstance(v := getattr(exc, k, None), str)}
    return {"type": type(exc).__name__, "message": str(getattr(exc, "message", exc)), "fields": fields}


def raise_remote(body: Mapping[str, Any]) -> None:
    """Raise the error a response carries, as the class the kernel raised where there is one."""
    raw_code = body.get("code")
    code = raw_code if isinstance(raw_code, int) else INTERNAL_ERROR
    message = str(body.get("message", "the kernel refused the call"))
    raw_data = body.get("data")
    data: Mapping[str, Any] = raw_data if isinstance(raw_data, dict) else {}
    kind, text = data.get("type"), str(data.get("message", message))
    raw_fields = data.get("fields")
    f = {k: v for k, v in (raw_fields if isinstance(raw_fields, dict) else {}).items() if isinstance(v, str)}
    if kind == "UnknownAgent" and "agent_id" in f:
        raise UnknownAgent(f["agent_id"])
    if kind == "InvalidState" and {"agent_id", "state", "action"} <= set(f):
        raise InvalidState(f["agent_id"], f["state"], f["action"])
    if kind == "ConfigError":
        raise ConfigError(text, f.get("variable"), file=f.get("file"), field=f.get("field"), allowed=f.get("allowed"))
    if kind in ("ValueError", "ParamsError", "CodecError"):
        raise ValueError(text)
    if kind == "ScheduleRefused":  # the automation form shows the kernel's sentence, attached or not
        from ..automations.schedule import ScheduleRefused

        raise ScheduleRefused(text)
    if kind is not None and kind.endswith("Error") and kind not in ("KernelError", "ServiceError") and code == KERNEL_ERROR:
        if kind in _LEDGER_ERRORS:
            raise LedgerError(text)
    raise ServiceError(text, code)


_LEDGER_ERRORS = frozenset({"LedgerError", "LedgerUnavailable", "UnknownSeq", "UnknownBlob", "CorruptBlob",
                            "NotAFileChange", "UnknownKind", "NewerVersion"})
