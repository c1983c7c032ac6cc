"""Browser tests of the review console: headless Chromium driven by Playwright against
pytest-django's `live_server` (transactional database).

Needs Debian's `chromium` (`scripts/install_browser.sh`) and the `playwright` package;
Playwright's own browser download is not used. Skipped cleanly when either is missing.
"""

import os
from pathlib import Path

import pytest
from django.urls import reverse

from tests.console.test_review_queue import make_conflict, make_low_confidence
from tests.console.test_review_traces import recall, remember

CHROMIUM = Path(os.environ.get("ENGRAM_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
PASSWORD = "browser-pass-123"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason=f"{CHROMIUM} missing: run scripts/install_browser.sh (apt-get install chromium)",
    ),
    # live_server needs committed data. No serialized_rollback: it would skip post_migrate on
    # the flush afterwards and leave later transactional tests without auth permissions. The
    # staff here is a superuser, so the role groups (a data migration) are not needed.
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def browser():
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright not installed (pip install playwright)"
    )
    # Playwright's sync API runs an event loop in this thread; the ORM calls made by the test
    # around it are still plain synchronous calls.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_api.sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def staff(db):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_superuser(
        username="browser-admin", email="b@example.com", password=PASSWORD
    )


def signed_in_page(browser, live_server, user):
    page = browser.new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{live_server.url}{reverse('login')}")
    page.fill("input[name=username]", user.username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/console/")
    return page


def test_accepting_a_conflict_in_the_queue_shows_the_new_version(cast, staff, live_server, browser):
    old, candidate, observation = make_conflict(cast.tenant_a)
    low_memory, low = make_low_confidence(cast.tenant_a)
    page = signed_in_page(browser, live_server, staff)
    page.goto(f"{live_server.url}{reverse('console-queue')}")
    item = page.locator(f"#obs-{observation.pk}")
    assert "用户出差默认住亚朵" in item.locator(".side.related").inner_text()
    assert "丽思卡尔顿" in item.locator("mark").first.inner_text()

    page.keyboard.press("j")  # focus the first item (queue.js) …
    assert "is-current" in (item.get_attribute("class") or "")
    page.keyboard.press("a")  # … and accept it

    receipt = page.locator(f"#obs-{observation.pk}.queue-resolved")
    receipt.wait_for()
    chain = receipt.locator("ol.chain").inner_text()
    assert "v1 superseded" in chain and "v2 active" in chain
    assert page.locator("#queue-total").inner_text().startswith("1")
    old.refresh_from_db()
    candidate.refresh_from_db()
    assert old.status == "superseded" and candidate.supersedes_id == old.pk

    # With the mouse too: the clicked button's decision reaches the server.
    page.click(f"#obs-{low.pk} button[data-key=r]")
    page.locator(f"#obs-{low.pk}.queue-resolved").wait_for()
    assert page.locator("#queue-total").inner_text().startswith("0")
    low_memory.refresh_from_db()
    assert low_memory.status == "archived"


def test_replaying_a_trace_with_other_weights_shows_the_changes(cast, staff, live_server, browser):
    c = cast.alice_client
    remember(c, "u1", "用户不吃辣，推荐餐厅时要避开辣味", importance=0.9, entities=["餐厅"])
    remember(c, "u1", "用户喜欢安静的餐厅", importance=0.6)
    remember(c, "u1", "The user prefers window seats on flights", importance=0.2)
    remember(c, "u1", "用户周末常去爬山", category="fact", importance=0.3)
    # low importance but about restaurants: a bigger top_k brings it in (unrelated ones stay out)
    remember(
        c, "u1", "公司楼下新开了一家日料店", category="fact", importance=0.2, entities=["餐厅"]
    )
    trace = recall(c, "u1", "帮我推荐一家餐厅", top_k=2)

    page = signed_in_page(browser, live_server, staff)
    page.goto(f"{live_server.url}{reverse('console-trace', args=[trace.pk])}")
    assert page.locator("table.candidates tbody tr").count() == len(trace.candidates)
    for signal in ("semantic", "keyword", "entity", "recency"):
        page.fill(f"input[name=w_{signal}]", "0")
    page.fill("input[name=w_importance]", "1")
    page.fill("input[name=top_k]", "4")
    page.click("#replay button[type=submit]")

    summary = page.locator("#replay-result .diff-summary")
    summary.wait_for()
    assert "newly included" in summary.inner_text()
    assert page.locator('#replay-result tr[data-change="added"]').count() >= 1
    assert page.url.endswith(reverse("console-trace", args=[trace.pk]))  # htmx, no navigation
