"""What only the provider host process adds to the contract: multiplexing, a dying child,
the key kept out of argv, cached message JSON, and who asks for it.

The contract itself (text, tool calls, usage, errors, retries, cancellation) runs through
``ProcessProvider`` and the host protocol in test_contract.py via the ``@pipe`` cases (the child's
serving code on pipes, without a process: tests/providers/inline_host.py).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading

from kernel.core.errors import ProviderError
from kernel.core.messages import Message, TextPart, ToolResultPart, ToolUse, user_text
from kernel.providers.base import ProviderRequest, TextChunk
from kernel.providers.host_protocol import JsonCache, decode_request, request_line
from kernel.providers.process_host import ProcessProvider
from kernel.providers.registry import make_provider
from kernel.providers.retry import RetryingProvider
from kernel.config.settings import Settings
from tests.fakes import Text, Turn
from tests.providers.support import collect
from tests.providers.test_contract import READ, ask


def test_two_concurrent_streams_share_one_host(hosted, srv):
    # Each reply stops after its first delta until this client has the first delta of both
    # streams: they interleave by construction, not by timing (a loaded machine may stall the
    # host for longer than any pause between events). Were the two requests serialised, the
    # first reply would wait out the hold and the streams would arrive one after the other.
    both_started = threading.Event()
    srv.hold_after_first_text(both_started, timeout=10.0)
    srv.script(Turn(parts=(Text("alpha beta gamma delta", chunks=4),)),
               Turn(parts=(Text("one two three four", chunks=4),)))
    provider = hosted.make(srv)

    async def go():
        await provider.warm()
        pid = provider.pid
        arrivals: list[int] = []

        async def consume(which: int) -> str:
            text = ""
            async for event in provider.stream(ask(f"stream {which}")):
                if isinstance(event, TextChunk):
                    arrivals.append(which)
                    text += event.text
                    if set(arrivals) == {0, 1}:
                        both_started.set()
            return text

        try:
            texts = await asyncio.gather(consume(0), consume(1))
            return texts, arrivals, pid, provider.pid
        finally:
            await provider.aclose()

    texts, arrivals, pid_before, pid_after = asyncio.run(go())
    assert sorted(texts) == ["alpha beta gamma delta", "one two three four"]
    assert pid_before is not None and pid_before == pid_after, "both streams should use the one host"
    first_done = min(len(arrivals) - 1 - arrivals[::-1].index(w) for w in (0, 1))
    assert first_done > min(arrivals.index(w) for w in (0, 1)) and set(arrivals[:first_done + 1]) == {0, 1}, (
        f"the streams did not interleave: {arrivals}")
    srv.assert_done()


def test_child_killed_mid_request_is_a_connection_error_and_the_next_request_works(hosted, srv):
    srv.script(Turn(parts=(Text("one two three four five six seven eight", chunks=8),), delay=0.15),
               Turn(parts=(Text("back again"),)))
    provider = hosted.make(srv)

    async def go():
        killed_pid = None
        error = None
        try:
            async for event in provider.stream(ask()):
                if isinstance(event, TextChunk) and killed_pid is None:
                    killed_pid = provider.pid
                    os.kill(killed_pid, signal.SIGKILL)
        except ProviderError as exc:
            error = exc
        again = await collect(provider, ask("again"))
        new_pid = provider.pid
        await provider.aclose()
        return killed_pid, error, again, new_pid

    killed_pid, error, again, new_pid = asyncio.run(go())
    assert error is not None
    assert (error.kind, error.started) == ("connection", True)
    assert "host process exited unexpectedly" in str(error) and "-9" in str(error)
    assert again.error is None and again.text == "back again"
    assert new_pid is not None and new_pid != killed_pid
    assert srv.wait_idle(2.0)


def test_child_dead_before_a_request_is_retried_on_a_new_child(hosted, srv):
    srv.script(Turn(parts=(Text("fresh"),)))
    provider = RetryingProvider(hosted.make(srv), max_retries=2, cap_s=0.0, sleep=lambda s: asyncio.sleep(0))

    async def go():
        await provider.warm()
        inner = provider.inner
        old = inner._host
        os.kill(inner.pid, signal.SIGKILL)
        await old.proc.wait()
        out = await collect(provider, ask())
        await provider.aclose()
        return out

    out = asyncio.run(go())
    assert out.error is None and out.text == "fresh"


def test_the_key_is_not_in_the_childs_argv_or_environment(hosted, srv):
    provider = hosted.make(srv, key="sk-very-secret-key-123")

    async def go():
        await provider.warm()
        pid = provider.pid
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            cmdline = fh.read()
        with open(f"/proc/{pid}/environ", "rb") as fh:
            environ = fh.read()
        proc = provider._host.proc
        await provider.aclose()
        return pid, cmdline, environ, proc.returncode

    pid, cmdline, environ, returncode = asyncio.run(go())
    assert b"kernel.providers.host_main" in cmdline
    assert b"sk-very-secret-key-123" not in cmdline
    assert b"sk-very-secret-key-123" not in environ
    assert returncode is not None, "aclose should stop the child"
    assert not os.path.exists(f"/proc/{pid}/cmdline") or _is_zombie_or_gone(pid)


def _is_zombie_or_gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def test_request_line_round_trips_and_reuses_each_messages_json():
    conversation = (
        user_text("read it"),
        Message("assistant", (TextPart("Reading."), ToolUse("c1", "fs_read", {"path": "a"}, meta={"sig": "x"}))),
        Message("user", (ToolResultPart("c1", "fs_read", "nope", is_error=True),)),
    )
    cache = JsonCache()
    first = ProviderRequest("sys", conversation, (READ,), model="m", max_tokens=77)
    line = request_line(7, first, cache)
    msg = json.loads(line)
    assert msg["id"] == 7 and line.endswith(b"\n") and line.count(b"\n") == 1
    assert decode_request(msg["request"]) == first
    assert len(cache) == 4  # three messages, one tool

    second = ProviderRequest("sys", conversation + (user_text("more"),), (READ,), model="m")
    texts_before = [cache.get(m, None) for m in conversation]  # hits: no encoder needed
    request_line(8, second, cache)
    assert len(cache) == 5
    assert [cache.get(m, None) for m in conversation] == texts_before


def test_json_cache_is_bounded_and_keyed_by_the_object_itself():
    cache = JsonCache(size=2)
    a, b, c = user_text("a"), user_text("b"), user_text("c")
    for m in (a, b, c):
        cache.get(m, lambda m: m.text)
    assert len(cache) == 2
    equal_but_other = user_text("c")
    assert cache.get(equal_but_other, lambda m: "fresh") == "fresh"


def test_make_provider_hosts_the_costly_sdks_only_when_asked():
    settings = Settings()
    hosted = {name: type(make_provider(name, api_key="k", settings=settings, out_of_process=True).inner).__name__
              for name in ("anthropic", "openai", "openai-chat", "gemini")}
    assert hosted == {"anthropic": "AnthropicProvider", "openai": "ProcessProvider",
                      "openai-chat": "ProcessProvider", "gemini": "ProcessProvider"}
    provider = make_provider("gemini", api_key="k", settings=Settings(max_retries=4), out_of_process=True)
    assert isinstance(provider, RetryingProvider) and provider.name == "gemini"
    in_process = make_provider("openai", api_key="k", settings=settings)
    assert not isinstance(in_process.inner, ProcessProvider)  # type: ignore[attr-defined]


class _Store:
    """Just what ``LazyProviders`` reads of a SettingsStore."""

    def __init__(self, base_url: str | None = None) -> None:
        self._base_url = base_url

    def api_key(self, name: str) -> str:
        return "test-key"

    def base_url(self, name: str, settings: Settings) -> str | None:
        return self._base_url


def test_the_desktop_asks_for_hosted_providers():
    from kernel.providers.lazy import LazyProviders

    providers = LazyProviders(_Store(), Settings)  # type: ignore[arg-type]
    assert isinstance(providers("openai").inner, ProcessProvider)  # type: ignore[attr-defined]
    assert not isinstance(providers("anthropic").inner, ProcessProvider)  # type: ignore[attr-defined]


def test_forgotten_provider_host_stops_after_its_open_stream_ends(srv):
    from kernel.providers.lazy import LazyProviders

    srv.script(Turn(parts=(Text("one two three four", chunks=4),), delay=0.05))
    providers = LazyProviders(_Store(srv.openai_base_url), Settings)  # type: ignore[arg-type]

    async def go():
        provider = providers("openai-chat")
        inner = provider.inner
        await provider.warm()
        proc = inner._host.proc
        events = provider.stream(ask())
        first = await events.__anext__()
        providers.forget()  # settings changed while a stream runs through the old provider
        assert proc.returncode is None
        rest = [e async for e in events]
        await providers.aclose()
        return [first, *rest], proc.returncode

    events, returncode = asyncio.run(go())
    assert "".join(e.text for e in events if isinstance(e, TextChunk)) == "one two three four"
    assert returncode is not None, "the retired host should have stopped once its stream ended"


def test_the_parent_side_imports_neither_the_registry_nor_the_child_side():
    """No registry <-> process_host cycle: the registry starts hosts, the child builds adapters."""
    code = ("import sys, kernel.providers.process_host; "
            "print(sorted(m for m in ('kernel.providers.registry', 'kernel.providers.host_child') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=__file__.rsplit("/tests/", 1)[0])
    assert out.stdout.strip() == "[]"
