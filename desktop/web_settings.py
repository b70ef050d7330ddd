"""The Web tab of the Settings dialog: the search back-end, its base URL and key, what web_fetch
may read (the largest page, the time cap, how many redirects it follows) and whether it may reach
private addresses.

The caps are typed as text and checked by ``read_caps`` before anything is saved: a negative,
absurd or non-numeric value is a sentence beside Save, never a traceback or a silent clamp. The
ranges are settings.json's own (``kernel.config.schema``): 1 KB to 1 GB, 1 to 600 seconds, 0 to 5
redirects. A size left as shown keeps its exact byte count.

The key field works like a provider's: a password field that is never
filled back in, a line saying where the key in use comes from (its
environment variable, keys.json, or nowhere) without showing it, and a box
to forget a saved key. A key typed here belongs to the back-end chosen when
Save is pressed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Mapping

from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QWidget

from kernel.api import WEB_DEFAULT_BASE_URLS, WEB_KEY_VARIABLES, WEB_SEARCH_BACKENDS, Settings

from .theme import MUTED, shade

MB = 1024 * 1024
SIZE_MB = (0.001, 1024.0)       # web_fetch_max_bytes: about 1 KB to 1 GB
TIME_S = (1.0, 600.0)           # web_fetch_timeout_s
REDIRECTS = (0, 5)              # web_fetch_max_redirects


@dataclass(frozen=True)
class Caps:
    """web_fetch's caps as typed: the largest page in bytes, the time cap in seconds, the redirects."""

    max_bytes: int
    timeout_s: float
    max_redirects: int


def size_text(max_bytes: int) -> str:
    """A byte count as the MB the field shows (2097152 → "2")."""
    return f"{max_bytes / MB:g}"


def _number(text: str) -> float | None:
    try:
        value = float(text.strip().replace(",", ""))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def read_caps(size: str, timeout: str, redirects: str, shown_bytes: int) -> Caps | list[str]:
    """The caps typed into the three fields, or one sentence per bad value. ``shown_bytes`` is the size
    the field was filled with: left as shown, it is kept to the byte."""
    problems: list[str] = []
    mb = _number(size)
    if mb is None or not SIZE_MB[0] <= mb <= SIZE_MB[1]:
        problems.append(f"Largest page must be a number of MB between {SIZE_MB[0]:g} and {SIZE_MB[1]:g} (found {size!r})")
    seconds = _number(timeout)
    if seconds is None or not TIME_S[0] <= seconds <= TIME_S[1]:
        problems.append(f"Time cap must be a number of seconds between {TIME_S[0]:g} and {TIME_S[1]:g} "
                        f"(found {timeout!r})")
    hops = _number(redirects)
    if hops is None or not hops.is_integer() or not REDIRECTS[0] <= hops <= REDIRECTS[1]:
        problems.append(f"Redirects must be a whole number from {REDIRECTS[0]} to {REDIRECTS[1]} (found {redirects!r})")
    if problems or mb is None or seconds is None or hops is None:
        return problems
    exact = shown_bytes if size.strip() == size_text(shown_bytes) else max(1024, min(round(mb * MB), 1 << 30))
    return Caps(exact, seconds, int(hops))


LABELS = {"none": "None (web_search is off)", "brave": "Brave Search API", "tavily": "Tavily",
          "searxng": "SearXNG (your instance, JSON format on)"}


class WebTab(QWidget):
    """Search back-end, base URL, key, and the private-address switch."""

    def __init__(self, settings: Settings, saved_keys: Mapping[str, str], env: Mapping[str, str],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._saved, self._env = saved_keys, env
        self.backend = QComboBox(self)
        for name in WEB_SEARCH_BACKENDS:
            self.backend.addItem(LABELS[name], name)
        self.backend.setCurrentIndex(max(0, self.backend.findData(settings.web_search_backend)))
        self.base_url = QLineEdit(settings.web_search_base_url, self)
        self.key = QLineEdit(self)
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.source = QLabel(self)
        self.source.setWordWrap(True)
        self.source.setStyleSheet(f"color: {shade(MUTED, self.palette())};")
        self.forget = QCheckBox("Forget the saved key", self)
        self.allow_private = QCheckBox("Let web_fetch reach private and local network addresses", self)
        self.allow_private.setChecked(settings.web_allow_private)
        self.allow_private.setToolTip("Off, web_fetch refuses loopback, private and link-local addresses: a page "
                                      "cannot send an agent to your router or to this machine.")
        self._shown_bytes = settings.web_fetch_max_bytes
        self.max_size = QLineEdit(size_text(settings.web_fetch_max_bytes), self)
        self.max_size.setToolTip("web_fetch reads at most this much of a page and says where it was cut.")
        self.timeout = QLineEdit(f"{settings.web_fetch_timeout_s:g}", self)
        self.timeout.setToolTip("web_fetch gives up on a silent server, or cuts a slow page, after this long; "
                                "web_search waits as long.")
        self.redirects = QLineEdit(str(settings.web_fetch_max_redirects), self)
        self.redirects.setToolTip("How many redirects web_fetch follows (0 to 5); each target is checked again.")
        caps = QHBoxLayout()
        for label, field, unit in (("Largest page", self.max_size, "MB"), ("time cap", self.timeout, "seconds"),
                                   ("redirects", self.redirects, "")):
            field.setMaximumWidth(80)
            if label != "Largest page":
                caps.addWidget(QLabel(label, self))
            caps.addWidget(field)
            if unit:
                caps.addWidget(QLabel(unit, self))
            caps.addSpacing(8)
        caps.addStretch(1)
        form = QFormLayout(self)
        form.addRow("Search with", self.backend)
        form.addRow("Base URL", self.base_url)
        form.addRow("API key", self.key)
        form.addRow("", self.source)
        form.addRow("", self.forget)
        form.addRow("Largest page", caps)
        form.addRow("", self.allow_private)
        for first, then in ((self.forget, self.max_size), (self.max_size, self.timeout), (self.timeout, self.redirects),
                            (self.redirects, self.allow_private)):  # Tab goes as the rows read
            QWidget.setTabOrder(first, then)
        self.backend.currentIndexChanged.connect(self._show_backend)
        self._show_backend()

    def chosen(self) -> str:
        return str(self.backend.currentData())

    def _show_backend(self) -> None:
        name = self.chosen()
        off = name == "none"
        for widget in (self.base_url, self.key, self.forget):
            widget.setEnabled(not off)
        default = WEB_DEFAULT_BASE_URLS.get(name)
        self.base_url.setPlaceholderText(f"default: {default}" if default else
                                         "required: your instance, e.g. http://localhost:8888" if name == "searxng"
                                         else "")
        saved = name in self._saved
        self.key.setPlaceholderText("a key is saved; type to replace it" if saved else "type a key to save it")
        self.forget.setVisible(saved and not off)
        self.source.setText(self._source_text(name, saved))

    def _source_text(self, name: str, saved: bool) -> str:
        if name == "none":
            return "Choose a search service to give agents web_search."
        variable = WEB_KEY_VARIABLES[name]
        if self._env.get(variable):
            return f"Key in use: from {variable} (environment)."
        if saved:  # keys.json holds the key itself; a name with no value here is kept in the system keyring
            return "Key in use: saved in " + ("keys.json." if self._saved.get(name) else "the system keyring.")
        optional = " (optional for SearXNG)" if name == "searxng" else ""
        return f"Key in use: not set{optional} — type a key here and Save, or set {variable}."

    def caps(self) -> Caps | list[str]:
        """The fetch caps as typed, or why they cannot be saved."""
        return read_caps(self.max_size.text(), self.timeout.text(), self.redirects.text(), self._shown_bytes)

    def problems(self) -> list[str]:
        """One sentence per value on this tab that cannot be saved."""
        caps = self.caps()
        return caps if isinstance(caps, list) else []

    def applied(self, settings: Settings) -> Settings:
        """``settings`` with this tab's values (call once ``problems`` is empty)."""
        new = replace(settings, web_search_backend=self.chosen(), web_search_base_url=self.base_url.text().strip(),
                      web_allow_private=self.allow_private.isChecked())
        caps = self.caps()
        if isinstance(caps, Caps):
            new = replace(new, web_fetch_max_bytes=caps.max_bytes, web_fetch_timeout_s=caps.timeout_s,
                          web_fetch_max_redirects=caps.max_redirects)
        return new

    def key_change(self) -> tuple[str, str | None] | None:
        """(back-end, new key or None to forget) when the key is to change, else None."""
        name = self.chosen()
        if name == "none":
            return None
        if self.key.text().strip():
            return name, self.key.text().strip()
        if self.forget.isChecked():
            return name, None
        return None
