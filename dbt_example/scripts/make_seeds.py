"""Write the example's seeds: logged rankings of two systems over four days, and the behaviour events (click,
add-to-cart, purchase) that the `judgments` model grades. Deterministic: the same files on every run.

    python dbt_example/scripts/make_seeds.py
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

SEEDS = Path(__file__).resolve().parent.parent / "seeds"
DAYS = ["2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04"]
SYSTEMS = {"baseline": 0.0, "ltr_v2": 0.35}  # how strongly each system's score follows the true relevance


def main() -> None:
    rng = random.Random(20261101)
    rankings, events = [], []
    for ds in DAYS:
        for q in range(1, 16):
            query = f"q{q:02d}"
            docs = [f"sku-{q:02d}-{d:02d}" for d in range(1, 13)]
            truth = {d: rng.choice([0, 0, 0, 0, 1, 1, 2, 3]) for d in docs}
            for system, skill in SYSTEMS.items():
                shown = docs[: rng.randint(6, 10)] if q != 15 else docs[:3]
                for doc in shown:
                    score = round(rng.random() + skill * truth[doc], 2)
                    rankings.append((system, ds, query, doc, score))
            for doc, grade in truth.items():
                # The strongest event a user showed for the document that day; some repeat or conflict.
                kinds = ["click", "add_to_cart", "purchase"][:grade]
                for kind in kinds:
                    for _ in range(rng.randint(1, 2)):
                        events.append((ds, query, doc, kind))
    _write("rankings.csv", ("system", "ds", "query_id", "doc_id", "score"), rankings)
    _write("events.csv", ("ds", "query_id", "doc_id", "event"), events)


def _write(name: str, header: tuple, rows: list) -> None:
    with open(SEEDS / name, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


if __name__ == "__main__":
    main()
