"""Screenshots of every console page, for the docs: docs/screenshots/*.png.

    .venv/bin/python scripts/screenshots.py [--port 8051] [--out docs/screenshots]

1. Migrates its own database (DATABASE_URL, default `engram_screenshots`, created if missing)
   and runs `seed_demo`, then adds what the review pages need: a hotel conflict with its source
   messages, low-confidence items, a failed extraction, ~40 recall traces over 10 days, a viewer
   and a screenshot superuser (fresh random passwords each run).
2. Starts `manage.py runserver` (DEBUG) in its own process group on --port.
3. Signs in with headless Chromium (Playwright + Debian's chromium, see
   scripts/install_browser.sh) and saves a full-page PNG per page, then stops the server.

Idempotent: re-running reuses the data and overwrites the PNGs.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import http.client
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/engram_screenshots"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/7"
CHROMIUM = os.environ.get("ENGRAM_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SHOT_USER = "screenshots"
VIEWER_USER = "screenshots-viewer"
DEMO_SECRET_KEY = "engram-screenshots-only-secret-key-not-for-production"  # noqa: S105


def ensure_database(url: str) -> None:
    import psycopg

    name = urlsplit(url).path.lstrip("/")
    parts = urlsplit(url)
    maintenance = urlunsplit((parts.scheme, parts.netloc, "/postgres", parts.query, ""))
    with psycopg.connect(maintenance, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True)  # noqa: S603


# ------------------------------------------------------------------------------ demo data


def add_review_data() -> dict[str, object]:
    """Conflict, low-confidence items, a failed extraction, recall traces, two staff users."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.utils import timezone

    from accounts.models import Agent, Tenant
    from audit.services import actor_for_agent, actor_for_task
    from memory.extraction.base import Candidate
    from memory.models import Event, Memory, Observation, RecallTrace, Subject
    from memory.recall import RecallParams, recall_compute, recall_trace_payload
    from memory.services import EventInput, events_append, memory_ingest, recall_record

    actor = actor_for_task("screenshots")
    tenant = Tenant.objects.get(slug="demo")
    agent = Agent.objects.filter(tenant=tenant).order_by("pk").first()
    now = timezone.now()

    def said(external_id: str, text: str, days_ago: float) -> Event:
        return events_append(
            tenant=tenant,
            external_id=external_id,
            session_id="screens",
            events=[
                EventInput(role="user", content=text, occurred_at=now - dt.timedelta(days_ago))
            ],
            extract="none",
            actor=actor,
        ).events[0]

    if not Subject.objects.filter(tenant=tenant, external_id="zhang.wei").exists():
        first = said("zhang.wei", "以后出差默认住亚朵，离地铁近一点。", 6)
        Subject.objects.filter(pk=first.subject_id).update(display_name="张伟")
        memory_ingest(
            subject=first.subject,
            occurred_at=first.occurred_at,
            actor=actor,
            source_event=first,
            candidate=Candidate(
                content="用户出差默认住亚朵，希望离地铁近",
                category="preference",
                slot="hotel.default",
                values=["亚朵"],
                entities=["亚朵"],
                confidence=0.8,
                importance=0.7,
                source_quote="出差默认住亚朵",
            ),
        )
        for text, quote, days in (
            ("我好像对芒果有点过敏，电话 13812345678 找我。", "对芒果有点过敏", 3),
            ("Maybe I'll switch to the data team next year.", "switch to the data team", 2),
        ):
            event = said("zhang.wei", text, days)
            memory_ingest(
                subject=first.subject,
                occurred_at=event.occurred_at,
                actor=actor,
                source_event=event,
                candidate=Candidate(
                    content=f"用户可能{quote}" if "芒果" in text else f"The user may {quote}",
                    category="profile" if "芒果" in text else "plan",
                    confidence=0.4,
                    source_quote=quote,
                ),
            )
        failed = said("zhang.wei", "帮我整理一下上周的会议纪要。", 0.5)
        Event.objects.filter(pk=failed.pk).update(
            extraction_status="failed",
            extraction_error="LLM extractor: upstream timeout after 30 s (attempt 3/3)",
        )

    # A pending hotel conflict on every run (the previous one may have been accepted).
    subject = Subject.objects.get(tenant=tenant, external_id="zhang.wei")
    if not Observation.objects.filter(subject=subject, status="pending", kind="conflict").exists():
        current = Memory.objects.filter(
            subject=subject, slot="hotel.default", status="active"
        ).first()
        hotel = next(
            h for h in ("全季", "汉庭", "亚朵") if current is None or h not in current.content
        )
        event = said("zhang.wei", f"下次出差改住{hotel}吧，原来那家最近老是满房。", 1)
        memory_ingest(
            subject=subject,
            occurred_at=event.occurred_at,
            actor=actor,
            source_event=event,
            candidate=Candidate(
                content=f"用户出差改住{hotel}",
                category="preference",
                slot="hotel.default",
                values=[hotel],
                entities=[hotel],
                confidence=max(0.8, current.confidence if current else 0.8),
                importance=0.7,
                source_quote=f"下次出差改住{hotel}吧",
            ),
        )

    if RecallTrace.objects.filter(tenant=tenant).count() < 30:
        queries = [
            ("wang.fang", "周末帮我推荐一家餐厅"),
            ("wang.fang", "下个月去成都出差，帮我订酒店"),
            ("john.smith", "Suggest a snack for the team offsite"),
            ("john.smith", "Where do I work?"),
            ("li.ming", "周会是什么时候？"),
            ("li.ming", "给我一个代码示例"),
            ("zhang.wei", "帮我订下周出差的酒店"),
            ("zhang.wei", "我对什么过敏？"),
        ]
        for i in range(40):
            external_id, query = queries[i % len(queries)]
            subject = Subject.objects.get(tenant=tenant, external_id=external_id)
            params = RecallParams(query=query, top_k=3 if i % 3 else 5, token_budget=400)
            result = recall_compute(subject=subject, params=params)
            payload = recall_trace_payload(
                result, subject=subject, agent=agent, params=params, trace_id=str(uuid.uuid4())
            )
            row = recall_record(trace=payload, actor=actor_for_agent(agent))
            if row is not None:
                RecallTrace.objects.filter(pk=row.pk).update(
                    created_at=now - dt.timedelta(days=i % 10, minutes=i * 7)
                )
        Agent.objects.filter(pk=agent.pk).update(last_used_at=now - dt.timedelta(minutes=5))

    User = get_user_model()
    password = secrets.token_urlsafe(12)
    shot, _ = User.objects.get_or_create(username=SHOT_USER, defaults={"is_staff": True})
    shot.is_superuser = True
    shot.set_password(password)
    shot.save()
    shot.groups.add(Group.objects.get(name="admin"))
    viewer, _ = User.objects.get_or_create(username=VIEWER_USER, defaults={"is_staff": True})
    viewer.set_password(password)
    viewer.save()
    viewer.groups.add(Group.objects.get(name="viewer"))

    conflict = (
        Observation.objects.filter(tenant=tenant, status="pending", kind="conflict")
        .order_by("created_at")
        .first()
    )
    chained = (
        Memory.objects.filter(tenant=tenant, version__gt=1).order_by("-pk").first()
        or Memory.objects.filter(tenant=tenant).order_by("pk").first()
    )
    # The trace with the most candidates, some cut: the most telling one to explain and replay.
    trace = max(
        RecallTrace.objects.filter(tenant=tenant),
        key=lambda t: (len(t.candidates) > len(t.selected_ids), len(t.candidates)),
        default=None,
    )
    return {
        "password": password,
        "subject": Subject.objects.get(tenant=tenant, external_id="zhang.wei"),
        "memory": chained,
        "conflict": conflict,
        "trace": trace,
        "agent": agent,
        "tenant": tenant,
    }


# ------------------------------------------------------------------------------ server


def wait_ready(port: int, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("runserver exited early; see its output above")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/accounts/login/")
            conn.getresponse().read()
            conn.close()
            return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"runserver not ready on port {port} after {timeout:.0f}s")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)  # our own session: runserver only
            proc.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)


# ------------------------------------------------------------------------------ shots


def take(base: str, out: Path, data: dict[str, object]) -> list[Path]:
    from django.urls import reverse
    from playwright.sync_api import sync_playwright

    saved: list[Path] = []

    def shot(page, name: str) -> None:
        path = out / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        saved.append(path)
        print(f"  {path.relative_to(ROOT)}")

    def sign_in(browser, username: str):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.set_default_timeout(20_000)
        page.goto(base + reverse("login"))
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", str(data["password"]))
        page.click("button[type=submit]")
        page.wait_for_url(base + "/console/")
        return page

    def visit(page, name: str, url: str) -> None:
        page.goto(base + url)
        page.wait_for_load_state("networkidle")
        shot(page, name)

    conflict, trace, agent = data["conflict"], data["trace"], data["agent"]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = sign_in(browser, SHOT_USER)
        visit(page, "01-dashboard", reverse("console-home"))
        visit(page, "02-subjects", reverse("console-subjects"))
        visit(page, "03-subject", reverse("console-subject", args=[data["subject"].pk]))
        if data["memory"] is not None:
            visit(page, "04-memory", reverse("console-memory", args=[data["memory"].pk]))
        visit(page, "05-queue", reverse("console-queue"))
        if conflict is not None:
            page.click(f"#obs-{conflict.pk} button[data-key=a]")
            page.locator(f"#obs-{conflict.pk}.queue-resolved").wait_for()
            page.evaluate("window.scrollTo(0, 0)")
            shot(page, "06-queue-accepted")
        visit(page, "08-traces", reverse("console-traces"))
        if trace is not None:
            visit(page, "09-trace", reverse("console-trace", args=[trace.pk]))
            for signal_name in ("semantic", "keyword", "entity", "recency"):
                page.fill(f"input[name=w_{signal_name}]", "0")
            page.fill("input[name=w_importance]", "1")
            page.fill("input[name=top_k]", "5")
            page.click("#replay button[type=submit]")
            page.locator("#replay-result .diff-summary").wait_for()
            page.locator("#replay").scroll_into_view_if_needed()
            shot(page, "10-trace-replay")
        visit(page, "11-agents", reverse("console-agents"))
        visit(page, "12-agent", reverse("console-agent", args=[agent.pk]))
        visit(page, "13-agent-new", reverse("console-agent-create"))
        page.select_option("select[name=tenant]", str(data["tenant"].pk))
        page.fill("input[name=name]", f"docs-bot-{secrets.token_hex(2)}")
        page.check("input[name=scopes][value=write]")
        page.click("form.stacked button[type=submit]")
        page.locator("#agent-key").wait_for()
        shot(page, "14-agent-created")
        visit(page, "15-agent-revoke", reverse("console-agent-revoke", args=[agent.pk]))
        viewer_page = sign_in(browser, VIEWER_USER)
        visit(viewer_page, "07-queue-viewer", reverse("console-queue"))
        browser.close()
    return saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", 8051)))
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        sys.exit(f"{CHROMIUM} missing: run scripts/install_browser.sh first")

    env = dict(os.environ)
    env.setdefault("DATABASE_URL", DEFAULT_DATABASE_URL)
    # Always a database of its own (its demo data and secret key must not mix with make run's).
    parts = urlsplit(env["DATABASE_URL"])
    env["DATABASE_URL"] = urlunsplit(
        (parts.scheme, parts.netloc, "/engram_screenshots", parts.query, "")
    )
    env.setdefault("REDIS_URL", DEFAULT_REDIS_URL)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings.base",
        DJANGO_DEBUG="true",
        DJANGO_SECRET_KEY=env.get("DJANGO_SECRET_KEY", DEMO_SECRET_KEY),
        DJANGO_SECURE_COOKIES="false",
        ENGRAM_LOG_LEVEL=env.get("ENGRAM_LOG_LEVEL", "WARNING"),
        DJANGO_ALLOW_ASYNC_UNSAFE="true",  # ORM reads next to Playwright's event loop
    )
    ensure_database(env["DATABASE_URL"])
    manage(env, "migrate", "--verbosity", "0")
    manage(env, "seed_demo")

    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    data = add_review_data()

    args.out.mkdir(parents=True, exist_ok=True)
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", args.port)) == 0:
            sys.exit(f"port {args.port} is already in use: pick another with --port")
    server = subprocess.Popen(  # noqa: S603
        [sys.executable, "manage.py", "runserver", f"127.0.0.1:{args.port}", "--noreload"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_ready(args.port, server)
        print(f"Screenshots of http://127.0.0.1:{args.port}/console/ →")
        saved = take(f"http://127.0.0.1:{args.port}", args.out, data)
    finally:
        stop(server)
    print(f"{len(saved)} screenshots in {args.out}")


if __name__ == "__main__":
    main()
