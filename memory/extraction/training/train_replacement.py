"""Train the replacement model (memory/extraction/replacement.py) on the labelled pair corpus.

Logistic regression with L2 over standardised features, fitted by Newton's method (numpy only,
deterministic). Before the final fit it reports a leave-one-set-out cross-validation: each
scenario set is scored by a model trained on the others, so the figures say how the model does
on sets it never saw. The threshold is the one maximising F1 over those held-out scores.

    .venv/bin/python -m memory.extraction.training.train_replacement \\
        [--pairs memory/extraction/data/replace_pairs.jsonl] \\
        [--out memory/extraction/data/replacement_model.json]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[1] / "data"
L2 = 1.0


def _at(value: str | None) -> dt.datetime | None:
    return dt.datetime.fromisoformat(value) if value else None


def load(path: Path) -> tuple[np.ndarray, np.ndarray, list[str]]:
    from memory.extraction.replacement import Statement, features, later_conversation

    xs, ys, groups = [], [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        new, old = row["new"], row["old"]
        if not later_conversation(_at(new.get("at")), _at(old.get("at"))):
            continue  # the model judges statements of different conversations only
        x = features(
            Statement(
                content=new["content"],
                category=new["category"],
                quote=new.get("quote", ""),
                confidence=new["confidence"],
                context=tuple(new.get("context", ())),
                at=_at(new.get("at")),
            ),
            Statement(content=old["content"], category=old["category"], at=_at(old.get("at"))),
            row["similarity"],
            row.get("others", []),
        )
        xs.append(x)
        ys.append(row["label"])
        groups.append(row["set"])
    return np.array(xs, dtype=float), np.array(ys, dtype=float), groups


def fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / scale])
    w = np.zeros(z.shape[1])
    reg = np.full(z.shape[1], L2)
    reg[0] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-z @ w))
        grad = z.T @ (p - y) + reg * w
        hess = (z * (p * (1 - p))[:, None]).T @ z + np.diag(reg)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w[1:], float(w[0]), mean, scale


def predict(model, x: np.ndarray) -> np.ndarray:
    w, b, mean, scale = model
    return 1 / (1 + np.exp(-(b + ((x - mean) / scale) @ w)))


def auc(y: np.ndarray, p: np.ndarray) -> float:
    order = np.argsort(p)
    ranks = np.empty(len(p))
    ranks[order] = np.arange(1, len(p) + 1)
    pos = y == 1
    n_pos, n_neg = pos.sum(), (~pos).sum()
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


# F-beta with beta 1.5, recall weighing more: a wrong overwrite stays in the version chain,
# where the person or an operator can restore it; a missed one leaves the stale value beside the
# new one in every recall. (Over 0.35–0.5 the F1 curve is flat, so F1's own maximum wanders
# with every change of a feature.)
BETA = 1.5


def best_threshold(y: np.ndarray, p: np.ndarray) -> tuple[float, float, float, float]:
    best = (0.5, 0.0, 0.0, 0.0)
    for t in np.arange(0.2, 0.9, 0.01):
        tp = ((p >= t) & (y == 1)).sum()
        fp = ((p >= t) & (y == 0)).sum()
        fn = ((p < t) & (y == 1)).sum()
        prec = tp / (tp + fp) if tp + fp else 0.0
        rec = tp / (tp + fn) if tp + fn else 0.0
        b2 = BETA * BETA
        f_score = (1 + b2) * prec * rec / (b2 * prec + rec) if prec + rec else 0.0
        if f_score > best[1]:
            best = (round(float(t), 2), f_score, prec, rec)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=Path, default=DATA / "replace_pairs.jsonl")
    ap.add_argument("--out", type=Path, default=DATA / "replacement_model.json")
    args = ap.parse_args(argv)
    from memory.extraction.training.collect_pairs import setup_django

    setup_django()
    from memory.extraction.replacement import FEATURES

    x, y, groups = load(args.pairs)
    print(f"{len(y)} pairs, {int(y.sum())} positive, {len(set(groups))} sets")
    held_out = np.zeros(len(y))
    for name in sorted(set(groups)):
        test = np.array([g == name for g in groups])
        held_out[test] = predict(fit(x[~test], y[~test]), x[test])
    t, f_score, prec, rec = best_threshold(y, held_out)
    print(
        f"leave-one-set-out: AUC {auc(y, held_out):.3f}; at {t}: F{BETA:g} {f_score:.3f}, "
        f"precision {prec:.3f}, recall {rec:.3f}"
    )
    model = fit(x, y)
    w, b, mean, scale = model
    for name, weight in sorted(zip(FEATURES, w, strict=True), key=lambda p: -abs(p[1])):
        print(f"  {name:<18} {weight:+.3f}")
    args.out.write_text(
        json.dumps(
            {
                "features": list(FEATURES),
                "weights": [round(float(v), 6) for v in w],
                "bias": round(b, 6),
                "mean": [round(float(v), 6) for v in mean],
                "scale": [round(float(v), 6) for v in scale],
                "threshold": t,
                "trained_on": {
                    "pairs": len(y),
                    "positive": int(y.sum()),
                    "sets": sorted(set(groups)),
                },
                "cross_validation": {
                    "auc": round(auc(y, held_out), 4),
                    "f_score": round(f_score, 4),
                    "precision": round(prec, 4),
                    "recall": round(rec, 4),
                },
            },
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )
    print(f"→ {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
