"""The image tests reuse the provider contract's fixtures: one case per adapter, the loopback fake."""

from tests.providers.conftest import case, srv  # noqa: F401 - fixtures
from tests.kernel.conftest import make_env  # noqa: F401,E402 - fixture
