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
    rankings, events, last_truth = [], [], {}
    for ds in DAYS:
        for q in range(1, 16):
            query = f"q{q:02d}"
            docs = [f"sku-{q:02d}-{d:02d}" for d in range(1, 13)]
            truth = {d: rng.choice([0, 0, 0, 0, 1, 1, 2, 3]) for d in docs}
            last_truth.update({(query, d): g for d, g in truth.items()})  # the last day's, for the clicks
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
    _catalog(rng)
    _write("events.csv", ("ds", "query_id", "doc_id", "event"), events)
    _click_log()
    _click_rankers()
    _interleaved_clicks([r for r in rankings if r[1] == DAYS[-1]], last_truth)
    _intent_judgments()


def _intent_judgments() -> None:
    """Diversity judgments of the rankings' documents (query_id, intent, doc_id, rel): 1 to 4 intents per query,
    each of some documents judged 0, 1 or 2 for it; q13 judged with nothing relevant, q15 not judged. Their own
    random stream, so the other seeds stay as they were."""
    rng = random.Random(32)
    rows = []
    for q in range(1, 15):
        query = f"q{q:02d}"
        docs = [f"sku-{q:02d}-{d:02d}" for d in range(1, 13)]
        for intent in range(1, rng.randint(1, 4) + 1):
            for doc in rng.sample(docs, rng.randint(2, 7)):
                rows.append((query, intent, doc, 0 if q == 13 else rng.choice([0, 1, 1, 2])))
    _write("intent_judgments.csv", ("query_id", "intent", "doc_id", "rel"), rows)


def _catalog(rng: random.Random) -> None:
    """The catalog the rankings draw from: every sku of every query (15 x 12) with a category and a popularity
    (interactions, at least 1), the `catalog_measures` model's items table."""
    categories = ["shoes", "bags", "hats", "belts"]
    rows = [(f"sku-{q:02d}-{d:02d}", rng.choice(categories), 1 + int(1000 / (d + rng.random())))
            for q in range(1, 16) for d in range(1, 13)]
    _write("catalog_items.csv", ("doc_id", "category", "popularity"), rows)


def _click_log() -> None:
    """The first 300 impressions of the bundled click log (sqlndcg/examples/clicks.csv, from the tests' seeded
    simulator: users examine position p with probability 1 / p^0.8), without its logged propensity column."""
    source = SEEDS.parent.parent / "sqlndcg" / "examples" / "clicks.csv"
    with open(source, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    keep = [header.index(c) for c in ("impression_id", "query_id", "doc_id", "position", "click", "randomized")]
    first = {f"i{i}" for i in range(1, 301)}
    _write("click_log.csv", tuple(header[i] for i in keep), [[r[i] for i in keep] for r in body if r[0] in first])


def _click_rankers() -> None:
    """Two rankings of the click log's queries: production's order as logged in its unshuffled impressions (score =
    -position), and a new ranker's run (sqlndcg/examples/clicks_run.csv, with documents production never shows)."""
    examples = SEEDS.parent.parent / "sqlndcg" / "examples"
    with open(examples / "clicks.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    production = {(r["query_id"], r["doc_id"]): -int(r["position"]) for r in rows if r["randomized"] == "0"}
    _write("click_production.csv", ("query_id", "doc_id", "score"), [(q, d, s) for (q, d), s in sorted(production.items())])
    with open(examples / "clicks_run.csv", newline="") as f:
        _write("click_ranker.csv", ("query_id", "doc_id", "score"), [tuple(r) for r in list(csv.reader(f))[1:]])


def _interleaved_clicks(last_day: list, truth: dict) -> None:
    """Clicks on the lists the `interleaved_lists` model makes (baseline and ltr_v2 of the last day, team-draft,
    k=5, seed=7, three impressions per query): a user examines position p with probability 1 / p and clicks an
    examined document with probability (2^grade - 1) / 8."""
    import pandas as pd

    import sqlndcg

    runs = {s: pd.DataFrame([r[2:] for r in last_day if r[0] == s], columns=["query_id", "doc_id", "score"])
            for s in SYSTEMS}
    shown = pd.DataFrame([(f"{q}-{n}", q) for q in sorted(set(runs["baseline"].query_id)) for n in (1, 2, 3)],
                         columns=["impression_id", "query_id"])
    _write("interleaving_impressions.csv", ("impression_id", "query_id"), shown.itertuples(index=False))
    lists = sqlndcg.interleave(runs["baseline"], runs["ltr_v2"], k=5, seed=7, impressions=shown).table.to_dicts()
    rng = random.Random(7)
    rows = [(r["impression_id"], r["query_id"], r["doc_id"], r["position"],
             int(rng.random() < 1 / r["position"] and rng.random() < (2 ** truth[(r["query_id"], r["doc_id"])] - 1) / 8),
             r["team"]) for r in lists]
    _write("interleaved_clicks.csv", ("impression_id", "query_id", "doc_id", "position", "click", "team"), rows)


def _write(name: str, header: tuple, rows: list) -> None:
    with open(SEEDS / name, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


if __name__ == "__main__":
    main()
