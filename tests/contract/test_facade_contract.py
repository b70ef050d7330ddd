"""The facade contract: one abstract suite of behaviour, run against both backends of ``KernelFacade``.

``FacadeContract`` says what any kernel facade does, through the desks only (``kernel.agents``,
``kernel.leases``, ``kernel.ledger``, ``kernel.outward``, ``kernel.automations``): spawn, send and wait with
the scripted provider; kill revokes the agent's leases; a lease request is asked, answered and its lease
revoked; the ledger pages, counts, diffs and undoes; the outward and automations desks list and change;
unknown agents and bad params are refused with the same errors. ``TestInProcess`` runs it on ``Kernel``
itself, ``TestOverSocket`` on ``RemoteKernel`` over a real socket to a served kernel, the path the shipped
desktop takes (tests/contract/backends.py). A behaviour that differs between the two fails on one of them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Iterator

import pytest

from kernel.api import (
    AgentState, Automation, ChainIntact, ChannelConfig, ChannelPolicy, ConfigError, Event, FileChange, Grant, Intact,
    ImagePart, InvalidState, KernelError, KernelFacade,
    LeaseRequested, LedgerError, LedgerFilter, PolicyItem, ScheduleRefused, UnknownAgent,
)
from kernel.providers.scripted import reply
from tests.contract.backends import InProcess, OverSocket


def events_of(facade: KernelFacade, kind: type) -> "asyncio.Queue[Any]":
    """A queue of the facade's events of ``kind``, from now on (delivered on the test's loop)."""
    queue: asyncio.Queue[Any] = asyncio.Queue()
    facade.subscribe(lambda e: queue.put_nowait(e) if isinstance(e, kind) else None)
    return queue


class FacadeContract:
    """What every ``KernelFacade`` does. A subclass provides the ``backend`` fixture."""

    @pytest.fixture
    def backend(self, tmp_path: Path) -> Iterator[Any]:  # pragma: no cover - each backend says
        raise NotImplementedError

    # ---- agents ----------------------------------------------------------------------

    def test_spawn_send_and_wait_run_a_turn_with_the_scripted_provider(self, backend: Any) -> None:
        backend.provider.script(reply("Hello, Ada."))

        async def body(k: KernelFacade) -> None:
            info = k.agents.spawn("scribe", provider="scripted", model="m", budget=5000)
            assert (info.name, info.state, info.budget) == ("scribe", AgentState.IDLE, 5000)
            assert [a.id for a in k.agents.list()] == [info.id]
            assert k.agents.get(info.id) == info
            k.agents.send(info.id, "Say hello.")
            done = await k.agents.wait(info.id)
            assert done.state is AgentState.IDLE and done.input_tokens == 10 and done.output_tokens == 5
            roles = [(m.role, "".join(getattr(p, "text", "") for p in m.parts)) for m in k.agents.conversation(info.id)]
            assert roles == [("user", "Say hello."), ("assistant", "Hello, Ada.")]
            assert k.agents.spend_today().tokens == 15

        backend.run(body)

    def test_attached_pictures_go_with_the_message_and_only_those(self, backend: Any) -> None:
        import base64
        import io

        from PIL import Image

        from kernel.api import ImagePart, Thumbnail
        from tests.images.pictures import screenshot

        backend.provider.script(reply("I cannot see it."))
        shot = base64.b64encode(screenshot(1800, 1200)).decode()

        async def body(k: KernelFacade) -> None:
            info = k.agents.spawn("viewer", provider="scripted", model="m", budget=5000)
            image = await k.agents.attach_image(info.id, shot, "paste", "pasted image")
            assert isinstance(image, ImagePart) and (image.width, image.height) == (1313, 875)
            with pytest.raises(ValueError):
                await k.agents.attach_image(info.id, "not base64!", "paste")
            forged = ImagePart("00" * 32, "image/png", 1, 1, 1, "paste")
            with pytest.raises(ValueError):
                k.agents.send(info.id, "look", (forged,))
            k.agents.send(info.id, "look", (image,))
            await k.agents.wait(info.id)
            first = k.agents.conversation(info.id)[0]
            assert first.images == (image,)
            stored = await k.ledger.picture(image.sha256)
            assert stored is not None and base64.b64decode(stored).startswith(b"\x89PNG")
            assert await k.ledger.picture("../../etc/passwd") is None
            assert await k.ledger.picture("00" * 32) is None
            thumb = await k.ledger.thumbnail(image.sha256, 64)  # bounded: a thumbnail crosses, never the file
            assert isinstance(thumb, Thumbnail) and (thumb.media_type, thumb.width, thumb.height) == (
                "image/png", 1313, 875)
            assert Image.open(io.BytesIO(base64.b64decode(thumb.data_b64))).size == (64, 43)
            assert await k.ledger.thumbnail("00" * 32) is None and await k.ledger.thumbnail("../x") is None

        backend.run(body)
        # a model that cannot see (the scripted provider's) was sent the one-line placeholder
        sent = backend.provider.requests[0].messages[0].parts
        assert sent[1].text == "[image 1313\u00d7875 png from pasted image: this model cannot see images]"

    def test_a_route_is_given_at_spawn_and_another_vendor_needs_the_opt_in(self, backend: Any) -> None:
        backend.provider.script(reply("Routed."))

        async def body(k: KernelFacade) -> None:
            with pytest.raises(ConfigError, match="another vendor"):
                k.agents.spawn("shy", provider="scripted", model="m", fallbacks=("anthropic:claude-haiku-4-5",))
            info = k.agents.spawn("routed", provider="scripted", model="m", fallbacks=("anthropic:claude-haiku-4-5",),
                                  any_vendor=True)
            assert info.degraded == ""
            k.agents.send(info.id, "Go.")
            assert (await k.agents.wait(info.id)).state is AgentState.IDLE
            [request] = k.ledger.page(LedgerFilter(actor=info.id, kind="request"))
            assert (request.requested_provider, request.requested_model, request.served_provider,
                    request.served_model, request.attempt) == ("scripted", "m", "scripted", "m", 1)

    def test_compact_summarizes_on_the_record_and_the_focus_is_no_turn(self, backend: Any) -> None:
        backend.provider.script(reply("First answer."), reply("Second answer."),
                                reply("The user asked twice; both answered."), reply("Third answer."))

        async def body(k: KernelFacade) -> None:
            info = k.agents.spawn("talker", provider="scripted", model="m", budget=50_000)
            for text in ("one", "two"):
                k.agents.send(info.id, text)
                await k.agents.wait(info.id)
            k.agents.compact(info.id, "keep the numbers")
            done = await k.agents.wait(info.id)
            assert done.state is AgentState.IDLE and done.reason == ""
            [entry] = k.ledger.page(LedgerFilter(kind="compaction"))
            assert entry.mode == "summary" and entry.trigger == "manual" and entry.focus == "keep the numbers"
            first = k.agents.conversation(info.id)[0]
            assert first.role == "user" and "both answered" in first.parts[0].text
            assert "keep the numbers" not in first.parts[0].text  # recorded, never replayed as a user turn
            k.agents.compact(info.id)  # right after one, with no request between: never two in a row
            assert "nothing to summarize" in (await k.agents.wait(info.id)).reason
            k.agents.send(info.id, "three")
            assert (await k.agents.wait(info.id)).state is AgentState.IDLE
            assert len(k.ledger.page(LedgerFilter(kind="compaction"))) == 1

        backend.run(body)

    def test_pause_resume_raise_budget_archive_and_revive(self, backend: Any) -> None:
        async def body(k: KernelFacade) -> None:
            info = k.agents.spawn("sleeper", provider="scripted", model="m", budget=1000)
            k.agents.pause(info.id)
            assert k.agents.get(info.id).state is AgentState.PAUSED
            k.agents.resume(info.id)
            assert k.agents.get(info.id).state is AgentState.IDLE
            assert k.agents.raise_budget(info.id, 9000).budget == 9000
            assert k.agents.archive(info.id).id == info.id
            assert k.agents.list() == []
            assert [h.id for h in k.agents.history("sleeper")] == [info.id]
            assert k.agents.history("nobody-by-that-name") == []
            assert k.agents.revive(info.id).id == info.id
            assert [a.id for a in k.agents.list()] == [info.id]

        backend.run(body)

    def test_kill_is_final_recorded_by_the_user_and_revokes_the_agents_leases(self, backend: Any) -> None:
        async def body(k: KernelFacade) -> None:
            info = k.agents.spawn("doomed", provider="scripted", model="m")
            lease = k.leases.grant(info.id, "fs.read", 300.0)
            assert (lease.subject, lease.scope) == (info.id, "fs.read")
            assert [x.id for x in k.leases.list(info.id)] == [lease.id]
            killed = k.agents.kill(info.id)
            assert killed.state is AgentState.KILLED
            assert k.leases.list(info.id) == [] and k.leases.list() == []
            kills = k.ledger.page(LedgerFilter(kind="agent.kill"))
            assert [(e.actor, getattr(e, "subject", None)) for e in kills] == [("user", info.id)]
            with pytest.raises(InvalidState):
                k.agents.send(info.id, "are you there?")

        backend.run(body)

    # ---- leases ----------------------------------------------------------------------

    def test_a_lease_request_is_pending_until_resolved_and_its_lease_can_be_revoked(self, backend: Any) -> None:
        (backend.workspace / "notes.txt").write_text("one\n")
        backend.provider.script(reply(tools=(("fs_read", {"path": "notes.txt"}),)), reply("It says one."))

        async def body(k: KernelFacade) -> None:
            asked = events_of(k, LeaseRequested)
            info = k.agents.spawn("reader", provider="scripted", model="m")
            k.agents.send(info.id, "Read notes.txt")
            request = (await asked.get()).request
            assert [r.id for r in k.leases.pending()] == [request.id]
            assert (request.agent_id, request.scope) == (info.id, "fs.read")
            assert k.leases.resolve(request.id, Grant(600.0)) is True
            assert k.leases.resolve(request.id, Grant(600.0)) is False  # no longer open
            assert k.leases.resolve(999_999, Grant(600.0)) is False  # never asked
            done = await k.agents.wait(info.id)
            assert done.state is AgentState.IDLE and k.leases.pending() == []
            [lease] = k.leases.list(info.id)
            assert lease.scope == "fs.read"
            revoked = k.leases.revoke(lease.id)
            assert revoked is not None and revoked.id == lease.id
            assert k.leases.list(info.id) == []
            assert k.leases.revoke(lease.id) is None  # already gone

        backend.run(body)

    # ---- ledger ----------------------------------------------------------------------

    def test_the_ledger_pages_counts_diffs_and_undoes_a_file_change(self, backend: Any) -> None:
        target = backend.workspace / "a.txt"
        backend.provider.script(reply(tools=(("fs_write", {"path": "a.txt", "content": "new\n"}),)), reply("Done."))

        async def body(k: KernelFacade) -> None:
            before = k.ledger.last_seq()
            info = k.agents.spawn("writer", provider="scripted", model="m")
            k.leases.grant(info.id, "fs.write", 300.0)
            k.agents.send(info.id, "Write a.txt")
            assert (await k.agents.wait(info.id)).state is AgentState.IDLE
            assert target.read_text() == "new\n"
            assert k.ledger.count() == k.ledger.last_seq() > before
            newest = k.ledger.page(limit=3)
            assert len(newest) == 3 and newest[0].seq == k.ledger.last_seq()
            assert [e.seq for e in newest] == sorted((e.seq for e in newest), reverse=True)
            assert [e.seq for e in k.ledger.page(before=newest[0].seq, limit=2)] == [e.seq for e in newest[1:]]
            [change] = k.ledger.page(LedgerFilter(actor=info.id, kind="fs.write"))
            assert isinstance(change, FileChange) and change.path == str(target)
            assert "+new" in k.ledger.diff(change.seq)
            assert k.ledger.undone_by([change.seq]) == {}
            tool_call = next(e for e in k.ledger.page(LedgerFilter(kind="tool")))
            assert change.seq in [e.seq for e in k.ledger.caused_by(tool_call.seq)]
            preview = k.ledger.undo(change.seq - 1, dry_run=True)
            assert target.read_text() == "new\n"  # a dry run changes nothing
            report = k.ledger.undo(change.seq - 1)
            assert preview.dry_run and preview.undo_seq is None and preview.files == [str(target)]
            assert report.ok and report.undo_seq is not None and report.files == preview.files
            assert not target.exists()  # a.txt did not exist before the agent wrote it
            assert set(k.ledger.undone_by([change.seq])) == {change.seq}
            with pytest.raises(LedgerError):
                k.ledger.diff(tool_call.seq)  # not a file change
            assert isinstance(k.ledger.integrity(), Intact)

        backend.run(body)

    # ---- outward and automations -------------------------------------------------------

    def test_outward_lists_nothing_unknown_and_refuses_to_settle_what_it_does_not_know(self, backend: Any) -> None:
        async def body(k: KernelFacade) -> None:
            assert k.outward.unknown() == []
            with pytest.raises(LedgerError):  # no such entry
                k.outward.settle(424242, True)
            with pytest.raises(LedgerError):
                await k.outward.recheck(424242)

        backend.run(body)

    def test_no_mcp_question_is_open_and_an_answer_to_none_is_refused(self, backend: Any) -> None:
        async def body(k: KernelFacade) -> None:
            assert k.extensions.questions() == []
            assert k.extensions.answer_question(4242, "accept", {"name": "Ada", "count": 2}) is False

        backend.run(body)

    # ---- MCP resources and prompts (a real stdio server: tests/extensions/mcp_resource_server.py) ---------

    def test_an_mcp_resource_and_prompt_are_listed_attached_and_sent_as_untrusted_context(self, backend: Any) -> None:
        import sys

        from kernel.extensions.mcp_config import McpServerConfig
        from tests.extensions.test_mcp_resources import RESOURCE_SERVER

        backend.start_mcp([McpServerConfig("r", command=sys.executable, args=(str(RESOURCE_SERVER),), timeout_s=30)])
        backend.provider.script(reply("Seen."))

        async def body(k: KernelFacade) -> None:
            resources = {r.uri: r for r in await k.extensions.mcp_resources()}
            assert resources["note://today"].name == "today" and resources["note://today"].server == "r"
            prompts = {p.command: p for p in await k.extensions.mcp_prompts()}
            assert set(prompts) == {"/r:review", "/r:hello"}
            assert await k.extensions.mcp_complete("r", "review", "path", "t") == ["todo.md"]
            info = k.agents.spawn("reader", provider="scripted", model="m", budget=5000)
            attached = await k.extensions.mcp_attach(info.id, "r", "note://today")
            assert (attached.server, attached.uri, attached.subscribed) == ("r", "note://today", True)
            picture = await k.extensions.mcp_attach(info.id, "r", "pic://dot")
            assert picture.images == 1  # fitted and kept: shown with the message, untrusted
            with pytest.raises(ValueError, match="needs path"):
                await k.extensions.mcp_use_prompt(info.id, "/r:review")
            with pytest.raises(ValueError, match="no MCP server named nope"):
                await k.extensions.mcp_use_prompt(info.id, "/nope:x")
            used = await k.extensions.mcp_use_prompt(info.id, "/r:hello")
            assert (used.prompt, used.messages) == ("hello", 1)
            k.agents.send(info.id, "Read these.")
            assert (await k.agents.wait(info.id)).state is AgentState.IDLE
            parts = k.agents.conversation(info.id)[0].parts
            first = "".join(getattr(p, "text", "") for p in parts)
            [image] = [p for p in parts if isinstance(p, ImagePart)]
            assert (image.width, image.height, image.untrusted, image.origin) == (40, 30, True, "mcp")
            assert first.startswith("Read these.")
            assert '<untrusted source="MCP server r, resource note://today"' in first and "water the plants" in first
            assert '<untrusted source="MCP server r, prompt hello"' in first and "Hello from the server" in first
            assert k.agents.get(info.id).tainted

        backend.run(body)

    def test_automations_are_added_listed_paused_and_deleted_by_the_user(self, backend: Any) -> None:
        async def body(k: KernelFacade) -> None:
            assert k.automations.list() == [] and k.automations.inbox() == []
            assert isinstance(k.automations.integrity(), ChainIntact)
            made = k.automations.add(Automation(id="", name="Digest", objective="Summarise the inbox",
                                                schedule="0 7 * * *", policy=(PolicyItem("fs.read", 600.0),),
                                                workspace=str(backend.workspace)))
            assert made.id and made.enabled
            assert k.automations.get(made.id) == made
            assert [v.automation.id for v in k.automations.list()] == [made.id]
            assert k.automations.pause(made.id).enabled is False
            assert k.automations.resume(made.id).enabled is True
            k.automations.delete(made.id)
            assert k.automations.list() == []
            assert [(action, who) for _t, action, who in k.automations.history(made.id)] == [
                ("create", "user"), ("pause", "user"), ("resume", "user"), ("delete", "user")]
            with pytest.raises(KernelError):
                k.automations.get("no-such-automation")
            with pytest.raises(ScheduleRefused, match="less than one hour apart"):  # at most once an hour
                k.automations.check(Automation(id="", name="Too often", objective="o", schedule="*/5 * * * *"))

        backend.run(body)

    def test_channels_are_added_listed_and_removed_and_a_bad_code_is_refused(self, backend: Any) -> None:
        async def body(k: KernelFacade) -> None:
            assert k.channels.list() == [] and k.channels.pending() == [] and k.channels.paired() == []
            view = await k.channels.add(ChannelConfig(name="web", kind="webchat", listen="127.0.0.1:0",
                                                      policy=(ChannelPolicy("fs.read", 600.0),)))
            assert view.running and view.address.startswith("http://127.0.0.1:") and view.config.name == "web"
            assert [v.config for v in k.channels.list()] == [view.config]
            assert (await k.channels.test("web")).startswith("serving http://127.0.0.1:")
            with pytest.raises(KernelError, match="no pending pairing code"):
                k.channels.approve("ABCDEFGH")
            with pytest.raises(KernelError, match="no pending pairing code"):
                k.channels.deny("ABCDEFGH")
            lobby = await k.channels.add(ChannelConfig(name="lobby", kind="webchat", listen="127.0.0.1:0",
                                                       access="open"))
            assert lobby.config.open and await k.channels.remove("lobby") is True
            with pytest.raises(KernelError, match="access is pairing or open"):
                await k.channels.add(ChannelConfig(name="any", kind="webchat", access="*"))
            assert k.channels.revoke("web", "dm", "nobody", "nobody") is False
            with pytest.raises(KernelError, match="unknown channel kind"):
                await k.channels.add(ChannelConfig(name="irc", kind="irc"))
            assert await k.channels.remove("web") is True and k.channels.list() == []

        backend.run(body)

    # ---- errors -------------------------------------------------------------------------

    def test_an_unknown_agent_is_refused_by_every_agent_method(self, backend: Any) -> None:
        async def body(k: KernelFacade) -> None:
            for call in (lambda: k.agents.get("nobody"), lambda: k.agents.send("nobody", "hi"),
                         lambda: k.agents.kill("nobody"), lambda: k.agents.pause("nobody"),
                         lambda: k.agents.raise_budget("nobody", 10), lambda: k.agents.conversation("nobody")):
                with pytest.raises(UnknownAgent) as refused:
                    call()
                assert refused.value.agent_id == "nobody"
            with pytest.raises(UnknownAgent):
                await k.agents.wait("nobody")

        backend.run(body)

    def test_bad_params_are_refused_before_anything_is_done(self, backend: Any) -> None:
        async def body(k: KernelFacade) -> None:
            with pytest.raises(ValueError):
                k.agents.spawn("broke", provider="scripted", model="m", budget=-5)
            assert k.agents.list() == []
            info = k.agents.spawn("quiet", provider="scripted", model="m")
            with pytest.raises(ValueError):
                k.agents.send(info.id, "   ")
            assert k.agents.get(info.id).state is AgentState.IDLE
            assert len(k.agents.conversation(info.id)) == 0

        backend.run(body)


class TestInProcess(FacadeContract):
    @pytest.fixture
    def backend(self, tmp_path: Path) -> Iterator[InProcess]:
        b = InProcess(tmp_path)
        yield b
        b.close()


class TestOverSocket(FacadeContract):
    @pytest.fixture
    def backend(self, tmp_path: Path) -> Iterator[OverSocket]:
        b = OverSocket(tmp_path)
        yield b
        b.close()


_ = Event  # the events the suite waits for are kernel.api values on both backends
