"""Trust tests reuse the kernel suite's real kernel (ledger, executor, manual clock, scripted provider)."""

from tests.kernel.conftest import make_env  # noqa: F401 - the fixture
