"""The SDK's re-export-only package ``__init__`` files, run name by name (kernel/providers/lazy_inits.py).

A fresh interpreter (``anthropic`` may be imported already in this one) imports the adapter, streams a
request with a tool call from the loopback fake through the real SDK, and shows which parts of the SDK were
never loaded; the stand-in's names are the original's objects; an ``__init__`` that does anything but
re-export is run as written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernel.providers.lazy_inits import re_exports

ROOT = Path(__file__).resolve().parents[2]

REQUEST = r"""
import asyncio, json, sys
from kernel.providers.anthropic import AnthropicProvider
from kernel.core.messages import user_text
from kernel.providers.base import ProviderRequest, TextChunk, ToolCallReady
from kernel.core.messages import ToolSpec
from tests.fakes import FakeProviderServer, Text, ToolCall, Turn

with FakeProviderServer() as srv:
    srv.script(Turn(parts=(Text("reading it"), ToolCall("fs_read", {"path": "notes.md"}))))
    provider = AnthropicProvider(api_key="test-key", base_url=srv.anthropic_base_url, timeout_s=10.0)
    spec = ToolSpec("fs_read", "Read a file.", {"type": "object", "properties": {"path": {"type": "string"}}})
    request = ProviderRequest(system="s", messages=(user_text("hi"),), tools=(spec,), model="m")

    async def go():
        return [e async for e in provider.stream(request)]

    events = asyncio.run(go())
import anthropic, anthropic.types
text = "".join(e.text for e in events if isinstance(e, TextChunk))
calls = [(e.name, e.input) for e in events if isinstance(e, ToolCallReady)]
same = anthropic.types.Message is sys.modules["anthropic.types.message"].Message
print(json.dumps({"text": text, "calls": calls, "same": same, "modules": sorted(sys.modules),
                  "stand_in": "__getattr__" in vars(anthropic.types)}))
"""


def test_a_request_through_the_sdk_loads_none_of_its_beta_organization_or_aiohttp_parts() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", REQUEST], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["text"] == "reading it" and got["calls"] == [["fs_read", {"path": "notes.md"}]]
    assert got["stand_in"] and got["same"]
    modules = set(got["modules"])
    never = {"aiohttp", "anthropic._vendor.httpx_aiohttp.transport", "anthropic.types.organization.api_key",
             "anthropic.resources.organization.users", "anthropic.types.beta.agent_list_params"}
    assert not never & modules
    beta_types = sum(1 for m in modules if m.startswith("anthropic.types.beta."))
    assert beta_types < 1800  # of ~2,100 (the rest is imported by name, by the SDK's own modules)


OPENAI_REQUEST = r"""
import asyncio, json, sys
from kernel.providers.openai_responses import OpenAIResponsesProvider
from kernel.core.messages import user_text
from kernel.providers.base import ProviderRequest, TextChunk
from tests.fakes import FakeProviderServer, Text, Turn

with FakeProviderServer() as srv:
    srv.script(Turn(parts=(Text("fine"),)))
    provider = OpenAIResponsesProvider(api_key="test-key", base_url=srv.openai_base_url, timeout_s=10.0)
    request = ProviderRequest(system="s", messages=(user_text("hi"),), tools=(), model="m")

    async def go():
        return [e async for e in provider.stream(request)]

    events = asyncio.run(go())
import openai.types
print(json.dumps({"text": "".join(e.text for e in events if isinstance(e, TextChunk)),
                  "stand_in": "__getattr__" in vars(openai.types),
                  "types": sum(1 for m in sys.modules if m.startswith("openai.types."))}))
"""


def test_an_openai_request_works_over_the_stand_in_of_its_types() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", OPENAI_REQUEST], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["text"] == "fine" and got["stand_in"]
    assert got["types"] < 400  # of 467 as written (openai 3.60)


def test_the_stand_in_gives_the_originals_objects_and_everything_a_star_import_asks_for(tmp_path: Path) -> None:
    package = tmp_path / "sdkpkg" / "types"
    package.mkdir(parents=True)
    (tmp_path / "sdkpkg" / "__init__.py").write_text("")
    (package / "__init__.py").write_text('"""Re-exports."""\nfrom __future__ import annotations\n'
                                         "from .message import Message as Message\nfrom .usage import Usage\n"
                                         "from . import extra\n")
    (package / "message.py").write_text("class Message: pass\n")
    (package / "usage.py").write_text("class Usage: pass\n")
    (package / "extra.py").write_text("LOADED = True\n")
    code = r"""
import json, sys
from kernel.providers.lazy_inits import StandInFinder
sys.meta_path.insert(0, StandInFinder(("sdkpkg.types",)))
import sdkpkg.types as t
before = sorted(m for m in sys.modules if m.startswith("sdkpkg"))
same = t.Message is sys.modules["sdkpkg.types.message"].Message
after_one = sorted(m for m in sys.modules if m.startswith("sdkpkg"))
try:
    t.Nothing
    missing = "no error"
except AttributeError as exc:
    missing = str(exc)
ns = {}
exec("from sdkpkg.types import *", ns)
print(json.dumps({"before": before, "after_one": after_one, "same": same, "missing": missing,
                  "star": sorted(k for k in ns if not k.startswith("__")), "dir": "Usage" in dir(t)}))
"""
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{tmp_path}"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["before"] == ["sdkpkg", "sdkpkg.types"]  # nothing below the package until a name is asked for
    assert got["same"] and got["after_one"] == ["sdkpkg", "sdkpkg.types", "sdkpkg.types.message"]
    assert "has no attribute 'Nothing'" in got["missing"]
    assert got["star"] == ["Message", "Usage", "extra", "message", "usage"] and got["dir"]


@pytest.mark.parametrize("source", [
    "from .a import A\nVALUE = compute()\n",  # anything computed: run as written
    "from .a import *\n",
    "import os\nfrom .a import A\n",
    "from ..elsewhere import A\n",
    "__all__ = names()\nfrom .a import A\n",
])
def test_an_init_that_does_more_than_re_export_is_run_as_written(source: str) -> None:
    assert re_exports(source) is None


def test_the_re_exports_of_a_generated_init() -> None:
    names, exported = re_exports('"""Doc."""\nfrom .beta import Beta as Beta, AsyncBeta\n'
                                 "from .files.page import Page\n__all__ = ['Beta', 'AsyncBeta']\n") or ({}, None)
    assert names == {"beta": "beta", "Beta": "beta:Beta", "AsyncBeta": "beta:AsyncBeta", "files": "files",
                     "Page": "files.page:Page"}
    assert exported == ["Beta", "AsyncBeta"]
