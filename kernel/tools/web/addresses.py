"""Which network addresses ``web_fetch`` may connect to.

A model can be talked (by a page it read) into fetching ``http://127.0.0.1:8080/admin``
or a cloud metadata address, so by default only globally routable unicast
addresses are allowed: private, loopback, link-local, multicast, reserved and
unspecified ranges are refused, in IPv4 and IPv6 alike, and an IPv4 address
hidden in IPv6 (``::ffff:127.0.0.1``, 6to4, Teredo, NAT64) is judged as the
IPv4 address it carries. The check is made on the address the connection
actually goes to, after resolution (``http://2130706433/`` and
``http://0177.0.0.1/`` resolve to 127.0.0.1 and are refused); the fetcher
then connects to exactly that address, so a name that resolves differently a
moment later (DNS rebinding) cannot slip past.
"""

from __future__ import annotations

import ipaddress
from typing import Union

IP = Union[ipaddress.IPv4Address, ipaddress.IPv6Address]
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
# Not public, yet not "private" to every Python's ``ipaddress``: IPv6 site-local (deprecated, still
# routed inside some networks) and the IETF protocol assignments block.
_NOT_PUBLIC = (ipaddress.ip_network("fec0::/10"), ipaddress.ip_network("192.0.0.0/24"))


def embedded_ipv4(ip: IP) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, 6to4, Teredo client, NAT64), if any."""
    if isinstance(ip, ipaddress.IPv4Address):
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def refusal(ip: IP) -> str | None:
    """Why ``ip`` is not a public address (in words), or None when it is."""
    inner = embedded_ipv4(ip)
    if inner is not None:
        why = refusal(inner)
        return None if why is None else f"{why} (inside the IPv6 address {ip})"
    for test, words in ((ip.is_loopback, "a loopback address"), (ip.is_link_local, "a link-local address"),
                        (ip.is_multicast, "a multicast address"), (ip.is_unspecified, "an unspecified address"),
                        (ip.is_private, "a private address"), (ip.is_reserved, "a reserved address")):
        if test:
            return words
    if not ip.is_global or any(ip.version == net.version and ip in net for net in _NOT_PUBLIC):
        return "not a public address"
    return None


def parse(address: str) -> IP:
    """An address as ``getaddrinfo`` gives it (an IPv6 one may carry a ``%zone``)."""
    return ipaddress.ip_address(address.split("%", 1)[0])
