"""Input PostgreSQL cannot store, or that later readers cannot walk, is a 400 in the error shape
at the door: event metadata (NUL, lone surrogates, depth, size), documents too deep for the JSON
decoder, and NUL in any path parameter."""

import json

import pytest

from memory.models import Event, Subject
from privacy.services import subject_export_data
from tests.conftest import error_code

EVENTS = "/api/v1/subjects/{}/events"


def nested(depth: int) -> dict:
    """An object `depth` levels deep (the outermost object is level 1)."""
    obj: dict = {"leaf": 1}
    for _ in range(depth - 1):
        obj = {"k": obj}
    return obj


def post_metadata(client, metadata, subject="u1"):
    body = {
        "session_id": "s1",
        "extract": "none",
        "events": [{"role": "user", "content": "hello", "metadata": metadata}],
    }
    # ensure_ascii escapes lone surrogates as \udXXX, exactly as a client would send them
    return client.post(
        EVENTS.format(subject), data=json.dumps(body), content_type="application/json"
    )


def metadata_error(response) -> str:
    assert response.status_code == 400, response.content
    assert error_code(response) == "invalid"
    return response.json()["error"]["fields"]["events"]["0"]["metadata"][0]


@pytest.mark.parametrize(
    "metadata",
    [
        {"a": "x\u0000"},
        {"a\u0000": 1},
        {"a": "x\udfff"},
        {"\ud83d": 1},
        {"list": ["ok", {"deeper": "bad\u0000"}]},
    ],
    ids=["NUL value", "NUL key", "surrogate value", "surrogate key", "NUL nested in a list"],
)
def test_it_refuses_metadata_postgres_cannot_store(cast, metadata):
    assert "NUL" in metadata_error(post_metadata(cast.alice_client, metadata))
    assert Event.objects.count() == 0


def test_it_accepts_metadata_20_levels_deep_and_the_access_export_still_builds(cast):
    response = post_metadata(cast.alice_client, nested(20), subject="deep")
    assert response.status_code == 201, response.content
    data = subject_export_data(subject=Subject.objects.get(external_id="deep"))
    json.dumps(data, ensure_ascii=False, indent=2)  # what export_build writes


@pytest.mark.parametrize("depth", [21, 100, 1000])
def test_it_refuses_metadata_nested_deeper_than_20(cast, depth):
    assert "20 levels" in metadata_error(post_metadata(cast.alice_client, nested(depth)))
    assert Event.objects.count() == 0


def test_it_counts_arrays_as_nesting_levels(cast):
    inner = json.loads("[" * 30 + "]" * 30)
    assert "20 levels" in metadata_error(post_metadata(cast.alice_client, {"deep": inner}))


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ({f"k{i}": i for i in range(201)}, "200 keys"),
        ({"k": "x" * 20_000}, "16384 bytes"),
        ({"k" * 129: 1}, "128 characters"),
        ("not an object", "JSON object"),
        ([1, 2], "JSON object"),
    ],
    ids=["too many keys", "too big", "key too long", "string", "list"],
)
def test_it_bounds_metadata_size_and_shape(cast, metadata, message):
    assert message in metadata_error(post_metadata(cast.alice_client, metadata))


@pytest.mark.parametrize("depth", [5_000, 100_000])
def test_a_document_too_deep_for_the_json_decoder_is_a_400(cast, depth):
    inner = "[" * depth + "]" * depth
    raw = (
        '{"session_id":"s1","extract":"none","events":[{"role":"user","content":"x",'
        f'"metadata":{{"deep":{inner}}}}}]}}'
    )
    response = cast.alice_client.post(
        EVENTS.format("u1"), data=raw, content_type="application/json"
    )
    assert response.status_code == 400
    assert error_code(response) == "malformed_json"


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("get", "/api/v1/subjects/u1/sessions/s%001/context"),
        ("post", "/api/v1/knowledge/doc%00/updated"),
        ("post", "/api/v1/subjects/%00/portal-link"),
        ("get", "/api/v1/subjects/u1%00/memories"),
    ],
)
def test_nul_in_a_path_parameter_is_a_400(cast, method, url):
    response = getattr(cast.alice_client, method)(url)
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] in ("invalid", "invalid_subject_id")


def test_path_parameters_keep_their_documented_lengths(cast):
    long_session = cast.alice_client.get(f"/api/v1/subjects/u1/sessions/{'s' * 129}/context")
    assert long_session.status_code == 400
    assert "session_id" in long_session.json()["error"]["fields"]
    long_doc = cast.alice_client.post(f"/api/v1/knowledge/{'d' * 201}/updated")
    assert long_doc.status_code == 400
    assert "doc_id" in long_doc.json()["error"]["fields"]


def test_a_subject_id_with_a_trailing_newline_is_refused(cast):
    response = cast.alice_client.get("/api/v1/subjects/u1%0A/memories")
    assert response.status_code == 400
    assert error_code(response) == "invalid_subject_id"


@pytest.mark.parametrize(
    "body",
    [
        {"query": "a\u0000"},
        {"query": "a\ud800"},
        {"query": "tea", "entities": ["\u0000"]},
    ],
)
def test_string_fields_refuse_nul_and_lone_surrogates(cast, body):
    response = cast.alice_client.post(
        "/api/v1/subjects/u1/recall", data=json.dumps(body), content_type="application/json"
    )
    assert response.status_code == 400
    assert error_code(response) == "invalid"


def test_correcting_a_memory_deleted_meanwhile_is_a_404(cast):
    from audit.services import SYSTEM
    from core.exceptions import NotFound
    from memory.models import Memory
    from memory.services import memory_correct

    created = cast.alice_client.post(
        "/api/v1/subjects/u1/memories",
        {"content": "The user likes chess", "category": "preference"},
        format="json",
    ).json()["memory"]
    loaded = Memory.objects.get(pk=created["id"])  # what the view loaded before the DELETE
    Memory.objects.filter(pk=loaded.pk).delete()
    with pytest.raises(NotFound):
        memory_correct(memory=loaded, content="The user loves chess", actor=SYSTEM)


def test_an_overlong_cursor_is_a_400(cast):
    response = cast.alice_client.get("/api/v1/subjects/u1/events", {"cursor": "x" * 65})
    assert response.status_code == 400
    assert "cursor" in response.json()["error"]["fields"]
