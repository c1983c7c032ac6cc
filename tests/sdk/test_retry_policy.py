"""The parts of the SDK that need no server: retry delays and error mapping of odd answers."""

import email.utils
import time

import httpx
import pytest
from engram import APIError, RetryPolicy, ServerError
from engram._base import retry_after_seconds
from engram.errors import error_for


def response(status=503, **headers):
    return httpx.Response(status, headers=headers)


def test_it_reads_retry_after_in_seconds_and_as_an_http_date():
    assert retry_after_seconds(response(**{"Retry-After": "5"})) == 5
    in_three = email.utils.formatdate(time.time() + 3, usegmt=True)
    assert 1 <= retry_after_seconds(response(**{"Retry-After": in_three})) <= 3
    assert retry_after_seconds(response(**{"Retry-After": "soon"})) is None
    assert retry_after_seconds(response()) is None


def test_it_caps_retry_after_and_grows_the_backoff():
    policy = RetryPolicy(backoff_base=1, backoff_max=4, max_retry_after=10)
    assert policy.delay(0, 600) == 10
    assert [policy.delay(n, None) <= 2**n for n in range(3)] == [True] * 3
    assert 2 <= policy.delay(5, None) <= 4  # capped at backoff_max, jitter at most halves it


@pytest.mark.parametrize(
    ("status", "idempotent", "retried"),
    [(429, False, True), (503, False, True), (502, False, False), (502, True, True),
     (500, True, True), (400, True, False), (404, True, False)],
)  # fmt: skip
def test_it_retries_only_what_is_safe_to_repeat(status, idempotent, retried):
    assert RetryPolicy().retries_status(status, idempotent=idempotent) is retried


def test_an_answer_outside_the_error_shape_still_raises_a_typed_error():
    error = error_for(502, "<html>Bad Gateway</html>")
    assert isinstance(error, ServerError)
    assert (error.code, error.message) == ("error", "<html>Bad Gateway</html>")
    teapot = error_for(418, None)
    assert type(teapot) is APIError and teapot.message == "HTTP 418"
