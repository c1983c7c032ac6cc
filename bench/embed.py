"""Embedding latency benchmark for the default embedder (ENGRAM_EMBEDDER, default "use").

    .venv/bin/python bench/embed.py [--repeat 50] [--embedder use|hashing|openai]

Prints model load time and ms/sentence for zh and en, one sentence per call and in batches
of 32 (median of `repeat` runs, plus p90 for single calls).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ZH = [
    "我不吃辣，千万别给我推荐川菜。",
    "产品部周会改到周三下午三点了。",
    "我们网络设备的预算是八万元。",
    "出差默认住全季酒店，离地铁近一点。",
    "我女儿下个月要参加钢琴考级。",
    "以后回答简洁一点，先给结论。",
    "我对花生过敏，吃了会起疹子。",
    "下周二要去上海见客户，早上九点的高铁。",
]
EN = [
    "I don't eat spicy food, please never suggest Sichuan dishes.",
    "The product team's weekly meeting moved to Wednesday at 3pm.",
    "Our budget for network equipment is 80,000 dollars.",
    "When travelling I usually stay at Hilton hotels near the station.",
    "My daughter has a piano exam next month.",
    "Please keep answers short and lead with the conclusion.",
    "I'm allergic to peanuts and get a rash from them.",
    "Next Tuesday I'm taking the 9am train to Boston to meet a client.",
]


def _time_ms(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from memory.embeddings import get_embedder

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--embedder", default=None, help="override ENGRAM_EMBEDDER")
    args = parser.parse_args(argv)

    embedder = get_embedder(args.embedder)
    t0 = time.perf_counter()
    embedder.embed(["warm up"])
    print(f"embedder: {embedder.name} (dim {embedder.dim})")
    print(f"load + first call: {(time.perf_counter() - t0) * 1000:.0f} ms")

    for lang, texts in (("zh", ZH), ("en", EN)):
        singles: list[float] = []
        for text in texts:
            singles.extend(_time_ms(lambda text=text: embedder.embed([text]), args.repeat))
        singles.sort()
        p90 = singles[int(len(singles) * 0.9)]
        batch = (texts * 4)[:32]
        per_batch = _time_ms(lambda batch=batch: embedder.embed(batch), args.repeat)
        batch_ms = statistics.median(per_batch)
        print(
            f"{lang} single:      {statistics.median(singles):7.2f} ms/sentence (p90 {p90:.2f} ms)"
        )
        print(f"{lang} batch of 32: {batch_ms / 32:7.2f} ms/sentence ({batch_ms:.1f} ms/batch)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
