"""The lease dialog and the keyboard under a real X server and window manager (Xvfb + openbox + xdotool).

Offscreen Qt activates every window it shows and has no window manager, so
it cannot show a dialog taking the keyboard from the window a person types
in, nor where the keyboard goes after an answer. These run the scenarios of
``x11_scenarios.py`` at 1024×700 under openbox, with real key events: one
X server and window manager per test session (``x11.XSession``), one child
pytest per scenario (a process has one QApplication, and this one is offscreen).
"""

from __future__ import annotations

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


def _run(x_session: XSession, name: str, tmp_path: Path) -> None:
    result = x_session.run_scenario(name, tmp_path / "run")
    assert result.returncode == 0, f"{name} under openbox:\n{result.stdout[-8000:]}\n{result.stderr[-3000:]}"
    assert "1 passed" in result.stdout


def test_three_background_requests_while_typing_take_nothing(x_session, tmp_path):
    _run(x_session, "test_three_background_requests_while_typing_take_nothing", tmp_path)


def test_tab_to_deny_and_enter_denies(x_session, tmp_path):
    _run(x_session, "test_tab_to_deny_and_enter_denies", tmp_path)


def test_tab_to_one_hour_and_enter_grants_one_hour(x_session, tmp_path):
    _run(x_session, "test_tab_to_one_hour_and_enter_grants_one_hour", tmp_path)
