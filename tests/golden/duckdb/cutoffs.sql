WITH run_rows AS (
  SELECT
    "system" AS _g0,
    CAST("query_id" AS TEXT) COLLATE "binary" AS _q,
    CAST("doc_id" AS TEXT) COLLATE "binary" AS _d,
    "score" AS _key
  FROM "runs" AS run_input
), judgment_rows AS (
  SELECT
    CAST("query_id" AS TEXT) COLLATE "binary" AS _q,
    CAST("doc_id" AS TEXT) COLLATE "binary" AS _d,
    CAST("rel" AS DOUBLE) AS _rel
  FROM "qrels" AS judgments_input
), labels AS (
  SELECT
    _q,
    _d,
    _rel,
    CASE WHEN _rel > 0 THEN (
      POWER(CAST(2 AS DOUBLE), _rel) - 1
    ) ELSE 0 END AS _gain,
    CASE WHEN _rel > 0 THEN _rel ELSE 0 END AS _cg,
    CASE WHEN _rel >= CAST(1.0 AS DOUBLE) THEN 1 ELSE 0 END AS _rel_t0,
    CASE WHEN _rel >= 0 AND _rel < CAST(1.0 AS DOUBLE) THEN 1 ELSE 0 END AS _nonrel_t0,
    CASE WHEN _rel < 0 THEN 1 ELSE 0 END AS _pool,
    CASE WHEN _rel >= 0 THEN 1 ELSE 0 END AS _judged
  FROM judgment_rows
), judged_queries AS (
  SELECT
    _q,
    SUM(_rel_t0) AS _r_t0,
    SUM(_nonrel_t0) AS _nr_t0,
    MAX(_cg) AS _max_rel,
    MAX(CASE WHEN _gain > 0 THEN 1 ELSE 0 END) AS _has_gain
  FROM labels
  GROUP BY
    _q
), run_queries AS (
  SELECT DISTINCT
    _g0,
    _q,
    1 AS _in_run
  FROM run_rows
), top_lists AS (
  SELECT
    _g0,
    _q,
    ARG_MIN(_d, CREATE_SORT_KEY(_key, 'DESC NULLS LAST', _d, 'DESC NULLS LAST'), 10) AS _docs
  FROM run_rows
  GROUP BY
    _g0,
    _q
), top_ranked AS (
  SELECT
    _g0,
    _q,
    UNNEST(_docs) AS _d,
    UNNEST(RANGE(1, LENGTH(_docs) + 1)) AS _pos
  FROM top_lists
), scored AS (
  SELECT
    r._g0 AS _g0,
    COALESCE(l._gain, 0) AS _gain,
    COALESCE(l._cg, 0) AS _cg,
    COALESCE(l._rel_t0, 0) AS _rel_t0,
    COALESCE(l._pool, 0) AS _pool,
    COALESCE(l._judged, 0) AS _judged,
    r._q AS _q,
    r._d AS _d,
    r._pos AS _pos
  FROM top_ranked AS r
  LEFT JOIN labels AS l
    ON l._q = r._q AND l._d = r._d
), positioned AS (
  SELECT
    _g0,
    _q,
    _pos,
    _judged,
    _pool,
    _rel_t0,
    _gain AS _gain_at,
    _cg AS _cg_at,
    _judged AS _judged_at,
    _rel_t0 AS _rel_t0_at,
    SUM(_rel_t0) OVER (
      PARTITION BY _g0, _q
      ORDER BY _pos NULLS FIRST
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS _seen_t0,
    _gain
  FROM scored
), accumulated AS (
  SELECT
    _g0,
    _q,
    _pos,
    _judged,
    _pool,
    _rel_t0,
    _gain_at / system.main.log2(CAST(CAST(_pos AS DOUBLE) + 1 AS DOUBLE)) AS _dcg_term,
    CASE WHEN _rel_t0 = 1 THEN CAST(_seen_t0 AS DOUBLE) / _pos ELSE 0 END AS _ap_t0_term,
    _gain
  FROM positioned
), run_lists AS (
  SELECT
    _g0,
    _q,
    MAX(_pos) AS _n,
    SUM(CASE WHEN _pos <= 5 THEN _rel_t0 ELSE 0 END) AS _hits_5_t0,
    MIN(CASE WHEN _rel_t0 = 1 THEN _pos ELSE NULL END) AS _first_t0,
    ARRAY_AGG(_dcg_term ORDER BY _pos) AS _dcg_list,
    ARRAY_AGG(_ap_t0_term ORDER BY _pos) AS _ap_t0_list,
    MAX(CASE WHEN _gain > 0 THEN 1 ELSE 0 END) AS _has_gain
  FROM accumulated
  GROUP BY
    _g0,
    _q
), run_metrics AS (
  SELECT
    COALESCE(LIST_SUM(LIST_SLICE(_dcg_list, 1, 10)), 0) AS _dcg_10,
    COALESCE(LIST_SUM(LIST_SLICE(_ap_t0_list, 1, 10)), 0) AS _ap_10_t0,
    *
    EXCLUDE (_dcg_list, _ap_t0_list)
  FROM run_lists
), ideal_dcg AS (
  SELECT
    il._q AS _q,
    COALESCE(LIST_SUM(LIST_SLICE(il._idcg_list, 1, 10)), 0) AS _idcg_10
  FROM (
    SELECT
      _q,
      LIST_TRANSFORM(
        _top,
        LAMBDA _g, _i : _g / system.main.log2(CAST(CAST(_i AS DOUBLE) + 1 AS DOUBLE))
      ) AS _idcg_list,
      _top AS _icg_list
    FROM (
      SELECT
        _q,
        MAX(_gain, 10) FILTER(WHERE
          _gain > 0) AS _top
      FROM labels
      GROUP BY
        _q
    ) AS tops
  ) AS il
), scored_queries AS (
  SELECT
    rg._g0 AS _g0,
    jq._q AS _q
  FROM (
    SELECT DISTINCT
      _g0
    FROM run_queries
  ) AS rg
  CROSS JOIN judged_queries AS jq
)
SELECT
  sq._g0 AS "system",
  sq._q AS "query_id",
  CAST(CASE
    WHEN COALESCE(jq._has_gain, 0) = 0
    THEN 0
    WHEN COALESCE(idl._idcg_10, 0) = 0
    THEN 0
    ELSE COALESCE(rm._dcg_10, 0) / COALESCE(idl._idcg_10, 0)
  END AS DOUBLE) AS "ndcg@10",
  CAST(CASE WHEN 5 = 0 THEN 0 ELSE CAST(COALESCE(rm._hits_5_t0, 0) AS DOUBLE) / 5 END AS DOUBLE) AS "p@5",
  CAST(CASE
    WHEN COALESCE(jq._r_t0, 0) = 0
    THEN 0
    ELSE COALESCE(rm._ap_10_t0, 0) / COALESCE(jq._r_t0, 0)
  END AS DOUBLE) AS "map@10",
  CAST(CASE
    WHEN COALESCE(rm._first_t0, 0) > 0 AND COALESCE(rm._first_t0, 0) <= 10
    THEN 1 / CAST(rm._first_t0 AS DOUBLE)
    ELSE 0
  END AS DOUBLE) AS "rr@10"
FROM scored_queries AS sq
LEFT JOIN run_metrics AS rm
  ON rm._q = sq._q AND rm._g0 = sq._g0
LEFT JOIN judged_queries AS jq
  ON jq._q = sq._q
LEFT JOIN ideal_dcg AS idl
  ON idl._q = sq._q
ORDER BY
  sq._g0,
  sq._q
