"""The fetch caps saved in Settings → Web are what the kernel's own web_fetch uses, from the next call
on (real kernel, real tool, a loopback server)."""

from __future__ import annotations

from dataclasses import replace

from kernel.leases.approver import Grant
from kernel.core.messages import ToolResultPart
from kernel.providers.scripted import reply
from tests.fakes.web_server import WebFake

from .conftest import run


def results(provider, index: int) -> list[ToolResultPart]:
    return [p for p in provider.requests[index].messages[-1].parts if isinstance(p, ToolResultPart)]


def test_the_kernels_web_fetch_follows_the_settings_in_force(make_env):
    with WebFake() as fake:
        env = make_env(web_allow_private=True, web_fetch_max_redirects=1, web_fetch_max_bytes=2048)
        a = env.kernel.agents.spawn("reader")
        env.kernel.leases.grant(a.id, "net.fetch", 300)
        env.approver.will(Grant(300.0))

        async def go() -> None:
            env.provider.script(reply(tools=(("web_fetch", {"url": fake.url("/redirect/2")}),
                                             ("web_fetch", {"url": fake.url("/big")}))), reply("first"))
            env.kernel.agents.send(a.id, "read")
            await env.kernel.agents.wait(a.id)
            env.kernel.update_settings(replace(env.kernel.settings, web_fetch_max_redirects=2,
                                               web_fetch_max_bytes=4096))
            env.provider.script(reply(tools=(("web_fetch", {"url": fake.url("/redirect/2")}),
                                             ("web_fetch", {"url": fake.url("/big")}))), reply("second"))
            env.kernel.agents.send(a.id, "again")
            await env.kernel.agents.wait(a.id)

        run(go())
    hops, big = results(env.provider, 1)
    assert hops.is_error and "more than 1 redirect (the limit in Settings → Web)" in hops.content
    assert not big.is_error and "only the first 2,048 bytes of 100,000" in big.content
    hops, big = results(env.provider, 3)
    assert not hops.is_error and "arrived" in hops.content
    assert "only the first 4,096 bytes" in big.content
