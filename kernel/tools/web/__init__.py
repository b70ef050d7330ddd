"""The web tools: ``web_fetch`` (one page, under address rules and caps) and ``web_search`` (a back-end
the user configures). Network libraries are imported on first call, not with the kernel."""

from .tools import FETCH_SCOPE, SEARCH_SCOPE, web_fetch_tool, web_search_tool

__all__ = ["FETCH_SCOPE", "SEARCH_SCOPE", "web_fetch_tool", "web_search_tool"]
