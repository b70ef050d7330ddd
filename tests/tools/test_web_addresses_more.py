"""Address ranges that are not public, beyond the ones ``ipaddress`` calls private in every Python:
IPv6 site-local (``fec0::/10``, still routed inside some networks) and the IETF protocol block
``192.0.0.0/24``. A name resolving to one is refused before any connection is made."""

from __future__ import annotations

import asyncio

import pytest

from kernel.tools.web.errors import WebFailure
from kernel.tools.web.fetch import FetchLimits, fetch


@pytest.mark.parametrize("address", ["fec0::1", "feff::1", "192.0.0.8", "192.0.0.170"])
def test_names_resolving_to_non_public_ranges_are_refused(address):
    async def resolver(host: str, port: int) -> str:
        return address

    with pytest.raises(WebFailure) as caught:
        asyncio.run(fetch("http://inside.test/", FetchLimits(timeout_s=5.0), resolver))
    assert caught.value.kind == "address", caught.value
