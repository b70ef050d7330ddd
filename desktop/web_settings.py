"""The Web tab of the Settings dialog: the search back-end, its base URL and key, and whether
web_fetch may reach private addresses.

The key field works like a provider's: a password field that is never
filled back in, a line saying where the key in use comes from (its
environment variable, keys.json, or nowhere) without showing it, and a box
to forget a saved key. A key typed here belongs to the back-end chosen when
Save is pressed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QLabel, QLineEdit, QWidget

from kernel.api import WEB_DEFAULT_BASE_URLS, WEB_KEY_VARIABLES, WEB_SEARCH_BACKENDS, Settings

from .theme import MUTED, shade

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
        form = QFormLayout(self)
        form.addRow("Search with", self.backend)
        form.addRow("Base URL", self.base_url)
        form.addRow("API key", self.key)
        form.addRow("", self.source)
        form.addRow("", self.forget)
        form.addRow("", self.allow_private)
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

    def applied(self, settings: Settings) -> Settings:
        """``settings`` with this tab's values."""
        return replace(settings, web_search_backend=self.chosen(), web_search_base_url=self.base_url.text().strip(),
                       web_allow_private=self.allow_private.isChecked())

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
