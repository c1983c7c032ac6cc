"""Demo data for `make run`: idempotent; prints the agent key and staff password when created."""

import datetime as dt
import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from accounts.models import Agent
from accounts.services import agent_create, tenant_get_or_create
from audit.services import actor_for_task
from memory.models import Subject
from memory.services import EventInput, events_append, events_extract

DEMO_TENANT = "demo"
DEMO_AGENT = "demo-assistant"
DEMO_STAFF = "admin"
DEMO_END_USER = "wang.fang"

CONVERSATIONS = {
    "wang.fang": (
        "王芳",
        [
            ("user", "我不吃辣，以后推荐餐厅记得避开辣味。"),
            ("assistant", "好的，以后推荐会避开辣味。"),
            ("user", "我在杭州一家做跨境电商的公司当产品经理。"),
            ("user", "下个月我们打算去成都出差三天，帮我留意酒店。"),
            ("user", "技术选型定了，后端统一用 Java + Spring Boot。"),
        ],
    ),
    "john.smith": (
        "John Smith",
        [
            ("user", "Please keep your answers short. I prefer concise bullet points."),
            ("assistant", "Understood, concise bullet points from now on."),
            ("user", "I'm allergic to peanuts, never suggest anything with peanuts."),
            ("user", "I work as a data engineer at Northwind in Berlin."),
            ("user", "Maybe we'll move the team offsite to Lisbon, not sure yet."),
        ],
    ),
    "li.ming": (
        "李明",
        [
            ("user", "我们组周会是每周一上午十点。"),
            ("user", "For code samples use TypeScript, 我们前端统一用 React。"),
            ("user", "就按这个方案推进，下周五前交付第一版。"),
        ],
    ),
}


class Command(BaseCommand):
    help = "Seed a demo tenant, agent, staff superuser, end user and subjects (idempotent)."

    def handle(self, *args: object, **options: object) -> None:
        # All or nothing: a failure half-way must not leave a seeded-looking but broken demo
        # (and a shown-once key that was rolled back is simply created again next run).
        with transaction.atomic():
            self._seed()

    def _seed(self) -> None:
        actor = actor_for_task("seed_demo")
        tenant = tenant_get_or_create(slug=DEMO_TENANT, name="Demo Inc.", actor=actor)
        User = get_user_model()

        if not Agent.objects.filter(tenant=tenant, name=DEMO_AGENT).exists():
            created = agent_create(
                tenant=tenant, name=DEMO_AGENT, scopes=["read", "write", "erase"], actor=actor
            )
            self.stdout.write(f"Demo agent key (shown once): {created.key}")
        else:
            self.stdout.write(
                "Demo agent exists (key shown on first seed; "
                "create another with manage.py create_agent)."
            )

        if not User.objects.filter(username=DEMO_STAFF).exists():
            password = secrets.token_urlsafe(12)
            staff = User.objects.create_superuser(DEMO_STAFF, "admin@example.com", password)
            staff.groups.add(Group.objects.get(name="admin"))
            self.stdout.write(f"Staff login: {DEMO_STAFF} / {password}")
        else:
            self.stdout.write(
                f"Staff user {DEMO_STAFF!r} exists (reset with manage.py changepassword admin)."
            )

        start = timezone.now() - dt.timedelta(days=3)
        for external_id, (name, turns) in CONVERSATIONS.items():
            if Subject.objects.filter(tenant=tenant, external_id=external_id).exists():
                continue
            events = [
                EventInput(
                    role=role,
                    content=text,
                    occurred_at=start + dt.timedelta(minutes=i),
                    client_event_id=f"seed-{external_id}-{i}",
                )
                for i, (role, text) in enumerate(turns)
            ]
            appended = events_append(
                tenant=tenant,
                external_id=external_id,
                session_id="seed-1",
                events=events,
                extract="sync",
                actor=actor,
            )
            Subject.objects.filter(pk=appended.subject.pk).update(display_name=name)
            results = events_extract(event_ids=appended.new_event_ids, actor=actor)
            self.stdout.write(
                f"Seeded subject {external_id}: {len(events)} events, "
                f"{len(results)} memory decisions"
            )

        subject = Subject.objects.get(tenant=tenant, external_id=DEMO_END_USER)
        if subject.end_user_id is None:
            password = secrets.token_urlsafe(12)
            user = User.objects.create_user(DEMO_END_USER, password=password)
            Subject.objects.filter(pk=subject.pk).update(end_user=user)
            self.stdout.write(f"End-user login: {DEMO_END_USER} / {password}")
