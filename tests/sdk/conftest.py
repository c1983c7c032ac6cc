"""The SDK is driven over real sockets against pytest-django's live server (transactional
database: the server thread only sees committed rows), with the fixed cast of tests/conftest."""

import pytest

# The SDK is installed in editable mode by `make install` (scripts/install_deps.py).
from engram import Engram, RetryPolicy

# Tests that exercise retries say so; the others fail fast and never sleep.
FAST_RETRY = RetryPolicy(max_retries=3, backoff_base=0.01, backoff_max=0.05)


@pytest.fixture
def alice_sdk(cast, live_server):
    with Engram(live_server.url, api_key=cast.alice_key, timeout=30, retry=FAST_RETRY) as client:
        yield client
