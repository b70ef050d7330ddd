"""Loopback fake LLM provider for tests and benchmarks (see README.md)."""

from .provider_server import PROTOCOLS, FakeProviderServer, Request
from .turns import Cut, ErrorEvent, Fault, HttpError, Text, ToolCall, Turn, Usage

__all__ = [
    "FakeProviderServer",
    "Request",
    "PROTOCOLS",
    "Turn",
    "Text",
    "ToolCall",
    "Usage",
    "HttpError",
    "Cut",
    "ErrorEvent",
    "Fault",
]
