"""Simplified Chinese: the console and /me/ follow the browser's language (or the language
cookie), English stays English, and the committed catalog is complete and compiled."""

import gettext as gnu_gettext
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation

from audit.models import AuditEntry
from console.templatetags.choice_labels import CHOICE_LABELS, choice_code, choice_label
from memory.models import Event, Memory, Observation
from privacy.forms import ForgetForm
from privacy.models import DataSubjectRequest
from tests.console.conftest import admin_user, logged_in  # noqa: F401 (fixtures)
from tests.console.subject_world import build_world
from tests.console.test_review_queue import make_conflict
from tests.privacy.conftest import person_a  # noqa: F401 (fixture)

LOCALE_DIR = Path(settings.BASE_DIR) / "locale" / "zh_Hans" / "LC_MESSAGES"
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture
def staff(client, logged_in, admin_user):  # noqa: F811
    return logged_in(client, admin_user)


def page(client, url: str, **headers) -> str:
    response = client.get(url, **headers)
    assert response.status_code == 200
    return response.content.decode()


# --------------------------------------------------------------------------- console


class TestConsoleInChinese:
    def test_the_dashboard(self, cast, staff):
        build_world(cast)
        html = page(staff, reverse("console-home"), **ZH)
        assert 'lang="zh-hans"' in html
        for word in ("仪表盘", "概览", "审核队列", "召回追踪", "智能体", "按状态统计记忆"):
            assert word in html, word
        assert "有效" in html  # the status chart's label for "active"
        assert "Dashboard" not in html and "Review queue" not in html

    def test_the_dashboard_stays_english_for_english_browsers(self, cast, staff):
        build_world(cast)
        html = page(staff, reverse("console-home"), **EN)
        assert 'lang="en"' in html
        assert "Dashboard" in html and "Review queue" in html and "Memories by status" in html
        assert "仪表盘" not in html and "审核队列" not in html

    def test_the_subjects_page(self, cast, staff):
        build_world(cast)
        html = page(staff, reverse("console-subjects"), **ZH)
        for word in ("主体", "外部 ID", "最近活动", "搜索"):
            assert word in html, word
        assert re.search(r"\d+ 个主体", html)
        english = page(staff, reverse("console-subjects"), **EN)
        assert "External id" in english and "外部 ID" not in english
        assert re.search(r"\d+ subjects?<", english)

    def test_a_subject_shows_status_and_category_labels_in_chinese(self, cast, staff):
        world = build_world(cast)
        url = reverse("console-subject", args=[world.subject_a.pk])
        html = page(staff, url, **ZH)
        assert ">有效</span>" in html and "偏好" in html and "会话" in html
        english = page(staff, url, **EN)
        assert ">Active</span>" in english and "Preference" in english

    def test_the_queue(self, cast, staff):
        make_conflict(cast.tenant_a)
        html = page(staff, reverse("console-queue"), **ZH)
        for word in ("审核队列", "冲突", "接受", "驳回", "候选", "1 项待处理"):
            assert word in html, word
        assert ">有效</span>" in html  # the related memory's status (a raw code in English)
        english = page(staff, reverse("console-queue"), **EN)
        assert "Conflict" in english and "Accept" in english and ">active</span>" in english
        assert "冲突" not in english

    def test_the_language_cookie_wins(self, cast, staff):
        staff.cookies[settings.LANGUAGE_COOKIE_NAME] = "zh-hans"
        html = page(staff, reverse("console-home"), **EN)
        assert "仪表盘" in html

    def test_the_form_choices_are_translated(self, cast, staff):
        world = build_world(cast)
        html = page(staff, reverse("console-subject", args=[world.subject_a.pk]), **ZH)
        assert '<option value="needs_review">待审核</option>' in html
        assert '<option value="preference">偏好</option>' in html


# --------------------------------------------------------------------------- /me/


class TestMyPageInChinese:
    def test_the_page(self, person_a):  # noqa: F811
        client = person_a.client()
        html = page(client, reverse("me-home"), **ZH)
        for word in ("我们记得的关于你的事", "下载我的数据", "暂停记忆", "忘记一切", "退出登录"):
            assert word in html, word
        english = page(client, reverse("me-home"), **EN)
        assert "What we remember about you" in english and "下载我的数据" not in english

    def test_the_forget_page_asks_for_the_chinese_word(self, person_a):  # noqa: F811
        html = page(person_a.client(), reverse("me-forget"), **ZH)
        assert "<strong>忘记</strong>" in html

    def test_the_chinese_confirmation_word_is_accepted(self):
        with translation.override("zh-hans"):
            assert ForgetForm({"confirm": "忘记"}).is_valid()
            assert ForgetForm({"confirm": "forget"}).is_valid()  # English always works
            assert not ForgetForm({"confirm": "删除"}).is_valid()


# --------------------------------------------------------------------------- labels


MODEL_CHOICES = {
    "memory.status": Memory.Status,
    "memory.category": Memory.Category,
    "memory.kind": Memory.Kind,
    "event.role": Event.Role,
    "event.type": Event.Type,
    "observation.kind": Observation.Kind,
    "observation.status": Observation.Status,
    "case.kind": DataSubjectRequest.Kind,
    "case.status": DataSubjectRequest.Status,
    "case.requester": DataSubjectRequest.Requester,
    "audit.actor": AuditEntry.ActorType,
}


@pytest.mark.parametrize("kind", sorted(MODEL_CHOICES))
def test_every_choice_has_a_label_that_is_unchanged_in_english(kind):
    choices = MODEL_CHOICES[kind]
    assert set(CHOICE_LABELS[kind]) == set(choices.values)
    with translation.override("en"):
        for value, label in choices.choices:
            assert choice_label(value, kind) == label  # same text as get_X_display
            assert choice_code(value, kind) == value  # raw codes stay raw codes
    with translation.override("zh-hans"):
        for value in choices.values:
            assert re.search(r"[\u4e00-\u9fff]", choice_label(value, kind)), (kind, value)
            assert choice_code(value, kind) == choice_label(value, kind)


def test_unknown_values_pass_through():
    assert choice_label("weird", "memory.status") == "weird"
    assert choice_code(None, "no.such.kind") is None


# --------------------------------------------------------------------------- the catalog


def parse_po(path: Path) -> list[dict]:
    """A tiny .po reader: entries with msgctxt, msgid, msgid_plural, msgstr[n] and flags."""
    entries: list[dict] = []
    entry: dict = {}
    field = None

    def flush() -> None:
        if "msgid" in entry and not entry.get("obsolete"):
            entries.append(dict(entry))
        entry.clear()

    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line:
            flush()
            field = None
            continue
        if line.startswith("#~"):
            entry["obsolete"] = True
            continue
        if line.startswith("#,"):
            entry.setdefault("flags", set()).update(f.strip() for f in line[2:].split(","))
            continue
        if line.startswith("#"):
            continue
        match = re.match(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s+"(.*)"$', line)
        if match:
            field = match.group(1)
            entry[field] = _unescape(match.group(2))
        elif line.startswith('"') and field:
            entry[field] += _unescape(line[1:-1])
    flush()
    return entries


def _unescape(text: str) -> str:
    return text.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")


def _translation(entry: dict) -> str:
    return entry.get("msgstr", entry.get("msgstr[0]", ""))


PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd]|\{\w*\}")


class TestCatalog:
    @pytest.fixture(scope="class")
    @classmethod
    def entries(cls) -> list[dict]:
        return [e for e in parse_po(LOCALE_DIR / "django.po") if e["msgid"]]

    def test_it_is_at_least_90_percent_translated_with_nothing_fuzzy(self, entries):
        assert len(entries) > 300
        translated = [e for e in entries if _translation(e).strip()]
        assert len(translated) / len(entries) >= 0.9
        assert not [e["msgid"] for e in entries if "fuzzy" in e.get("flags", ())]

    def test_placeholders_are_kept(self, entries):
        for entry in entries:
            if _translation(entry):
                expected = sorted(PLACEHOLDER.findall(entry["msgid"]))
                assert sorted(PLACEHOLDER.findall(_translation(entry))) == expected, entry

    def test_the_compiled_catalog_is_committed_and_current(self, entries):
        mo = LOCALE_DIR / "django.mo"
        assert mo.exists(), "run manage.py compilemessages and commit the .mo"
        with mo.open("rb") as handle:
            catalog = gnu_gettext.GNUTranslations(handle)._catalog
        for entry in entries:
            if not _translation(entry):
                continue
            key = entry["msgid"]
            if "msgctxt" in entry:
                key = f"{entry['msgctxt']}\x04{key}"
            if "msgid_plural" in entry:
                key = (key, 0)
            assert catalog.get(key) == _translation(entry), f"stale .mo: {entry['msgid']!r}"

    def test_django_loads_it(self):
        with translation.override("zh-hans"):
            assert translation.gettext("Review queue") == "审核队列"
            assert translation.pgettext("memory status", "Superseded") == "已被取代"
        with translation.override("en"):
            assert translation.gettext("Review queue") == "Review queue"
