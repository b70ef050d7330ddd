"""The lease dialog and the keyboard under a real X server and window manager (Xvfb + openbox + xdotool).

Offscreen Qt activates every window it shows and has no window manager, so
it cannot show a dialog taking the keyboard from the window a person types
in, nor where the keyboard goes after an answer. These run the scenarios of
``x11_scenarios.py`` at 1024×700 under openbox, with real key events: one
X server and window manager per test session (``x11.XSession``), one child
pytest per scenario (a process has one QApplication, and this one is offscreen).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

import pytest

from tests.desktop.x11 import XSession, missing_tools

pytestmark = pytest.mark.xvfb


@pytest.fixture(scope="session")
def x_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[XSession]:
    missing = missing_tools()
    if missing:  # under CI=true a skip is a failure: scripts/bootstrap.sh test installs them
        pytest.skip(f"needs {', '.join(missing)} (scripts/bootstrap.sh test installs them)")
    session = XSession.start(tmp_path_factory.mktemp("x11"))
    yield session
    session.stop()


SCENARIOS = ("test_three_background_requests_while_typing_take_nothing", "test_tab_to_deny_and_enter_denies",
             "test_tab_to_one_hour_and_enter_grants_one_hour")


def test_the_keyboard_scenarios_under_openbox(x_session, tmp_path):
    """Every scenario of x11_scenarios.py in one child pytest: one X server, window manager and interpreter for
    the three (run one per test, on four xdist workers, each worker started its own X server: 157 s of test
    time in CI against about 60 s)."""
    result = x_session.run_scenario("", tmp_path / "run")
    out = result.stdout
    assert result.returncode == 0, f"under openbox:\n{out[-8000:]}\n{result.stderr[-3000:]}"
    assert f"{len(SCENARIOS)} passed" in out
    source = Path(__file__).with_name("x11_scenarios.py").read_text()
    assert set(re.findall(r"^def (test_\w+)", source, re.M)) == set(SCENARIOS)  # the count above is of these
