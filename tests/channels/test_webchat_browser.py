"""WebChat in a real headless browser (Debian's chromium driven by Playwright), and a hijack from another
local origin: the page gets a pairing code, then the agent's reply; a page served from another local port
that tries to open the WebSocket (with a token it stole, even) is refused, and the ledger records nothing.
"""

from __future__ import annotations

import shutil

import pytest
from aiohttp import web

from kernel.channels.model import ChannelConfig
from kernel.providers.scripted import reply
from ledger import ChannelMessage, PairingRequest

from .conftest import until

CHROMIUM = shutil.which("chromium")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (scripts/bootstrap.sh test)")

HIJACK = """<!doctype html><script>
const target = new URLSearchParams(location.search).get("target");
const token = new URLSearchParams(location.hash.slice(1)).get("t");
const ws = new WebSocket(target, ["agentdesk", "token." + token]);
ws.onopen = () => { ws.send(JSON.stringify({type: "message", id: "evil", text: "rm -rf ~"}));
                    document.title = "opened"; };
ws.onerror = () => { document.title = "refused"; };
fetch(target.replace("ws:", "http:").replace("/ws", "/session"), {method: "POST"})
  .then(r => { document.body.dataset.session = String(r.status); })
  .catch(() => { document.body.dataset.session = "blocked"; });
</script>"""


async def hijack_page(_request: web.Request) -> web.Response:
    return web.Response(text=HIJACK, content_type="text/html")


async def serve_hijack() -> tuple[web.AppRunner, str]:
    app = web.Application()
    app.router.add_get("/", hijack_page)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"  # type: ignore[union-attr]


def test_the_page_pairs_and_chats_and_a_page_from_another_origin_is_refused(make_env):
    from playwright.async_api import async_playwright

    env = make_env()
    view = env.run(env.kernel.channels.add(ChannelConfig(name="web", kind="webchat", listen="127.0.0.1:0")))
    base = view.address.rstrip("/")

    async def browse() -> None:
        runner, evil = await serve_hijack()
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            try:
                page = await browser.new_page()
                await page.goto(view.address)
                # the page's CSP forbids eval, so the test waits with locators (no script of its own)
                await page.locator("body[data-ready='1']").wait_for()
                assert "#t=" in page.url and "?" not in page.url  # the token is in the fragment only
                token = page.url.split("#t=", 1)[1]
                await page.fill("#text", "hello from the browser")
                await page.press("#text", "Enter")
                await page.locator("#log").get_by_text("Pairing code").wait_for()
                env.provider.script(reply("Hello, browser."))
                env.kernel.channels.approve(env.entries(PairingRequest.KIND)[0].code)
                await page.locator("#log").get_by_text("Hello, browser.").wait_for()
                # the hijack: another local origin, holding even the real session token
                bad = await browser.new_page()
                await bad.goto(f"{evil}/?target={base.replace('http', 'ws')}/ws#t={token}")
                await bad.wait_for_function("document.title === 'refused' || document.title === 'opened'")
                assert await bad.title() == "refused"
                await bad.wait_for_function("document.body.dataset.session !== undefined")
                assert await bad.evaluate("document.body.dataset.session") in ("403", "blocked")
            finally:
                await browser.close()
                await runner.cleanup()

    env.run(browse())
    env.run(until(lambda: not env.kernel.channels._tasks))
    [entry] = env.entries(ChannelMessage.KIND)
    assert entry.text == "hello from the browser" and entry.message_id != "evil"
    assert env.kernel.channels.adapters["web"].refused >= 1
    env.provider.assert_done()
