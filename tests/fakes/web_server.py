"""A loopback web server for the web tools' tests: pages, redirects, caps, charsets, errors,
and the three search back-ends' documented JSON (each checking its auth header).

It runs aiohttp on its own event loop in a thread, so a test's own loop (``asyncio.run``, the kernel's)
talks to it as it would to a real server. Every request is logged for the tests to assert on.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

from aiohttp import web

ARTICLE = """<!doctype html><html><head><title>Tide tables explained</title>
<script>window.tracking = "SCRIPT-TEXT-LEAK";</script><style>.x{color:red}</style></head>
<body><nav><a href="/">Home</a> <a href="/about">About us</a> NAV-CHROME</nav>
<div class="cookie-banner">We use cookies COOKIE-CHROME</div>
<article><h1>Tide tables explained</h1><p class="byline">By Ann Shore</p>
""" + "".join(f"<p>Paragraph {i}: the moon pulls the sea, and the tide table tells you when the water is high "
              f"and low at each port along the coast. See <a href=\"../guides/part{i}.html\">part {i}</a>.</p>"
              for i in range(6)) + """
<h2>Reading a table</h2><pre><code>high 06:12 4.1m</code></pre>
<blockquote>Time and tide wait for no one.</blockquote><img src="/img/chart.png" alt="chart"></article>
<aside>Related: RELATED-CHROME</aside><footer>Footer FOOTER-CHROME</footer></body></html>"""
LINKS = '<html><body><ul><li><a href="/a">Alpha</a></li><li><a href="b">Beta</a></li></ul>' \
        '<script>SCRIPT-TEXT-LEAK</script></body></html>'
BRAVE_KEY = "BSA-test-brave-key-123456"
TAVILY_KEY = "tvly-test-tavily-key-123456"


class WebFake:
    """``with WebFake() as fake: fake.url("/page")``; ``fake.requests`` lists (method, path, headers)."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, str], Any]] = []
        self.port = 0
        self.redirect_target = "http://10.1.2.3/secret"  # where /to-private sends a client
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._stop: asyncio.Event | None = None
        self._runner: web.AppRunner | None = None

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def __enter__(self) -> "WebFake":
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(timeout=30)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._close(), self._loop).result(timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=30)
        self._loop.close()

    async def _start(self) -> None:
        self._stop = asyncio.Event()
        app = web.Application(middlewares=[self._log])
        r = app.router

        def get(path: str, make: Any) -> None:  # a plain function of the request, as a coroutine handler
            async def handler(request: web.Request) -> web.StreamResponse:
                return make(request)

            r.add_get(path, handler)

        get("/page", lambda q: _html(ARTICLE))
        get("/guides/links", lambda q: _html(LINKS))
        get("/text", lambda q: web.Response(text="plain words\nsecond line", content_type="text/plain"))
        get("/json", lambda q: web.Response(body=b'{"a": [1, 2], "b": "x"}', content_type="application/json"))
        get("/bin", lambda q: web.Response(body=bytes(range(256)) * 8, content_type="image/png"))
        r.add_get("/redirect/{n}", self._redirect)
        get("/to-private", lambda q: web.Response(status=302, headers={"Location": self.redirect_target}))
        get("/to-ftp", lambda q: web.Response(status=302, headers={"Location": "ftp://example.com/x"}))
        get("/big", lambda q: web.Response(body=b"x" * 100_000, content_type="text/plain"))
        r.add_get("/slow", self._slow)
        r.add_get("/silent", self._silent)
        get("/badcharset", lambda q: web.Response(body="caf\xe9 cr\xe8me".encode("latin-1"),
                                                        headers={"Content-Type": "text/plain; charset=x-nonsense"}))
        get("/latin1", lambda q: web.Response(body="caf\xe9".encode("latin-1"),
                                                    headers={"Content-Type": "text/plain; charset=iso-8859-1"}))
        get("/status/{code}", lambda q: web.Response(status=int(q.match_info["code"]), text="oops page",
                                                           content_type="text/plain"))
        r.add_get("/res/v1/web/search", self._brave)
        r.add_post("/search", self._tavily)
        r.add_get("/search", self._searxng)
        self._runner = web.AppRunner(app, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def _close(self) -> None:
        assert self._stop is not None and self._runner is not None
        self._stop.set()
        await self._runner.cleanup()

    @web.middleware
    async def _log(self, request: web.Request, handler: Any) -> web.StreamResponse:
        body = await request.read() if request.can_read_body else None
        self.requests.append((request.method, request.path_qs, dict(request.headers), body))
        return await handler(request)

    async def _redirect(self, request: web.Request) -> web.Response:
        n = int(request.match_info["n"])
        if n == 0:
            return web.Response(text="arrived", content_type="text/plain")
        return web.Response(status=302, headers={"Location": f"/redirect/{n - 1}"})

    async def _slow(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/plain"})
        await response.prepare(request)
        await response.write(b"first part of a slow body\n")
        assert self._stop is not None
        await self._stop.wait()  # the rest never comes while the test runs
        return response

    async def _silent(self, request: web.Request) -> web.StreamResponse:
        assert self._stop is not None
        await self._stop.wait()  # no reply at all
        return web.Response(text="too late")

    async def _brave(self, request: web.Request) -> web.Response:
        if request.headers.get("X-Subscription-Token") != BRAVE_KEY:
            return web.Response(status=401, text="bad token")
        count = int(request.query.get("count", "20"))
        results = [{"title": f"<strong>Brave</strong> {i}", "url": f"https://brave.example/{i}",
                    "description": f"about <strong>{request.query['q']}</strong> {i}"} for i in range(count)]
        return _json({"type": "search", "web": {"type": "search", "results": results}})

    async def _tavily(self, request: web.Request) -> web.Response:
        if request.headers.get("Authorization") != f"Bearer {TAVILY_KEY}":
            return web.Response(status=401, text="bad token")
        body = json.loads(await request.read())
        results = [{"title": f"Tavily {i}", "url": f"https://tavily.example/{i}", "content": f"{body['query']} {i}",
                    "score": 0.9} for i in range(body["max_results"])]
        return _json({"query": body["query"], "results": results, "response_time": 0.1})

    async def _searxng(self, request: web.Request) -> web.Response:
        if request.query.get("format") != "json":
            return web.Response(status=403, text="Forbidden")
        results = [{"title": f"Searx {i}", "url": f"https://searx.example/{i}", "content": request.query["q"],
                    "engine": "x"} for i in range(30)] + [{"title": "no url"}, "junk"]
        return _json({"query": request.query["q"], "number_of_results": 30, "results": results})


def _html(text: str) -> web.Response:
    return web.Response(text=text, content_type="text/html")


def _json(value: Any) -> web.Response:
    return web.Response(body=json.dumps(value).encode(), content_type="application/json")
