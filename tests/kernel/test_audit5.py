"""Holes a fresh attacker's review found in the authority boundary (session 5), one test each."""

from __future__ import annotations

from kernel.providers.scripted import reply
from ledger import LeaseRevoke

from .conftest import GRANT_5M, run


def test_archiving_an_agent_ends_its_leases_and_continuing_does_not_bring_them_back(make_env):
    env = make_env()
    env.provider.script(reply("hello"), reply(tools=(("fs_read", {"path": "a.txt"}),)), reply("read it"))
    (env.workspace / "a.txt").write_text("a\n")
    a = env.kernel.spawn("quiet")
    lease = env.kernel.grant_lease(a.id, "fs.read", 3600)

    async def first():
        env.kernel.send(a.id, "hi")
        await env.kernel.wait(a.id)

    run(first())
    env.kernel.archive(a.id)
    # out of the process table, nobody sees its leases to revoke them: they end with the archive
    assert env.kernel.leases(a.id) == []
    [revoke] = env.ledger.page(kind=LeaseRevoke.KIND)
    assert (revoke.lease, revoke.actor) == (lease.id, "user")

    env.kernel.revive(a.id)
    assert env.kernel.leases(a.id) == []
    env.approver.will(GRANT_5M)

    async def again():
        env.kernel.send(a.id, "read a.txt")
        await env.kernel.wait(a.id)

    run(again())
    assert [r.scope for r in env.approver.requests] == ["fs.read"]  # asked again, not carried over
