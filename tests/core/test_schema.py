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
