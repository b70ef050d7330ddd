"""Suite-wide rules: no network beyond loopback, no provider settings leaking in.

Every test gets a private AGENTDESK_HOME, and provider environment variables
from the developer's shell are removed, so a test can only ever talk to the
loopback fake server it starts itself.
"""

from __future__ import annotations

import faulthandler
import ipaddress
import os
import socket
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tests.fakes.ci import in_ci  # noqa: E402 - after the path

PROVIDER_VARIABLES = (
    "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_CUSTOM_HEADERS", "OPENAI_API_KEY", "OPENAI_BASE_URL",
    "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_GENAI_USE_ENTERPRISE", "GOOGLE_GENAI_API_VERSION",
    "BRAVE_API_KEY", "TAVILY_API_KEY", "SEARXNG_API_KEY",  # the web search back-ends' keys
)
pytest_plugins = ["tests.qt_loop", "tests.cpu_log", "tests.leftovers"]  # the qasync loop; the CPU log (issue 22); leaks

for _name in PROVIDER_VARIABLES:
    os.environ.pop(_name, None)

_real_connect = socket.socket.connect


def _loopback_only(self: socket.socket, address) -> None:  # type: ignore[no-untyped-def]
    if self.family in (socket.AF_INET, socket.AF_INET6):
        host = address[0]
        try:
            ok = ipaddress.ip_address(host).is_loopback
        except ValueError:
            ok = host == "localhost"
        if not ok:
            raise ConnectionRefusedError(f"tests may not reach the network ({host})")
    return _real_connect(self, address)


socket.socket.connect = _loopback_only  # type: ignore[method-assign]


@pytest.hookimpl(trylast=True)  # after pytest's own faulthandler set-up, which writes to stderr
def pytest_configure(config: pytest.Config) -> None:
    """With AGENTDESK_CRASH_DIR set (scripts/test.sh), a process that dies of a fatal error writes every
    thread's stack to its own file there, which test.sh prints last: xdist shows only the end of it."""
    folder = os.environ.get("AGENTDESK_CRASH_DIR")
    if folder and os.path.isdir(folder):
        name = os.environ.get("PYTEST_XDIST_WORKER", "main")
        crash = open(os.path.join(folder, f"{name}-{os.getpid()}.txt"), "w")  # open until the process ends
        config.stash[_CRASH_FILE] = crash
        faulthandler.enable(file=crash, all_threads=True)


_CRASH_FILE = pytest.StashKey[object]()


@pytest.fixture(autouse=True)
def agentdesk_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """A fresh AGENTDESK_HOME for every test."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("AGENTDESK_HOME", str(home))
    monkeypatch.setenv("AGENTDESK_KEYRING", "off")  # never a developer's real keyring (tests pass their own)
    yield home
    from tests.home_kernel import stop_home_kernel

    stop_home_kernel(home)  # a kernel a test started as a user would (the desktop's child) stops with the test


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """Under ``CI=true`` nothing is skipped: a skip (a missing server or tool, a condition never met on the
    CI machine) is reported as a failure naming its reason. See tests/fakes/ci.py."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and in_ci() and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped under CI=true, which must run every test: {reason}"
