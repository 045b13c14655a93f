WITH run_rows AS (
  SELECT
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
    CASE
      WHEN _rel = CAST(1.0 AS DOUBLE)
      THEN CAST(1.0 AS DOUBLE)
      WHEN _rel = CAST(2.0 AS DOUBLE)
      THEN CAST(3.0 AS DOUBLE)
      WHEN _rel = CAST(3.0 AS DOUBLE)
      THEN CAST(7.0 AS DOUBLE)
      ELSE 0
    END AS _gain,
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
    _q,
    1 AS _in_run
  FROM run_rows
), labelled AS (
  SELECT
    r._q AS _q,
    r._d AS _d,
    r._key AS _key,
    COALESCE(l._gain, 0) AS _gain,
    COALESCE(l._cg, 0) AS _cg,
    COALESCE(l._rel_t0, 0) AS _rel_t0,
    COALESCE(l._pool, 0) AS _pool,
    COALESCE(l._judged, 0) AS _judged
  FROM run_rows AS r
  LEFT JOIN labels AS l
    ON l._q = r._q AND l._d = r._d
), ranked AS (
  SELECT
    _q,
    _d,
    _key,
    _gain,
    _cg,
    _rel_t0,
    _pool,
    _judged,
    ROW_NUMBER() OVER (PARTITION BY _q ORDER BY _key DESC, _d DESC) AS _pos,
    RANK() OVER (PARTITION BY _q ORDER BY _key DESC) AS _tie_start
  FROM labelled
), top_ranked AS (
  SELECT
    _q,
    _d,
    _key,
    _pos,
    _tie_start,
    _gain,
    _cg,
    _rel_t0,
    _pool,
    _judged
  FROM ranked
), scored AS (
  SELECT
    r._gain AS _gain,
    r._cg AS _cg,
    r._rel_t0 AS _rel_t0,
    r._pool AS _pool,
    r._judged AS _judged,
    r._q AS _q,
    r._d AS _d,
    r._key AS _key,
    r._pos AS _pos
  FROM top_ranked AS r
), positioned AS (
  SELECT
    _q,
    _pos,
    _judged,
    _pool,
    _rel_t0,
    AVG(CAST(_gain AS DOUBLE)) OVER (
      PARTITION BY _q, _key
      ORDER BY _pos NULLS FIRST
      ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING
    ) AS _gain_at,
    AVG(CAST(_cg AS DOUBLE)) OVER (
      PARTITION BY _q, _key
      ORDER BY _pos NULLS FIRST
      ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING
    ) AS _cg_at,
    AVG(CAST(_judged AS DOUBLE)) OVER (
      PARTITION BY _q, _key
      ORDER BY _pos NULLS FIRST
      ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING
    ) AS _judged_at,
    AVG(CAST(_rel_t0 AS DOUBLE)) OVER (
      PARTITION BY _q, _key
      ORDER BY _pos NULLS FIRST
      ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING
    ) AS _rel_t0_at,
    ROW_NUMBER() OVER (PARTITION BY _q ORDER BY _gain DESC) AS _ideal_pos,
    _gain
  FROM scored
), accumulated AS (
  SELECT
    _q,
    _pos,
    _judged,
    _pool,
    _rel_t0,
    SUM(_judged_at) OVER (
      PARTITION BY _q
      ORDER BY _pos NULLS FIRST
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS _judged_run,
    SUM(_rel_t0_at) OVER (
      PARTITION BY _q
      ORDER BY _pos NULLS FIRST
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS _hits_run_t0,
    _ideal_pos,
    _gain_at / system.main.log2(CAST(CAST(_pos AS DOUBLE) + 1 AS DOUBLE)) AS _dcg_term,
    _gain / system.main.log2(CAST(CAST(_ideal_pos AS DOUBLE) + 1 AS DOUBLE)) AS _idcg_term,
    _gain
  FROM positioned
), run_lists AS (
  SELECT
    _q,
    MAX(_pos) AS _n,
    MAX(CASE WHEN _pos <= 5 THEN _judged_run ELSE 0 END) AS _judged_5,
    MAX(CASE WHEN _pos <= 3 THEN _hits_run_t0 ELSE 0 END) AS _hits_3_t0,
    ARRAY_AGG(_dcg_term ORDER BY _pos) AS _dcg_list,
    ARRAY_AGG(_idcg_term ORDER BY _ideal_pos) AS _idcg_list,
    MAX(CASE WHEN _gain > 0 THEN 1 ELSE 0 END) AS _has_gain
  FROM accumulated
  GROUP BY
    _q
), run_metrics AS (
  SELECT
    COALESCE(LIST_SUM(LIST_SLICE(_dcg_list, 1, 5)), 0) AS _dcg_5,
    COALESCE(LIST_SUM(LIST_SLICE(_idcg_list, 1, 5)), 0) AS _idcg_5,
    COALESCE(LIST_SUM(_dcg_list), 0) AS _dcg_all,
    COALESCE(LIST_SUM(_idcg_list), 0) AS _idcg_all,
    *
    EXCLUDE (_dcg_list, _idcg_list)
  FROM run_lists
), scored_queries AS (
  SELECT
    jq._q AS _q
  FROM judged_queries AS jq
)
SELECT
  sq._q AS "query_id",
  CAST(CASE
    WHEN COALESCE(rm._has_gain, 0) = 0
    THEN 0
    WHEN COALESCE(rm._idcg_5, 0) = 0
    THEN 0
    ELSE COALESCE(rm._dcg_5, 0) / COALESCE(rm._idcg_5, 0)
  END AS DOUBLE) AS "ndcg@5",
  CAST(CASE
    WHEN COALESCE(rm._has_gain, 0) = 0
    THEN 0
    WHEN COALESCE(rm._idcg_all, 0) = 0
    THEN 0
    ELSE COALESCE(rm._dcg_all, 0) / COALESCE(rm._idcg_all, 0)
  END AS DOUBLE) AS "ndcg",
  CAST(CASE
    WHEN CASE WHEN COALESCE(rm._n, 0) < 3 THEN COALESCE(rm._n, 0) ELSE 3 END = 0
    THEN 0
    ELSE CAST(COALESCE(rm._hits_3_t0, 0) AS DOUBLE) / CASE WHEN COALESCE(rm._n, 0) < 3 THEN COALESCE(rm._n, 0) ELSE 3 END
  END AS DOUBLE) AS "p@3",
  CAST(CASE
    WHEN CASE WHEN COALESCE(rm._n, 0) < 5 THEN COALESCE(rm._n, 0) ELSE 5 END = 0
    THEN 0
    ELSE CAST(COALESCE(rm._judged_5, 0) AS DOUBLE) / CASE WHEN COALESCE(rm._n, 0) < 5 THEN COALESCE(rm._n, 0) ELSE 5 END
  END AS DOUBLE) AS "judged@5"
FROM scored_queries AS sq
LEFT JOIN run_metrics AS rm
  ON rm._q = sq._q
LEFT JOIN judged_queries AS jq
  ON jq._q = sq._q
ORDER BY
  sq._q
