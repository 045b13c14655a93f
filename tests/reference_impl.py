"""Independent, deliberately simple reference implementation of sqlndcg's ranking metrics.

Plain Python (stdlib only). It follows /work/shared/SEMANTICS.md and is used by the tests to check the SQL
implementation. Clarity over speed: loops, sorting and dicts only.
"""

import math

KINDS = ("cg", "dcg", "idcg", "ndcg", "p", "r", "ap", "rr", "hit", "judged")
AVERAGE_OK_KINDS = ("cg", "dcg", "idcg", "ndcg", "p", "r", "judged")


# ---------------------------------------------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------------------------------------------

def _gain(rel, gain):
    """Gain of a judged relevance `rel` (None = unjudged)."""
    if rel is None or rel <= 0:
        return 0.0
    if gain == "exponential":
        return float(2.0 ** rel - 1.0)
    if gain == "linear":
        return float(rel)
    # explicit map {grade: gain}; a positive grade missing from the map is a KeyError
    return float(gain[rel])


def _empty_value(empty):
    """Value for a query with nothing to find (no gain in the ideal source, or R = 0)."""
    if empty == "zero":
        return 0.0
    if empty == "skip":
        return None
    raise ValueError("query has nothing to find and empty='error'")


def _order_run_list(rows, ties):
    """rows: list of (doc_id, score) for one (group, query).

    Returns (ordered_doc_ids, tie_groups), where tie_groups is a list of (start, end) index ranges
    (0-based, end exclusive) covering the positions. With ties='doc_id' every position is its own group.
    """
    # score descending, then doc_id descending
    ordered = sorted(rows, key=lambda r: (r[1], r[0]), reverse=True)
    doc_ids = [r[0] for r in ordered]
    groups = []
    if ties == "average":
        start = 0
        for i in range(1, len(ordered) + 1):
            if i == len(ordered) or ordered[i][1] != ordered[start][1]:
                groups.append((start, i))
                start = i
    else:
        for i in range(len(ordered)):
            groups.append((i, i + 1))
    return doc_ids, groups


def _per_position(values, groups):
    """Per-position values after tie-averaging: each position gets the mean of its tie group."""
    out = [0.0] * len(values)
    for start, end in groups:
        mean = sum(values[start:end]) / (end - start)
        for i in range(start, end):
            out[i] = mean
    return out


def _run_cutoff(k, n):
    """Number of run positions that count at cutoff k (the list only has n positions, for pad and truncate)."""
    if k is None:
        return n
    return min(k, n)


def _denominator(k, n, short_lists):
    """Denominator of P@k and judged@k."""
    if k is None:
        return n
    if short_lists == "pad":
        return k
    return min(k, n)


def _ideal_cutoff(k, n, short_lists, length):
    """Number of ideal positions that count for IDCG@k."""
    if short_lists == "pad":
        if k is None:
            return length
        return min(k, length)
    # truncate: evaluate at min(k, n) (k None -> n)
    m = n if k is None else min(k, n)
    return min(m, length)


def _discounted_sum(values, cutoff):
    total = 0.0
    for i in range(cutoff):
        position = i + 1
        total += values[i] / math.log2(position + 1)
    return total


# ---------------------------------------------------------------------------------------------------------------
# public function
# ---------------------------------------------------------------------------------------------------------------

def reference_evaluate(run, judgments, metrics, *, gain="exponential", ideal="judgments", ties="doc_id",
                       short_lists="pad", empty="zero", queries="judged", threshold=1.0):
    """run: list of (group, query_id, doc_id, score) tuples; group is any hashable (use () when ungrouped);
    ids are str or int; score is a float (higher is better).
    judgments: list of (query_id, doc_id, rel) tuples (rel float, may be negative or fractional).
    metrics: list of (kind, k, rel_threshold) with kind in {"cg","dcg","idcg","ndcg","p","r","ap","rr","hit","judged"},
    k a positive int or None (full depth), rel_threshold a float or None (None = use `threshold`).
    gain: "exponential" (2**rel - 1), "linear" (rel), or a dict {grade: gain_value}.
    Returns {(group, query_id): {(kind, k, rel_threshold): value_or_None}} for every scored (group, query)."""

    # ---- validate settings ----
    if not (gain in ("exponential", "linear") or isinstance(gain, dict)):
        raise ValueError("unknown gain: %r" % (gain,))
    if ideal not in ("judgments", "retrieved"):
        raise ValueError("unknown ideal: %r" % (ideal,))
    if ties == "rank":
        raise ValueError("ties='rank' is not supported by the reference implementation")
    if ties not in ("doc_id", "average"):
        raise ValueError("unknown ties: %r" % (ties,))
    if short_lists not in ("pad", "truncate"):
        raise ValueError("unknown short_lists: %r" % (short_lists,))
    if empty not in ("zero", "skip", "error"):
        raise ValueError("unknown empty: %r" % (empty,))
    if queries not in ("judged", "both"):
        raise ValueError("unknown queries: %r" % (queries,))
    for kind, k, rel_threshold in metrics:
        if kind not in KINDS:
            raise ValueError("unknown metric kind: %r" % (kind,))
        if k is not None and (not isinstance(k, int) or isinstance(k, bool) or k < 1):
            raise ValueError("k must be a positive int or None, got %r" % (k,))
        if ties == "average" and kind not in AVERAGE_OK_KINDS:
            raise ValueError("ties='average' is only defined for %s, not %r" % (", ".join(AVERAGE_OK_KINDS), kind))
        t = threshold if rel_threshold is None else rel_threshold
        if not t > 0:
            raise ValueError("relevance threshold must be > 0, got %r" % (t,))

    # ---- judgments: {query: {doc: rel}} ----
    qrels = {}
    for query_id, doc_id, rel in judgments:
        docs = qrels.setdefault(query_id, {})
        if doc_id in docs:
            raise ValueError("duplicate judgment for (query, doc) = (%r, %r)" % (query_id, doc_id))
        docs[doc_id] = rel

    # ---- run: {(group, query): [(doc, score), ...]} and the groups in first-seen order ----
    lists = {}
    groups_seen = []
    seen_pairs = set()
    for group, query_id, doc_id, score in run:
        if score is None:
            raise ValueError("NULL score at (group, query, doc) = (%r, %r, %r)" % (group, query_id, doc_id))
        if (group, query_id, doc_id) in seen_pairs:
            raise ValueError("duplicate run row for (group, query, doc) = (%r, %r, %r)" % (group, query_id, doc_id))
        seen_pairs.add((group, query_id, doc_id))
        if group not in groups_seen:
            groups_seen.append(group)
        lists.setdefault((group, query_id), []).append((doc_id, score))

    # ---- which (group, query) pairs are scored ----
    if queries == "judged":
        judged_queries = []
        for query_id, _doc_id, _rel in judgments:
            if query_id not in judged_queries:
                judged_queries.append(query_id)
        scored = [(g, q) for g in groups_seen for q in judged_queries]
    else:
        scored = [(g, q) for (g, q) in lists if q in qrels]

    # ---- score each (group, query) ----
    results = {}
    for group, query_id in scored:
        rels = qrels.get(query_id, {})
        doc_ids, tie_groups = _order_run_list(lists.get((group, query_id), []), ties)
        n = len(doc_ids)

        def rel_of(doc, rels=rels):
            return rels.get(doc)  # None when unjudged

        # raw per-document quantities, in run order
        raw_gain = [_gain(rel_of(d), gain) for d in doc_ids]
        raw_cg = [float(max(rel_of(d), 0)) if rel_of(d) is not None else 0.0 for d in doc_ids]
        raw_judged = [1.0 if (rel_of(d) is not None and rel_of(d) >= 0) else 0.0 for d in doc_ids]

        # per-position quantities (tie-averaged when ties='average'; identical to raw otherwise)
        pos_gain = _per_position(raw_gain, tie_groups)
        pos_cg = _per_position(raw_cg, tie_groups)
        pos_judged = _per_position(raw_judged, tie_groups)

        # ideal gains (raw gains, positive only, sorted descending)
        if ideal == "judgments":
            source = [_gain(r, gain) for r in rels.values()]
        else:
            source = list(raw_gain)
        ideal_gains = sorted([g for g in source if g > 0], reverse=True)
        has_gain = len(ideal_gains) > 0

        values = {}
        for kind, k, rel_threshold in metrics:
            t = threshold if rel_threshold is None else rel_threshold
            cut = _run_cutoff(k, n)

            raw_rel = [1.0 if (rel_of(d) is not None and rel_of(d) >= t) else 0.0 for d in doc_ids]
            pos_rel = _per_position(raw_rel, tie_groups)
            r_total = 0
            for r in rels.values():
                if r >= t:
                    r_total += 1

            if kind == "cg":
                value = float(sum(pos_cg[:cut]))
            elif kind == "dcg":
                value = _discounted_sum(pos_gain, cut)
            elif kind in ("idcg", "ndcg"):
                idcg = _discounted_sum(ideal_gains, _ideal_cutoff(k, n, short_lists, len(ideal_gains)))
                if kind == "idcg":
                    value = idcg
                elif not has_gain:
                    value = _empty_value(empty)
                elif idcg == 0:
                    value = 0.0
                else:
                    value = _discounted_sum(pos_gain, cut) / idcg
            elif kind == "p":
                denom = _denominator(k, n, short_lists)
                value = 0.0 if denom == 0 else float(sum(pos_rel[:cut])) / denom
            elif kind == "judged":
                denom = _denominator(k, n, short_lists)
                value = 0.0 if denom == 0 else float(sum(pos_judged[:cut])) / denom
            elif kind == "r":
                if r_total == 0:
                    value = _empty_value(empty)
                else:
                    value = float(sum(pos_rel[:cut])) / r_total
            elif kind == "ap":
                if r_total == 0:
                    value = _empty_value(empty)
                else:
                    total = 0.0
                    found = 0
                    for i in range(cut):
                        if raw_rel[i] > 0:
                            found += 1
                            total += found / (i + 1)
                    value = total / r_total
            elif kind == "rr":
                value = 0.0
                for i in range(cut):
                    if raw_rel[i] > 0:
                        value = 1.0 / (i + 1)
                        break
            elif kind == "hit":
                value = 0.0
                for i in range(cut):
                    if raw_rel[i] > 0:
                        value = 1.0
                        break
            else:  # pragma: no cover - validated above
                raise ValueError(kind)
            values[(kind, k, rel_threshold)] = value
        results[(group, query_id)] = values
    return results


# ---------------------------------------------------------------------------------------------------------------
# self-check
# ---------------------------------------------------------------------------------------------------------------

if __name__ == "__main__":
    judg = [("q", "A", 3), ("q", "B", 2), ("q", "C", 0), ("q", "D", 1), ("q", "E", 2)]
    run_rows = [((), "q", d, s) for d, s in zip("ABCDE", [5.0, 4.0, 3.0, 2.0, 1.0])]
    mets = [(kind, k, None) for k in range(1, 6) for kind in ("cg", "dcg", "idcg", "ndcg")]
    res = reference_evaluate(run_rows, judg, mets)[((), "q")]
    expected = {
        1: (3, 7.000000, 7.000000, 1.000000),
        2: (5, 8.892789, 8.892789, 1.000000),
        3: (5, 8.892789, 10.392789, 0.855669),
        4: (6, 9.323466, 10.823466, 0.861412),
        5: (8, 10.484024, 10.823466, 0.968638),
    }
    for k, (cg, dcg, idcg, ndcg) in expected.items():
        assert round(res[("cg", k, None)], 6) == cg, (k, res[("cg", k, None)])
        assert round(res[("dcg", k, None)], 6) == dcg, (k, res[("dcg", k, None)])
        assert round(res[("idcg", k, None)], 6) == idcg, (k, res[("idcg", k, None)])
        assert round(res[("ndcg", k, None)], 6) == ndcg, (k, res[("ndcg", k, None)])

    lin = reference_evaluate(run_rows, judg, [("ndcg", 3, None), ("ndcg", 5, None)], gain="linear")[((), "q")]
    assert round(lin[("ndcg", 3, None)], 6) == 0.809953, lin
    assert round(lin[("ndcg", 5, None)], 6) == 0.960247, lin

    # swapping B and E leaves CG unchanged
    swapped = [((), "q", d, s) for d, s in zip("AECDB", [5.0, 4.0, 3.0, 2.0, 1.0])]
    sw = reference_evaluate(swapped, judg, [("cg", k, None) for k in range(1, 6)])[((), "q")]
    for k in range(1, 6):
        assert sw[("cg", k, None)] == res[("cg", k, None)]

    # ties='average' against scikit-learn (linear gain, ideal='retrieved')
    try:
        from sklearn.metrics import ndcg_score
    except ImportError:
        ndcg_score = None
        print("sklearn not importable: tie-averaged check skipped")
    if ndcg_score is not None:
        docs = ["d1", "d2", "d3", "d4", "d5", "d6", "d7"]
        scores = [3.0, 2.0, 2.0, 2.0, 1.0, 1.0, 0.5]
        rels_ = [0.0, 2.0, 1.0, 3.0, 0.0, 2.5, 1.0]
        run_t = [((), "t", d, s) for d, s in zip(docs, scores)]
        judg_t = [("t", d, r) for d, r in zip(docs, rels_)]
        ks = [1, 2, 3, 5, 7, None]
        got = reference_evaluate(run_t, judg_t, [("ndcg", k, None) for k in ks],
                                 gain="linear", ideal="retrieved", ties="average")[((), "t")]
        for k in ks:
            want = ndcg_score([rels_], [scores], k=k, ignore_ties=False)
            assert abs(got[("ndcg", k, None)] - want) < 1e-9, (k, got[("ndcg", k, None)], want)
        # sanity: tie averaging differs from doc_id tie-breaking here
        plain = reference_evaluate(run_t, judg_t, [("ndcg", 3, None)], gain="linear", ideal="retrieved")
        assert abs(plain[((), "t")][("ndcg", 3, None)] - got[("ndcg", 3, None)]) > 1e-6

    # ties='average' is refused for AP/RR/hit, ties='rank' is refused
    for bad_kind in ("ap", "rr", "hit"):
        try:
            reference_evaluate(run_rows, judg, [(bad_kind, 3, None)], ties="average")
        except ValueError:
            pass
        else:
            raise AssertionError("ties='average' accepted for %s" % bad_kind)
    try:
        reference_evaluate(run_rows, judg, [("ndcg", 3, None)], ties="rank")
    except ValueError:
        pass
    else:
        raise AssertionError("ties='rank' accepted")

    print("reference_impl self-check passed")
