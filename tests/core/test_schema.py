import pytest


def test_openapi_schema_documents_the_agent_api(client):
    response = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    for path in (
        "/api/v1/subjects/{subject_id}/events",
        "/api/v1/subjects/{subject_id}/memories",
        "/api/v1/subjects/{subject_id}/memories/{memory_id}",
        "/api/v1/subjects/{subject_id}/memories/{memory_id}/history",
        "/api/v1/subjects/{subject_id}/recall",
        "/api/v1/subjects/{subject_id}/sessions/{session_id}/context",
    ):
        assert path in paths


def test_api_docs_page_is_served(client):
    assert client.get("/api/docs/").status_code == 200


def test_schema_generates_without_warnings():
    from django.core.management import call_command

    call_command("spectacular", "--validate", "--fail-on-warn", "--file", "/dev/null")


def test_api_docs_use_no_cdn(client):
    body = client.get("/api/docs/").content.decode()
    assert "jsdelivr" not in body and "unpkg" not in body
    assert "/static/drf_spectacular_sidecar/" in body


def _schema(client):
    return client.get("/api/schema/", HTTP_ACCEPT="application/json").json()


def _operations(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            yield path, method, operation


def test_every_operation_documents_its_errors_with_the_error_shape(client):
    schema = _schema(client)
    error = schema["components"]["schemas"]["ErrorOutput"]
    assert error["required"] == ["error"]
    detail = schema["components"]["schemas"]["ErrorDetailOutput"]
    assert set(detail["required"]) == {"code", "message", "fields"}
    for path, method, operation in _operations(schema):
        responses = operation["responses"]
        expected = {"400", "401", "403", "404", "503"}
        if method in ("post", "patch"):
            expected.add("413")
        assert expected <= set(responses), (method, path, sorted(responses))
        for code, response in responses.items():
            if code >= "400":
                ref = response["content"]["application/json"]["schema"]["$ref"]
                assert ref == "#/components/schemas/ErrorOutput", (method, path, code)
        assert "Retry-After" in responses["503"]["headers"]


def test_domain_errors_are_documented_where_they_happen(client):
    paths = _schema(client)["paths"]
    memory = paths["/api/v1/subjects/{subject_id}/memories/{memory_id}"]
    assert {"409", "423"} <= set(memory["patch"]["responses"])
    for path in ("events", "memories", "recall", "portal-link"):
        assert "423" in paths[f"/api/v1/subjects/{{subject_id}}/{path}"]["post"]["responses"]
    assert "415" in paths["/api/v1/subjects/{subject_id}/events"]["post"]["responses"]


def test_the_schema_states_the_limits_validation_enforces(client):
    from memory.selectors import SUBJECT_ID_RE

    schema = _schema(client)
    for path, method, operation in _operations(schema):
        parameters = {p["name"]: p["schema"] for p in operation["parameters"] if p["in"] == "path"}
        if "subject_id" in parameters:
            assert parameters["subject_id"]["pattern"] == SUBJECT_ID_RE.pattern, (method, path)
            assert parameters["subject_id"]["maxLength"] == 128
        if "session_id" in parameters:
            assert parameters["session_id"]["maxLength"] == 128
        if "doc_id" in parameters:
            assert parameters["doc_id"]["maxLength"] == 200
    components = schema["components"]["schemas"]
    events = components["EventsAppendInputRequest"]["properties"]["events"]
    assert (events["minItems"], events["maxItems"]) == (1, 500)
    assert components["RecallInputRequest"]["properties"]["entities"]["maxItems"] == 20
    assert components["RecallInputRequest"]["properties"]["query"]["maxLength"] == 4000
    assert components["MemoryCreateInputRequest"]["properties"]["entities"]["maxItems"] == 50
    metadata = components["EventInputRequest"]["properties"]["metadata"]
    assert metadata["maxProperties"] == 200 and "20 levels" in metadata["description"]


def test_the_documented_event_limit_follows_the_setting(client, settings):
    settings.ENGRAM_MAX_EVENTS_PER_REQUEST = 7
    events = _schema(client)["components"]["schemas"]["EventsAppendInputRequest"]
    assert events["properties"]["events"]["maxItems"] == 7


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/nothing-here"),
        ("get", "/api/v2/subjects/u1/events"),
        ("post", "/api/v1/subjects/u1/unknown"),
        ("get", "/api/v1/subjects/u1/memories/abc"),
        ("delete", "/api/v1/"),
        ("get", "/api/v1/subjects/%0Au1/memories/null/history"),  # a newline in the path
    ],
)
def test_an_unmatched_api_path_answers_a_json_404(client, method, path):
    response = getattr(client, method)(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"]["code"] == "not_found"


def test_paths_outside_the_api_keep_the_html_404(client):
    response = client.get("/nothing-here")
    assert response.status_code == 404
    assert "application/json" not in response["Content-Type"]


def test_request_strings_document_that_nul_is_refused(client):
    from core.validation import NO_NUL_PATTERN, NON_BLANK_NO_NUL_PATTERN

    components = _schema(client)["components"]["schemas"]
    query = components["RecallInputRequest"]["properties"]["query"]
    assert query["pattern"] == NON_BLANK_NO_NUL_PATTERN  # trimmed, may not be blank
    assert components["RecallInputRequest"]["properties"]["entities"]["items"]["pattern"]
    content = components["EventInputRequest"]["properties"]["content"]
    assert content["pattern"] == NO_NUL_PATTERN  # kept as sent, whitespace included
    # may be blank: "" is its own oneOf branch, so the other one must not match ""
    linked_doc = components["MemoryCreateInputRequest"]["properties"]["linked_doc_id"]["oneOf"]
    assert linked_doc[0]["pattern"] == NON_BLANK_NO_NUL_PATTERN
    assert linked_doc[1] == {"type": "string", "maxLength": 0}


def test_a_merge_into_an_existing_memory_is_a_documented_200(client):
    responses = _schema(client)["paths"]["/api/v1/subjects/{subject_id}/memories"]["post"]
    assert {"200", "201"} <= set(responses["responses"])


def test_the_schema_and_docs_urls_still_get_their_trailing_slash(client):
    for path in ("/api/schema", "/api/docs"):
        response = client.get(path)
        assert response.status_code == 301
        assert response["Location"] == f"{path}/"
