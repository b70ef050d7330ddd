"""Getting one web resource under the address rules, with redirects, size and time caps.

httpx is told never to follow redirects itself: each hop's URL is checked
(http or https only), its host resolved once, the resolved address checked
(``addresses.refusal``) and the request sent to that very address, with the
name kept for the ``Host`` header and for TLS (SNI and certificate checks use
the name, so https stays verified). Proxies from the environment are not
used: they would connect to an address nobody checked. At most
``max_redirects`` hops (Settings, at most ``MAX_REDIRECTS``) are followed. The body is read up to ``max_bytes`` and
until ``timeout_s`` after the first request started; a body cut by either is
returned with the cut said, while a server that sends no reply in time is a
failure. The bytes of every fetch in one agent turn are counted together too
(``TurnBytes``): eleven hostile fetches in one turn peaked at 542 MB when only
each call was capped; a call past the turn's budget is cut there, and one that
starts with nothing left is refused before it connects (``web.tools``).
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Awaitable, Callable
from urllib.parse import urljoin, urlsplit

from ...redaction.cuts import MARGIN
from .addresses import parse, refusal
from .errors import WebFailure

if TYPE_CHECKING:
    import httpx

MAX_REDIRECTS = 5
REDIRECTS = frozenset({301, 302, 303, 307, 308})
USER_AGENT = "Agentdesk-web_fetch/0.1 (+https://example.invalid/agentdesk)"
Resolver = Callable[[str, int], Awaitable[str]]
HopCheck = Callable[[str], "str | None"]  # why a redirect's URL must not be followed (a skill's domains), or None


class TurnBytes:
    """The body bytes one agent turn may read from the web, shared by its ``web_fetch`` calls (they run side by
    side). A call takes what it reads chunk by chunk, so small pages all pass and the sum stays bounded."""

    def __init__(self, budget: int) -> None:
        self.budget = max(0, budget)
        self.used = 0

    @property
    def left(self) -> int:
        return max(0, self.budget - self.used)

    def take(self, n: int) -> int:
        """Take up to ``n`` bytes; how many were granted."""
        got = min(n, self.left)
        self.used += got
        return got


@dataclass(frozen=True)
class FetchLimits:
    max_bytes: int = 2 * 1024 * 1024
    timeout_s: float = 20.0
    allow_private: bool = False
    max_redirects: int = MAX_REDIRECTS  # Settings → Web; never more than MAX_REDIRECTS
    exempt: frozenset[tuple[str, int]] = frozenset()  # (address, port) pairs allowed anyway (tests' fakes)
    verify: "ssl.SSLContext | bool" = True  # certificates: the system's trust store (tests: their own CA)
    turn: TurnBytes | None = None  # what this call's turn may still read (None: only ``max_bytes`` bounds it)


@dataclass(frozen=True)
class Fetched:
    """What came back: the final URL after redirects, status, type, body and what cut it."""

    url: str
    final_url: str
    status: int
    reason: str
    content_type: str
    charset: str | None
    body: bytes
    total_bytes: int | None  # as the server announced it (Content-Length), when it did
    redirects: tuple[str, ...] = ()
    cut: tuple[str, ...] = field(default=())  # "size", "time"
    beyond: bytes = b""  # after a size cut, the next bytes (up to cuts.MARGIN): to cut around a secret


async def system_resolver(host: str, port: int) -> str:
    """The first address ``host`` resolves to (the one the connection will use)."""
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise WebFailure("network", f"cannot resolve {host}: {exc.strerror or exc}") from None
    if not infos:
        raise WebFailure("network", f"{host} resolves to no address")
    return str(infos[0][4][0])


def check_url(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of an http(s) URL, or WebFailure ``url``."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise WebFailure("url", f"not a usable URL: {exc}") from None
    if parts.scheme not in ("http", "https"):
        raise WebFailure("url", f"only http and https URLs can be fetched, not {parts.scheme or 'a relative URL'}:")
    if not parts.hostname:
        raise WebFailure("url", "the URL names no host")
    if parts.username is not None or parts.password is not None:
        raise WebFailure("url", "a URL with a user name or password in it is not fetched")
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80)


async def fetch(url: str, limits: FetchLimits, resolver: Resolver = system_resolver,
                hop_refusal: HopCheck | None = None) -> Fetched:
    """GET ``url`` under ``limits`` (WebFailure for a refusal, a timeout before any reply, a network error);
    ``hop_refusal`` judges every redirect's URL before it is asked for, as the first was judged."""
    import httpx

    started = time.monotonic()
    deadline = started + limits.timeout_s
    timeout = httpx.Timeout(limits.timeout_s)
    async with httpx.AsyncClient(follow_redirects=False, trust_env=False, timeout=timeout,
                                 verify=limits.verify) as client:
        hops: list[str] = []
        current = url
        while True:
            remaining = deadline - time.monotonic()
            try:
                async with asyncio.timeout(max(remaining, 0.001)):  # resolving counts against the cap too
                    request = await _pinned_request(client, current, limits, resolver)
                    response = await client.send(request, stream=True)
            except TimeoutError:
                raise WebFailure("timeout", f"no reply from {current} within {limits.timeout_s:g} s") from None
            except httpx.HTTPError as exc:
                raise WebFailure("network", f"cannot fetch {current}: {type(exc).__name__}: {exc}",
                                 source=_quoting_server(exc, current)) from None
            try:
                location = response.headers.get("location")
                if response.status_code in REDIRECTS and location:
                    most = max(0, min(limits.max_redirects, MAX_REDIRECTS))
                    if len(hops) >= most:
                        where = " (the limit in Settings → Web)" if most < MAX_REDIRECTS else ""
                        raise WebFailure("redirects", f"more than {most} redirect{'' if most == 1 else 's'}{where} "
                                                      f"(last: {current})")
                    hops.append(current)
                    current = urljoin(current, location.strip())
                    if hop_refusal is not None and (why := hop_refusal(current)) is not None:
                        raise WebFailure("redirects", f"refused to follow the redirect to {current}: {why}")
                    continue
                body, cut, beyond = await _read(response, limits, deadline, current)
            finally:
                await response.aclose()
            return Fetched(url=url, final_url=current, status=response.status_code,
                           reason=response.reason_phrase, content_type=_media_type(response.headers),
                           charset=response.charset_encoding, body=body,
                           total_bytes=_length(response.headers), redirects=tuple(hops), cut=cut, beyond=beyond)


async def _pinned_request(client: "httpx.AsyncClient", url: str, limits: FetchLimits,
                          resolver: Resolver) -> "httpx.Request":
    """A request for ``url`` addressed to the checked address its host resolves to."""
    import httpx

    scheme, host, port = check_url(url)
    address = await resolver(host, port)
    try:
        ip = parse(address)
    except ValueError:
        raise WebFailure("network", f"{host} resolved to something that is not an address") from None
    why = refusal(ip)
    if why is not None and not limits.allow_private and (str(ip), port) not in limits.exempt:
        raise WebFailure("address", f"refused: {host} is {why} ({ip}); Settings → Web can allow "
                                    "private addresses")
    literal = f"[{ip}]" if ip.version == 6 else str(ip)
    try:
        named = httpx.URL(url)
        target = named.copy_with(host=literal)
    except (httpx.InvalidURL, ValueError) as exc:
        raise WebFailure("url", f"not a usable URL: {exc}") from None
    headers = {"Host": named.netloc.decode("ascii"), "User-Agent": USER_AGENT,
               "Accept": "text/html,application/xhtml+xml,text/plain,application/json;q=0.9,*/*;q=0.5"}
    extensions = {"sni_hostname": host} if scheme == "https" else {}
    return client.build_request("GET", target, headers=headers, extensions=extensions)


async def _read(response: "httpx.Response", limits: FetchLimits, deadline: float,
                url: str) -> tuple[bytes, tuple[str, ...], bytes]:
    """The body up to the size cap and the deadline, which of them cut it, and (after a size cut) the
    next bytes, up to ``cuts.MARGIN``, so a secret crossing the cap can be cut whole."""
    import httpx

    chunks: list[bytes] = []
    beyond = b""
    size = 0
    cut: tuple[str, ...] = ()
    stream = response.aiter_bytes().__aiter__()
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                cut = ("time",)
                break
            try:
                async with asyncio.timeout(remaining):
                    chunk = await stream.__anext__()
            except StopAsyncIteration:
                break
            except TimeoutError:
                cut = ("time",)
                break
            if size + len(chunk) > limits.max_bytes:
                keep = limits.turn.take(limits.max_bytes - size) if limits.turn is not None else limits.max_bytes - size
                chunks.append(chunk[:keep])
                if keep < limits.max_bytes - size:  # the turn's budget ran out first
                    cut = ("turn",)
                    break
                beyond = await _beyond(chunk[limits.max_bytes - size:], stream, deadline)
                size = limits.max_bytes
                cut = ("size",)
                break
            if limits.turn is not None and (keep := limits.turn.take(len(chunk))) < len(chunk):
                chunks.append(chunk[:keep])
                cut = ("turn",)
                break
            chunks.append(chunk)
            size += len(chunk)
    except httpx.HTTPError as exc:
        if not chunks:
            raise WebFailure("network", f"the reply broke off: {type(exc).__name__}: {exc}",
                             source=_quoting_server(exc, url)) from None
        cut = ("broken",)
    return b"".join(chunks), cut, beyond


async def _beyond(start: bytes, stream: Any, deadline: float) -> bytes:
    """Up to ``MARGIN`` bytes past the size cap: ``start`` and what arrives next, within the deadline."""
    import httpx

    got = bytearray(start[:MARGIN])
    while len(got) < MARGIN and (remaining := deadline - time.monotonic()) > 0:
        try:
            async with asyncio.timeout(remaining):
                more = await stream.__anext__()
        except (StopAsyncIteration, TimeoutError, httpx.HTTPError):
            break
        got += more[:MARGIN - len(got)]
    return bytes(got)


def _quoting_server(exc: Exception, url: str) -> str | None:
    """The source when ``exc``'s text may quote bytes the server sent (a protocol or decoding error), else None
    (a refused connection, a TLS failure: our side's words)."""
    import httpx

    return f"web_fetch {url}" if isinstance(exc, (httpx.ProtocolError, httpx.DecodingError)) else None


def _media_type(headers: "httpx.Headers") -> str:
    value = headers.get("content-type") or ""
    return value.split(";", 1)[0].strip().lower() or "application/octet-stream"


def _length(headers: "httpx.Headers") -> int | None:
    value = headers.get("content-length")
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None
