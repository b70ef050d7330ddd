"""SSE framing and the per-protocol error-type tables shared by the encoders."""

from __future__ import annotations

import json


def dumps(obj) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def frame(data, event: str | None = None) -> bytes:
    """One SSE frame. `data: ` always has the space (Gemini needs it)."""
    payload = data if isinstance(data, str) else dumps(data)
    head = f"event: {event}\n" if event is not None else ""
    # A lone surrogate can only sit in a JSON string: it goes out as the escape a model would send ("\ud800").
    return f"{head}data: {payload}\n\n".encode("utf-8", "backslashreplace")


ANTHROPIC_KINDS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}

OPENAI_KINDS = {  # status -> (type, code)
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", None),
    503: ("server_error", None),
}

GEMINI_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    408: "DEADLINE_EXCEEDED",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    501: "NOT_IMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def anthropic_error_body(status: int, message: str, kind: str | None = None) -> dict:
    if kind is None:
        kind = ANTHROPIC_KINDS.get(status, "api_error" if status >= 500 else "invalid_request_error")
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_fake"}


def openai_error_body(status: int, message: str, kind: str | None = None) -> dict:
    typ, code = OPENAI_KINDS.get(status, ("server_error" if status >= 500 else "invalid_request_error", None))
    if kind is not None:
        typ = kind
    return {"error": {"message": message, "type": typ, "param": None, "code": code}}


def gemini_error_body(status: int, message: str, kind: str | None = None) -> dict:
    if kind is None:
        kind = GEMINI_STATUS.get(status, "INTERNAL" if status >= 500 else "FAILED_PRECONDITION")
    return {"error": {"code": status, "message": message, "status": kind}}
