"""Shared helpers of the benchmark scripts (bench/ingest.py, bench/recall.py).

Django setup against a dedicated database (names must start with `engram_bench`), a gunicorn
server started on a free port in its own process group (so only it is stopped), a keep-alive
JSON client, percentiles, tables, and template generators for realistic zh / en / mixed
conversation turns and memory statements.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/engram_bench"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/5"
BENCH_SECRET_KEY = "engram-bench-only-secret-key-not-for-production-0123456789"  # noqa: S105
FIRST_PORT = 8031

# One BLAS thread for the embedder (as in production); must be set before numpy loads.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


# ------------------------------------------------------------------------------ setup


def database_name(url: str) -> str:
    return urlsplit(url).path.lstrip("/")


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


def check_bench_database(url: str) -> None:
    if not database_name(url).startswith("engram_bench"):
        sys.exit(f"refusing to use {database_name(url)!r}: bench databases are engram_bench*")


def bench_env(database_url: str, redis_url: str, debug: bool = False) -> dict[str, str]:
    """Environment for this process and the servers it starts."""
    env = dict(os.environ)
    env.update(
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        DJANGO_SETTINGS_MODULE="config.settings.base",
        DJANGO_DEBUG="true" if debug else "false",
        DJANGO_SECRET_KEY=env.get("DJANGO_SECRET_KEY", BENCH_SECRET_KEY),
        ENGRAM_LOG_LEVEL=env.get("ENGRAM_LOG_LEVEL", "WARNING"),
        PYTHONPATH=str(ROOT),
    )
    return env


def django_setup(database_url: str, redis_url: str, debug: bool = False) -> None:
    os.environ.update(bench_env(database_url, redis_url, debug))
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def recreate_database(url: str) -> None:
    """DROP (if it exists) and CREATE the bench database, via the `postgres` maintenance db."""
    import psycopg

    check_bench_database(url)
    name = database_name(url)
    with psycopg.connect(with_database(url, "postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def drop_database(url: str) -> None:
    import psycopg

    check_bench_database(url)
    with psycopg.connect(with_database(url, "postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{database_name(url)}" WITH (FORCE)')


def migrate() -> None:
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def create_agent(name: str, tenant: str) -> str:
    """Run `manage.py create_agent` in-process; returns the key (its last printed line)."""
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("create_agent", name, tenant=tenant, scopes="read,write", stdout=out)
    return out.getvalue().strip().splitlines()[-1].strip()


def redis_flush_queue(redis_url: str, queue: str = "celery") -> int:
    """Drop the Celery queue the benchmark filled (no worker runs); returns its length."""
    import redis

    client = redis.Redis.from_url(redis_url)
    length = int(client.llen(queue))
    client.delete(queue)
    return length


# ------------------------------------------------------------------------------ server


def free_port(start: int = FIRST_PORT) -> int:
    for port in range(start, start + 100):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {start}..{start + 99}")


class Server:
    """gunicorn config.wsgi in its own session; `stop()` signals only that process group."""

    def __init__(self, env: dict[str, str], workers: int, port: int | None = None):
        self.port = port or free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log_path = Path(f"/tmp/engram_bench_gunicorn_{self.port}.log")  # noqa: S108
        cmd = [
            str(Path(sys.executable).parent / "gunicorn"),
            "-c",
            "scripts/gunicorn.conf.py",
            "config.wsgi",
            "--bind",
            f"127.0.0.1:{self.port}",
            "--workers",
            str(workers),
            "--access-logfile",
            "/dev/null",
        ]
        self.log = self.log_path.open("wb")
        self.proc = subprocess.Popen(  # noqa: S603
            cmd,
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        self._wait_ready()

    def _wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited; see {self.log_path}")
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                # Unauthenticated API call: 401 once the app (and its URLconf) loads.
                conn.request("GET", "/api/v1/subjects/ready/memories")
                status = conn.getresponse().status
                conn.close()
            except OSError:
                time.sleep(0.2)
                continue
            if status >= 500:
                self.stop()
                raise RuntimeError(f"the app answers {status}; see {self.log_path}")
            return
        self.stop()
        raise RuntimeError(f"gunicorn not ready after {timeout:.0f}s; see {self.log_path}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)  # our own session: gunicorn + workers
                self.proc.wait(timeout=15)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
        self.log.close()


class Client:
    """A keep-alive JSON client (one per thread)."""

    def __init__(self, base_url: str, key: str):
        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.prefix = parts.path.rstrip("/")
        self.headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)

    def post(self, path: str, body: Any) -> tuple[int, Any]:
        data = json.dumps(body, ensure_ascii=False).encode()
        for attempt in range(2):
            try:
                self.conn.request("POST", self.prefix + path, body=data, headers=self.headers)
                response = self.conn.getresponse()
                raw = response.read()
                if "json" not in (response.getheader("Content-Type") or ""):
                    return response.status, raw.decode(errors="replace")
                return response.status, json.loads(raw) if raw else None
            except (http.client.HTTPException, ConnectionError):
                self.conn.close()
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
                if attempt == 1:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        self.conn.close()


# ------------------------------------------------------------------------------ figures


def machine_load() -> str:
    """Load average and core count: the figures are only comparable on a quiet machine."""
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(p / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def print_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], title: str = "") -> None:
    cells = [[str(h) for h in headers], *[[_fmt(c) for c in row] for row in rows]]
    widths = [max(_width(r[i]) for r in cells) for i in range(len(headers))]
    if title:
        print(f"\n{title}")
    for n, row in enumerate(cells):
        print(
            "  ".join(_pad(c, w, i > 0) for i, (c, w) in enumerate(zip(row, widths, strict=True)))
        )
        if n == 0:
            print("  ".join("-" * w for w in widths))


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.1f}" if abs(value) >= 100 else f"{value:.2f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _width(text: str) -> int:
    return sum(2 if "\u2e80" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef" else 1 for ch in text)


def _pad(text: str, width: int, right: bool) -> str:
    fill = " " * (width - _width(text))
    return fill + text if right else text + fill


# ------------------------------------------------------------------------------ templates
# Slot fillers shared by conversations and memory statements.

CITIES_ZH = ["上海", "北京", "深圳", "杭州", "成都", "广州", "南京", "武汉", "西安", "苏州"]
CITIES_EN = ["Boston", "Seattle", "London", "Berlin", "Singapore", "Tokyo", "Chicago", "Paris"]
CUISINES_ZH = ["粤菜", "川菜", "日料", "西餐", "火锅", "湘菜", "东北菜", "素食", "烧烤", "泰国菜"]
CUISINES_EN = ["Cantonese", "Italian", "sushi", "Thai", "Mexican", "vegetarian", "Korean BBQ"]
HOTELS = ["全季", "亚朵", "汉庭", "希尔顿", "万豪", "Hilton", "Marriott", "Hyatt", "IHG"]
AIRLINES = ["国航", "东航", "南航", "海航", "Delta", "United", "Lufthansa", "Singapore Airlines"]
TOOLS = ["Python", "Go", "Java", "Rust", "TypeScript", "Kubernetes", "PostgreSQL", "Redis", "Vue"]
WEEKDAYS_ZH = ["周一", "周二", "周三", "周四", "周五", "周六", "周日"]
WEEKDAYS_EN = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
TEAMS_ZH = ["产品部", "研发部", "市场部", "财务部", "运维组", "数据组", "销售部"]
TEAMS_EN = ["platform team", "data team", "sales team", "design team", "infra team", "QA team"]
FOODS_ZH = ["花生", "海鲜", "芒果", "牛奶", "香菜", "辣椒", "鸡蛋"]
FOODS_EN = ["peanuts", "shellfish", "gluten", "dairy", "cilantro", "eggs"]
FAMILY_ZH = ["女儿", "儿子", "妈妈", "爸爸", "老婆", "老公"]
FAMILY_EN = ["daughter", "son", "mom", "dad", "wife", "husband"]
ACTIVITIES_ZH = ["钢琴考级", "游泳比赛", "英语考试", "体检", "毕业典礼", "马拉松"]
ACTIVITIES_EN = ["piano exam", "swim meet", "job interview", "dentist appointment", "marathon"]
STYLES_ZH = ["先给结论", "用要点列表", "简洁一点", "不要大段文字", "附上出处", "用表格对比"]
STYLES_EN = [
    "lead with the conclusion",
    "use bullet points",
    "keep it short",
    "include sources",
    "use a comparison table",
]
PROJECTS = ["Atlas", "Phoenix", "北极星", "天穹", "Orion", "蓝鲸", "Nova", "Zephyr"]
AMOUNTS_ZH = ["三万", "五万", "八万", "十二万", "两千", "五千"]
AMOUNTS_EN = ["5,000", "12,000", "30,000", "80,000", "1.5k", "250k"]
HOURS_ZH = ["上午九点", "上午十点半", "下午两点", "下午三点", "晚上八点"]
HOURS_EN = ["9am", "10:30", "2pm", "3pm", "8pm"]

# Conversation turns (user). Roughly half carry something worth remembering.
USER_ZH = [
    "我不吃{food_zh}，以后推荐餐厅记得避开。",
    "我对{food_zh}过敏，千万别推荐含{food_zh}的菜。",
    "我最喜欢{cuisine_zh}，口味清淡一点的更好。",
    "以后出差默认订{hotel}，离地铁近一点。",
    "下周{weekday_zh}{hour_zh}要去{city_zh}见客户，帮我记一下。",
    "我们{team_zh}的周会改到{weekday_zh}{hour_zh}了。",
    "{project}项目的预算定了，是{amount_zh}元。",
    "我{family_zh}下个月要参加{activity_zh}。",
    "以后给我总结东西，{style_zh}，{style_zh2}。",
    "我们团队主要用{tool}，数据库是PostgreSQL。",
    "更正一下，周会不是{weekday_zh}，是{weekday_zh2}。",
    "我坐飞机一般选{airline}，要靠窗的位置。",
    "我住在{city_zh}，平时骑车上班。",
    "决定了，{project}项目下个季度上线。",
    "今天天气不错，心情也挺好。",
    "帮我查一下明天{city_zh}的天气。",
    "你觉得这个方案怎么样？",
    "好的，谢谢。",
    "先给我列三家{cuisine_zh}餐厅看看。",
    "这个问题我再想想。",
    "帮我写一封给{team_zh}的邮件，说一下进度。",
    "可能下个月会换工作，还没想好。",
]
USER_EN = [
    "I don't eat {food_en}, please never suggest dishes with it.",
    "I'm allergic to {food_en}, remember that.",
    "I really like {cuisine_en} food, the lighter the better.",
    "When I travel I always stay at {hotel} hotels near the station.",
    "Next {weekday_en} at {hour_en} I'm flying to {city_en} to meet a client.",
    "The {team_en} weekly meeting moved to {weekday_en} at {hour_en}.",
    "Our budget for {project} is {amount_en} dollars.",
    "My {family_en} has a {activity_en} next month.",
    "From now on please {style_en} and {style_en2}.",
    "Our team mostly uses {tool} and deploys on Kubernetes.",
    "Correction: the review is on {weekday_en2}, not {weekday_en}.",
    "I usually fly {airline} and prefer a window seat.",
    "I live in {city_en} and bike to work.",
    "We decided to launch {project} next quarter.",
    "Nice weather today.",
    "What's the weather like in {city_en} tomorrow?",
    "What do you think of this plan?",
    "Ok, thanks!",
    "List three {cuisine_en} places for tonight.",
    "Let me think about it.",
    "Draft an email to the {team_en} about the status.",
    "Maybe I'll switch jobs next year, not sure yet.",
]
USER_MIXED = [
    "我们的 {tool} 服务都跑在 Kubernetes 上，部署用 Helm。",
    "以后 code review 的时候{style_zh}。",
    "下周{weekday_zh}去 {city_en} 开会，帮我订 {hotel}。",
    "{project} 的 deadline 改到{weekday_zh}了。",
    "我比较喜欢 {cuisine_en}，不太能吃辣。",
    "周报请用 bullet points，{style_zh}。",
    "team 里现在主要用 {tool}，不用 Java 了。",
    "帮我 check 一下 {city_en} 的航班。",
    "ok，先这样吧。",
]
ASSISTANT_ZH = [
    "好的，已经记下了。",
    "明白，我会在以后的推荐里注意这一点。",
    "收到。需要我现在帮你安排吗？",
    "好的，我整理几个{cuisine_zh}的选择给你。",
    "已记录：{weekday_zh}{hour_zh}，{city_zh}。",
    "没问题，还有其他需要注意的吗？",
]
ASSISTANT_EN = [
    "Got it, I'll keep that in mind.",
    "Noted. Do you want me to book something now?",
    "Sure, here are a few {cuisine_en} options in {city_en}.",
    "Understood: {weekday_en} at {hour_en} in {city_en}.",
    "Okay. Anything else I should know?",
]

# Memory statements as the extractor writes them: (category, kind, template).
MEMORY_ZH = [
    ("preference", "semantic", "用户不吃{food_zh}，推荐餐厅时要避开含{food_zh}的菜。"),
    ("preference", "semantic", "用户最喜欢{cuisine_zh}，口味偏清淡。"),
    ("preference", "procedural", "用户出差默认住{hotel}，希望离地铁近。"),
    ("preference", "procedural", "用户希望总结时{style_zh}，并且{style_zh2}。"),
    ("preference", "semantic", "用户坐飞机一般选{airline}，喜欢靠窗座位。"),
    ("plan", "episodic", "用户{weekday_zh}{hour_zh}要去{city_zh}见客户。"),
    ("plan", "episodic", "用户的{family_zh}下个月要参加{activity_zh}。"),
    ("fact", "semantic", "{team_zh}的周会在每{weekday_zh}{hour_zh}。"),
    ("fact", "semantic", "{project}项目的预算是{amount_zh}元。"),
    ("fact", "semantic", "用户的团队主要使用{tool}。"),
    ("profile", "semantic", "用户住在{city_zh}，平时骑车上班。"),
    ("profile", "semantic", "用户对{food_zh}过敏。"),
    ("decision", "semantic", "{project}项目决定下个季度在{city_zh}上线。"),
    ("correction", "semantic", "用户更正：{team_zh}周会改在{weekday_zh2}{hour_zh}。"),
]
MEMORY_EN = [
    ("preference", "semantic", "The user does not eat {food_en}; avoid dishes with {food_en}."),
    ("preference", "semantic", "The user likes {cuisine_en} food, preferably light."),
    ("preference", "procedural", "The user always stays at {hotel} hotels near the station."),
    ("preference", "procedural", "The user wants answers to {style_en} and {style_en2}."),
    ("preference", "semantic", "The user usually flies {airline} and prefers a window seat."),
    ("plan", "episodic", "The user flies to {city_en} on {weekday_en} at {hour_en} for a client."),
    ("plan", "episodic", "The user's {family_en} has a {activity_en} next month."),
    ("fact", "semantic", "The {team_en} weekly meeting is on {weekday_en} at {hour_en}."),
    ("fact", "semantic", "The budget for {project} is {amount_en} dollars."),
    ("fact", "semantic", "The user's team mostly uses {tool}."),
    ("profile", "semantic", "The user lives in {city_en} and bikes to work."),
    ("profile", "semantic", "The user is allergic to {food_en}."),
    ("decision", "semantic", "The team decided to launch {project} next quarter."),
    ("correction", "semantic", "Correction: the {team_en} review is on {weekday_en2}."),
]
MEMORY_MIXED = [
    ("fact", "semantic", "用户的 {tool} 服务都跑在 Kubernetes 上，用 Helm 部署。"),
    ("preference", "procedural", "用户希望 code review 时{style_zh}。"),
    ("plan", "episodic", "用户{weekday_zh}去 {city_en} 开会，住 {hotel}。"),
    ("fact", "semantic", "{project} 的 deadline 在{weekday_zh}。"),
    ("preference", "semantic", "用户喜欢 {cuisine_en}，不太能吃辣。"),
]

# Recall queries (what an agent asks before answering).
QUERIES = [
    "周末帮我订个餐厅",
    "下周去{city_zh}出差，帮我订酒店",
    "{team_zh}的周会是什么时候？",
    "{project}项目的预算是多少？",
    "帮我总结一下这份报告",
    "我{family_zh}最近有什么安排？",
    "给我推荐几个{cuisine_zh}馆子",
    "我对什么过敏？",
    "Book a table for dinner on Friday",
    "When is the {team_en} weekly meeting?",
    "What's the budget for {project}?",
    "Find me a hotel in {city_en} next week",
    "Which airline do I usually fly?",
    "Summarize this document for me",
    "What stack does my team use?",
    "帮我 check 一下 {project} 的 deadline",
    "我们用的是什么 database？",
    "continue where we left off on {project}",
]


def _slots(rng: random.Random) -> dict[str, str]:
    weekday = rng.randrange(7)
    style_zh, style_zh2 = rng.sample(STYLES_ZH, 2)
    style_en, style_en2 = rng.sample(STYLES_EN, 2)
    return {
        "city_zh": rng.choice(CITIES_ZH),
        "city_en": rng.choice(CITIES_EN),
        "cuisine_zh": rng.choice(CUISINES_ZH),
        "cuisine_en": rng.choice(CUISINES_EN),
        "hotel": rng.choice(HOTELS),
        "airline": rng.choice(AIRLINES),
        "tool": rng.choice(TOOLS),
        "weekday_zh": WEEKDAYS_ZH[weekday],
        "weekday_zh2": WEEKDAYS_ZH[(weekday + 2) % 7],
        "weekday_en": WEEKDAYS_EN[weekday],
        "weekday_en2": WEEKDAYS_EN[(weekday + 2) % 7],
        "team_zh": rng.choice(TEAMS_ZH),
        "team_en": rng.choice(TEAMS_EN),
        "food_zh": rng.choice(FOODS_ZH),
        "food_en": rng.choice(FOODS_EN),
        "family_zh": rng.choice(FAMILY_ZH),
        "family_en": rng.choice(FAMILY_EN),
        "activity_zh": rng.choice(ACTIVITIES_ZH),
        "activity_en": rng.choice(ACTIVITIES_EN),
        "style_zh": style_zh,
        "style_zh2": style_zh2,
        "style_en": style_en,
        "style_en2": style_en2,
        "project": rng.choice(PROJECTS),
        "amount_zh": rng.choice(AMOUNTS_ZH),
        "amount_en": rng.choice(AMOUNTS_EN),
        "hour_zh": rng.choice(HOURS_ZH),
        "hour_en": rng.choice(HOURS_EN),
    }


def conversation(rng: random.Random, turns: int) -> list[tuple[str, str]]:
    """`turns` alternating (role, content) turns, user first, in one language mix."""
    lang = rng.choices(["zh", "en", "mixed"], weights=[5, 3, 2])[0]
    users = {"zh": USER_ZH, "en": USER_EN, "mixed": USER_MIXED + USER_ZH}[lang]
    replies = ASSISTANT_EN if lang == "en" else ASSISTANT_ZH
    out = []
    for n in range(turns):
        pool = users if n % 2 == 0 else replies
        out.append(("user" if n % 2 == 0 else "assistant", rng.choice(pool).format(**_slots(rng))))
    return out


def memory_statement(rng: random.Random) -> tuple[str, str, str]:
    """(category, kind, content) of a realistic memory."""
    pool = rng.choices([MEMORY_ZH, MEMORY_EN, MEMORY_MIXED], weights=[5, 4, 1])[0]
    category, kind, template = rng.choice(pool)
    return category, kind, template.format(**_slots(rng))


def recall_query(rng: random.Random) -> str:
    return rng.choice(QUERIES).format(**_slots(rng))
