import os
import sys

import pytest

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from tests.fakes import FakeProviderServer  # noqa: E402

for _var in ("GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_ENTERPRISE", "GOOGLE_API_KEY", "GEMINI_API_KEY",
             "GOOGLE_GENAI_API_VERSION", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "GOOGLE_GEMINI_BASE_URL",
             "ANTHROPIC_CUSTOM_HEADERS"):
    os.environ.pop(_var, None)


@pytest.fixture
def srv():
    with FakeProviderServer() as s:
        yield s


@pytest.fixture
def anthropic_client(srv):
    import anthropic

    c = anthropic.Anthropic(api_key="test-key", base_url=srv.anthropic_base_url, max_retries=0)
    yield c
    c.close()


@pytest.fixture
def openai_client(srv):
    import openai

    c = openai.OpenAI(api_key="test-key", base_url=srv.openai_base_url, max_retries=0)
    yield c
    c.close()


@pytest.fixture
def gemini_client(srv):
    from google import genai
    from google.genai import types

    c = genai.Client(api_key="test-key", http_options=types.HttpOptions(base_url=srv.gemini_base_url))
    yield c
    c.close()
