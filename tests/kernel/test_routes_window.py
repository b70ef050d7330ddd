"""A conversation too long for its model (issue 25): compaction first, then a model with a larger window.

Each provider's own context-length error, through its real SDK and the loopback fakes: the request is made
smaller (a summary, recorded) and retried once; still too long, the rest of the turn goes to the route's
first model whose window (the catalog's) is larger, with the route reason saying why. Any other rejected
request never falls over, and a route without a larger window fails as before.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.providers.catalog import window_of
from ledger import Compaction, ModelRequest
from tests.fakes import HttpError, Turn

from .conftest import run
from .routes_env import route_env
from .test_routes import ok

# each API's words for a request over the model's window (the status and error type it uses)
TOO_LONG = {
    "anthropic": HttpError(400, message="prompt is too long: 210000 tokens > 200000 maximum",
                           kind="invalid_request_error"),
    "openai": HttpError(400, message="Your input exceeds the context window of this model. Please adjust your "
                                     "input and try again.", kind="invalid_request_error"),
    "gemini": HttpError(400, message="The input token count (1200000) exceeds the maximum number of tokens "
                                     "allowed (131072).", kind="INVALID_ARGUMENT"),
}
# (primary, its fallback with a larger window, whether that is another vendor)
ROUTES = {
    "anthropic": ("anthropic:claude-sonnet-4-5", "gemini:gemini-2.5-pro", True),
    "openai": ("openai:gpt-5", "openai:gpt-4.1", False),
    "gemini": ("gemini:gemini-exp-1206", "gemini:gemini-2.5-pro", False),  # not in the table: 128k
}


def _spawn(env, primary: str, fallback: str, any_vendor: bool):
    provider, _, model = primary.partition(":")
    return env.kernel.agents.spawn("long", provider=provider, model=model, fallbacks=(fallback,),
                                   any_vendor=any_vendor)


@pytest.mark.parametrize("vendor", list(TOO_LONG))
def test_still_too_long_after_compaction_goes_to_a_larger_window(tmp_path: Path, agentdesk_home: Path,
                                                                 vendor: str) -> None:
    primary, fallback, other_vendor = ROUTES[vendor]
    too_long = Turn(fault=TOO_LONG[vendor])
    with route_env(tmp_path) as env:
        primary_srv = env.a if vendor == "anthropic" else env.b
        # three turns, then the fourth: too long; the summary; too long again; the larger window answers
        primary_srv.script(ok("one"), ok("two"), ok("three"), too_long, ok("the summary"), too_long)
        (env.b if other_vendor or vendor != "anthropic" else env.a).script(ok("from the larger window"))

        async def body() -> tuple[str, str]:
            agent = _spawn(env, primary, fallback, other_vendor)
            for text in ("one", "two", "three"):
                await env.ask(agent.id, text)
            info = await env.ask(agent.id, "four")
            await env.aclose()
            return info.state, info.degraded

        state, degraded = run(body())
        env.a.assert_done()
        env.b.assert_done()
        compactions = [e for e in env.ledger.page(kind="compaction") if isinstance(e, Compaction)]
    assert state == "idle"
    requests = env.requests()
    last = requests[-1]
    p_window = window_of(*primary.split(":", 1)).context
    assert window_of(*fallback.split(":", 1)).context > p_window
    assert (f"{last.provider}:{last.model}", last.status, last.requested_model) == (fallback, "ok",
                                                                                     primary.split(":", 1)[1])
    assert last.route_reason == (f"larger window: the conversation was too long for {primary} "
                                 f"({p_window:,} tokens) even after compaction")
    assert degraded.endswith(f"answering with {fallback}")
    # compaction ran first: a summary, recorded, between the two too-long requests
    failed = [r for r in requests if r.status == "error"]
    assert len(failed) == 2 and all(f"{r.provider}:{r.model}" == primary for r in failed)
    [summary] = [r for r in requests if r.reason == "compaction"]
    [compaction] = compactions
    assert compaction.trigger == "overflow" and failed[0].seq < summary.seq < compaction.seq < failed[1].seq


def test_a_rejected_request_that_is_not_too_long_never_changes_model(tmp_path: Path, agentdesk_home: Path) -> None:
    with route_env(tmp_path) as env:
        env.a.script(Turn(fault=HttpError(400, message="messages: roles must alternate",
                                          kind="invalid_request_error")))

        async def body() -> str:
            agent = _spawn(env, *ROUTES["anthropic"])
            info = await env.ask(agent.id, "go")
            await env.aclose()
            return info.state

        assert run(body()) == "failed"
        env.a.assert_done()
        assert env.ledger.page(kind="compaction") == []
    assert env.b.requests == []


def test_without_a_larger_window_on_the_route_it_fails_as_before(tmp_path: Path, agentdesk_home: Path) -> None:
    too_long = Turn(fault=TOO_LONG["anthropic"])
    with route_env(tmp_path) as env:
        env.a.script(too_long)  # nothing to compact yet: straight to the route, which has no larger window

        async def body() -> tuple[str, str]:
            agent = env.kernel.agents.spawn("long", provider="anthropic", model="claude-sonnet-4-5",
                                            fallbacks=("anthropic:claude-haiku-4-5",))
            info = await env.ask(agent.id, "go")
            await env.aclose()
            return info.state, info.reason

        state, reason = run(body())
        env.a.assert_done()
    assert state == "failed" and "context window" in reason
    assert [r.model for r in env.requests() if isinstance(r, ModelRequest)] == ["claude-sonnet-4-5"]
