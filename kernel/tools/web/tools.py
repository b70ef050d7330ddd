"""``web_fetch`` and ``web_search``: the two network-read tools (R2, untrusted output).

Both read Settings at each call (a change in Settings → Web applies to the
next call), both mark what they return as untrusted content from where it
came (``ToolOutput.source``; the executor wraps it in provenance markers and
taints the agent), and both report a refusal or a failure as a result the
model reads. What the model reads starts with the URL it came from and ends
with what was cut, so a cut page is never mistaken for the whole. A server's
error page (HTTP 4xx/5xx) is an error result that quotes the page: the
failure carries its ``source``, so the executor wraps and records it like a
page that loaded, and the agent that read it is tainted all the same.
One agent turn reads at most ``TURN_CALLS`` size caps from the web over all its
fetches: the fetch past that is cut there, later ones get an error in words.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Mapping

from ...redaction.cuts import finder_of, head_bytes
from ..descriptor import Risk, ToolContext, ToolDescriptor, ToolOutput
from ..fs.common import BOOL, integer, obj, string
from .bound import MAX_ELEMENTS
from .convert import describe, readable
from .errors import WebFailure
from .fetch import FetchLimits, HopCheck, Resolver, TurnBytes, fetch, system_resolver
from .search import DEFAULT_BASE_URLS, MAX_COUNT, SearchConfig, search

FETCH_SCOPE = "net.fetch"
SEARCH_SCOPE = "net.search"
DEFAULT_COUNT = 5
# The body bytes one agent turn may read over all its web_fetch calls, in units of the per-call size cap: 4
# full-size pages (8 MiB at the default 2 MiB cap). Memory per turn is then bounded, not only per call
# (benchmarks/web_turn_bench.py: 11 hostile fetches in one turn).
TURN_CALLS = 4
KeyLookup = Callable[[str], "str | None"]
# HTML conversions run in one thread of their own, one at a time: with a thread per call (asyncio.to_thread) each
# conversion's memory stayed in its thread's malloc arena and 11 fetches of a turn peaked at 352 MB, not 157 MB
# (benchmarks/web_turn_bench.py)
CONVERTER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="web_fetch convert")

FETCH_INPUT = obj({"url": string("the http:// or https:// URL to read")}, required=("url",))
FETCH_OUTPUT = obj({
    "url": {"type": "string"}, "final_url": {"type": "string"}, "status": {"type": "integer"},
    "content_type": {"type": "string"}, "bytes": {"type": "integer", "minimum": 0},
    "redirects": {"type": "array", "items": {"type": "string"}}, "cut": {"type": "array", "items": {"type": "string"}},
    "text": BOOL,
}, required=("url", "final_url", "status", "content_type", "bytes"))
SEARCH_INPUT = obj({
    "query": string("what to search the web for"),
    "count": {**integer(f"how many results (1 to {MAX_COUNT}, default {DEFAULT_COUNT})", minimum=1),
              "maximum": MAX_COUNT},
}, required=("query",))
SEARCH_OUTPUT = obj({
    "backend": {"type": "string"}, "query": {"type": "string"},
    "results": {"type": "array", "items": obj({"title": {"type": "string"}, "url": {"type": "string"},
                                                "snippet": {"type": "string"}}, required=("title", "url", "snippet"))},
}, required=("backend", "query", "results"))


def web_fetch_tool(settings: Callable[[], Any], resolver: Resolver = system_resolver,
                   exempt: frozenset[tuple[str, int]] = frozenset(),
                   hop_refusal: Callable[[str, str], "str | None"] | None = None,
                   max_elements: int = MAX_ELEMENTS) -> ToolDescriptor:
    """The ``web_fetch`` descriptor; ``settings()`` gives the Settings in force at each call.
    ``resolver`` and ``exempt`` (addresses allowed whatever Settings say) are for tests' loopback fakes,
    ``max_elements`` (the most HTML elements converted, ``bound``) for tests and the benchmark;
    ``hop_refusal(agent_id, url)`` judges each redirect as the executor judged the first URL."""

    turns: dict[str, tuple[int, TurnBytes]] = {}  # agent → (its turn, what that turn has read)

    def turn_bytes(ctx: ToolContext | None, max_bytes: int) -> TurnBytes | None:
        if ctx is None:
            return None
        held = turns.get(ctx.agent_id)
        if held is None or held[0] != ctx.turn:
            held = (ctx.turn, TurnBytes(TURN_CALLS * max_bytes))  # a new turn: a new budget (the old one goes)
            turns[ctx.agent_id] = held
        return held[1]

    async def run(ctx: ToolContext, tool_input: Mapping[str, Any]) -> ToolOutput:
        s = settings()
        turn = turn_bytes(ctx, s.web_fetch_max_bytes)
        if turn is not None and turn.left == 0:
            raise _spent(turn)
        limits = FetchLimits(max_bytes=s.web_fetch_max_bytes, timeout_s=s.web_fetch_timeout_s,
                             allow_private=s.web_allow_private, exempt=exempt,
                             max_redirects=s.web_fetch_max_redirects, turn=turn)
        hops: HopCheck | None = None if hop_refusal is None else (lambda url: hop_refusal(ctx.agent_id, url))
        got = await fetch(str(tool_input["url"]), limits, resolver, hops)
        if turn is not None and "turn" in got.cut and not got.body:  # the others of this turn took it all
            raise _spent(turn)
        redactor = ctx.ledger.redactor if ctx is not None else None  # (unit tests run it without a context)
        kept = head_bytes(got.body, got.beyond, finder_of(redactor))  # no half secret left at the size cap
        # off the loop (a big page takes seconds), in the one converting thread (``CONVERTER``)
        text = await asyncio.get_running_loop().run_in_executor(CONVERTER, readable, kept, got.content_type,
                                                                got.charset, got.final_url, max_elements)
        body = text.text if text is not None else describe(got.content_type, len(got.body), got.total_bytes)
        head = f"{got.final_url} — HTTP {got.status} {got.reason}, {got.content_type}, {len(got.body):,} bytes"
        if got.redirects:
            head += f" (redirected from {got.url})"
        notes = [_cut_note(reason, limits, got.total_bytes) for reason in got.cut]
        notes += text.notes if text is not None else ()
        if got.status >= 400:
            notes.insert(0, f"[the server answered HTTP {got.status} {got.reason}: this is its error page]")
        content = "\n\n".join([head, body, *notes])
        if got.status >= 400:  # a failure the model reads, quoting the page: untrusted like any page
            raise WebFailure("http", content, source=f"web_fetch {got.final_url}")
        cut = [*got.cut, *(["markup"] if text is not None and text.notes else [])]  # "markup": see convert.bound
        data = {"url": got.url, "final_url": got.final_url, "status": got.status, "content_type": got.content_type,
                "bytes": len(got.body), "redirects": list(got.redirects), "cut": cut,
                "text": text is not None}
        return ToolOutput(content, data, source=f"web_fetch {got.final_url}")

    return ToolDescriptor(
        name="web_fetch",
        description=("Read a web page or file over http(s). HTML comes back as Markdown (the article, without "
                     "menus), text and JSON as they are; other types are described. Private and local network "
                     "addresses are refused unless the user allows them."),
        input_schema=FETCH_INPUT, output_schema=FETCH_OUTPUT, tool_class="read", scope=FETCH_SCOPE, run=run,
        timeout_s=15 * 60.0,  # the outer limit; the fetch's own time cap (Settings) ends it first
        risk=Risk.NETWORK_READ, trusted=False)


def web_search_tool(settings: Callable[[], Any], key_for: KeyLookup) -> ToolDescriptor:
    """The ``web_search`` descriptor; ``key_for(backend)`` gives the back-end's key (or None)."""

    async def run(ctx: ToolContext, tool_input: Mapping[str, Any]) -> ToolOutput:
        s = settings()
        backend = s.web_search_backend
        config = SearchConfig(backend=backend, base_url=s.web_search_base_url or DEFAULT_BASE_URLS.get(backend, ""),
                              key=key_for(backend) if backend != "none" else None, timeout_s=s.web_fetch_timeout_s)
        query = str(tool_input["query"])
        results = await search(config, query, int(tool_input.get("count", DEFAULT_COUNT)))
        lines = [f"{len(results)} results from {backend} for: {query}"]
        for n, r in enumerate(results, 1):
            lines.append(f"{n}. {r.title or '(no title)'}\n   {r.url}" + (f"\n   {r.snippet}" if r.snippet else ""))
        data = {"backend": backend, "query": query,
                "results": [{"title": r.title, "url": r.url, "snippet": r.snippet} for r in results]}
        return ToolOutput("\n".join(lines), data, source=f"web_search {backend}")

    return ToolDescriptor(
        name="web_search",
        description=("Search the web with the search service the user set up; returns titles, URLs and "
                     "snippets. Read a result with web_fetch."),
        input_schema=SEARCH_INPUT, output_schema=SEARCH_OUTPUT, tool_class="read", scope=SEARCH_SCOPE, run=run,
        timeout_s=15 * 60.0, risk=Risk.NETWORK_READ, trusted=False)


def _spent(turn: TurnBytes) -> WebFailure:
    return WebFailure("budget", f"not fetched: this turn has already read {turn.used:,} bytes from the web, the most "
                                f"one turn may ({TURN_CALLS} times the size cap in Settings → Web). Work with what "
                                "was read, or fetch it in a later turn.")


def _cut_note(reason: str, limits: FetchLimits, total: int | None) -> str:
    if reason == "size":
        whole = f" of {total:,}" if total is not None else ""
        return f"[cut: only the first {limits.max_bytes:,} bytes{whole} were read (the size cap in Settings → Web)]"
    if reason == "time":
        return f"[cut: the body was still arriving after {limits.timeout_s:g} s (the time cap in Settings → Web)]"
    if reason == "turn":
        return (f"[cut: this turn has read all it may from the web ({TURN_CALLS} times the size cap in Settings → "
                "Web, over all its fetches); fetch the rest in a later turn]")
    return "[cut: the connection broke off before the body was complete]"
