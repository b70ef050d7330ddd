"""Web search back-ends: thin adapters over each service's documented JSON API.

All three are plain REST (LIBRARIES.md §4, 2026-12-01), so each adapter is
a request builder and a reply reader around one httpx call; vendor SDKs add
nothing. The user picks one in Settings → Web, with its key (kept in
keys.json like the provider keys, or the variable named in ``KEY_VARIABLES``)
and optionally another base URL (a proxy, a self-hosted instance, the tests'
fake). Replies are hostile input: anything not shaped as documented is a
``WebFailure("reply")``, never a crash, and every result is normalised to
(title, url, snippet) with each field capped.

- Brave Search API: ``GET {base}/res/v1/web/search?q=&count=``, header
  ``X-Subscription-Token``; results in ``web.results[]`` (title, url, description).
- Tavily: ``POST {base}/search`` with ``{query, max_results, search_depth}``,
  header ``Authorization: Bearer <key>``; results in ``results[]`` (title, url, content).
- SearXNG: ``GET {base}/search?q=&format=json`` (the instance must enable the
  json format); results in ``results[]`` (title, url, content); no count
  parameter, so the list is cut here. A key, if set, is sent as a bearer token
  (for an instance behind an authenticating proxy).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from ...config.schema import WEB_DEFAULT_BASE_URLS, WEB_KEY_VARIABLES
from .errors import WebFailure

BACKENDS = ("brave", "tavily", "searxng")
DEFAULT_BASE_URLS: Mapping[str, str] = WEB_DEFAULT_BASE_URLS
KEY_VARIABLES: Mapping[str, str] = WEB_KEY_VARIABLES
NEEDS_KEY = frozenset({"brave", "tavily"})
MAX_COUNT = 20
FIELD_MAX = {"title": 300, "url": 2048, "snippet": 1000}
REPLY_MAX_BYTES = 4 * 1024 * 1024
ERROR_TEXT_MAX_BYTES = 1_000  # what of a server's error reply the model reads
_TAG = re.compile(r"</?[a-zA-Z][^<>]{0,100}>")


@dataclass(frozen=True)
class SearchResult:
    title: str
    url: str
    snippet: str


@dataclass(frozen=True)
class SearchConfig:
    backend: str
    base_url: str
    key: str | None
    timeout_s: float = 20.0


async def search(config: SearchConfig, query: str, count: int) -> tuple[SearchResult, ...]:
    """Up to ``count`` results for ``query`` from the configured back-end (WebFailure otherwise)."""
    import httpx

    if config.backend not in BACKENDS:
        raise WebFailure("config", "no web search back-end is set up: choose one in Settings → Web")
    if config.backend in NEEDS_KEY and not config.key:
        raise WebFailure("config", f"web search with {config.backend} needs an API key: add it in Settings → Web "
                                   f"or set {KEY_VARIABLES[config.backend]}")
    if not config.base_url:
        raise WebFailure("config", f"web search with {config.backend} needs the instance's base URL in Settings → Web")
    count = max(1, min(count, MAX_COUNT))
    base = config.base_url.rstrip("/")
    async with httpx.AsyncClient(timeout=config.timeout_s, trust_env=False, follow_redirects=False) as client:
        request = _request(client, config, base, query, count)
        try:
            response = await client.send(request)
        except httpx.TimeoutException:
            raise WebFailure("timeout", f"{config.backend} did not answer within {config.timeout_s:g} s") from None
        except httpx.HTTPError as exc:
            raise WebFailure("network", f"cannot reach {config.backend} at {base}: {type(exc).__name__}") from None
    if response.status_code >= 400:  # its reason phrase and error text are the server's words: untrusted
        raise WebFailure("http", f"{config.backend} answered HTTP {response.status_code} {response.reason_phrase}"
                                 + _hint(config.backend, response.status_code) + _said(response, config.key),
                         source=f"web_search {config.backend}")
    if len(response.content) > REPLY_MAX_BYTES:
        raise WebFailure("reply", f"{config.backend}'s reply is larger than {REPLY_MAX_BYTES // 1024 // 1024} MB")
    try:
        data = response.json()
    except (ValueError, RecursionError):
        raise WebFailure("reply", f"{config.backend}'s reply is not JSON") from None
    return tuple(_results(config.backend, data))[:count]


def _request(client: Any, config: SearchConfig, base: str, query: str, count: int) -> Any:
    headers = {"Accept": "application/json"}
    if config.backend == "brave":
        headers["X-Subscription-Token"] = config.key or ""
        return client.build_request("GET", f"{base}/res/v1/web/search", params={"q": query, "count": count},
                                    headers=headers)
    if config.backend == "tavily":
        headers["Authorization"] = f"Bearer {config.key}"
        return client.build_request("POST", f"{base}/search", headers=headers,
                                    json={"query": query, "max_results": count, "search_depth": "basic"})
    if config.key:
        headers["Authorization"] = f"Bearer {config.key}"
    return client.build_request("GET", f"{base}/search", params={"q": query, "format": "json"}, headers=headers)


def _results(backend: str, data: Any) -> list[SearchResult]:
    """The normalised results of a reply, skipping items that are not shaped as documented."""
    if not isinstance(data, dict):
        raise WebFailure("reply", f"{backend}'s reply is not a JSON object")
    if backend == "brave":
        web = data.get("web")
        items = web.get("results") if isinstance(web, dict) else [] if web is None else None
        snippet_key = "description"
    else:
        items = data.get("results")
        snippet_key = "content"
    if not isinstance(items, list):
        raise WebFailure("reply", f"{backend}'s reply has no list of results")
    out = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("url"), str):
            continue
        out.append(SearchResult(_field(item.get("title"), "title"), _field(item["url"], "url"),
                                _field(item.get(snippet_key), "snippet")))
    return out


def _field(value: Any, name: str) -> str:
    text = value if isinstance(value, str) else ""
    text = " ".join(_TAG.sub("", text).split())  # Brave marks matches with <strong>
    limit = FIELD_MAX[name]
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _said(response: Any, key: str | None) -> str:
    """What the server's error reply says, capped (never the key, should it echo it back), or nothing."""
    text = response.content[:ERROR_TEXT_MAX_BYTES + len(key or "")].decode("utf-8", "replace")
    if key:  # replaced before the cut, so a key across it is not left half there
        text = text.replace(key, "[the API key]")
    text = text[:ERROR_TEXT_MAX_BYTES].strip()
    return f"\nThe server said: {text}" if text else ""


def _hint(backend: str, status: int) -> str:
    if status in (401, 403) and backend == "searxng":
        return " (the instance must allow the json format: search.formats in its settings.yml)"
    if status in (401, 403):
        return " (check the API key in Settings → Web)"
    if status == 429:
        return " (rate limited: try again later)"
    return ""
