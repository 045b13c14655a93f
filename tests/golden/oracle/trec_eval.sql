-- sqlndcg: transpiled by sqlglot from the portable DuckDB SQL to oracle, which has no dialect file of its own (sql/macros/dialects/) and is not run in sqlndcg's tests
WITH "run_rows" AS (
  SELECT
    CAST("query_id" AS VARCHAR2(4000)) AS "_q",
    CAST("doc_id" AS VARCHAR2(4000)) AS "_d",
    "score" AS "_key"
  FROM "runs" "run_input"
), "judgment_rows" AS (
  SELECT
    CAST("query_id" AS VARCHAR2(4000)) AS "_q",
    CAST("doc_id" AS VARCHAR2(4000)) AS "_d",
    (
      CASE
        WHEN CAST("rel" AS DOUBLE PRECISION) >= 0
        THEN FLOOR(CAST("rel" AS DOUBLE PRECISION))
        ELSE CEIL(CAST("rel" AS DOUBLE PRECISION))
      END
    ) AS "_rel"
  FROM "qrels" "judgments_input"
), "labels" AS (
  SELECT
    "_q",
    "_d",
    "_rel",
    CASE WHEN "_rel" > 0 THEN "_rel" ELSE 0 END AS "_gain",
    CASE WHEN "_rel" > 0 THEN "_rel" ELSE 0 END AS "_cg",
    CASE WHEN "_rel" >= CAST(1.0 AS DOUBLE PRECISION) THEN 1 ELSE 0 END AS "_rel_t0",
    CASE WHEN "_rel" >= 0 AND "_rel" < CAST(1.0 AS DOUBLE PRECISION) THEN 1 ELSE 0 END AS "_nonrel_t0",
    CASE WHEN "_rel" < 0 THEN 1 ELSE 0 END AS "_pool",
    CASE WHEN "_rel" >= 0 THEN 1 ELSE 0 END AS "_judged"
  FROM "judgment_rows"
), "judged_queries" AS (
  SELECT
    "_q",
    SUM("_rel_t0") AS "_r_t0",
    SUM("_nonrel_t0") AS "_nr_t0",
    MAX("_cg") AS "_max_rel",
    MAX(CASE WHEN "_gain" > 0 THEN 1 ELSE 0 END) AS "_has_gain"
  FROM "labels"
  GROUP BY
    "_q"
), "run_queries" AS (
  SELECT DISTINCT
    "_q",
    1 AS "_in_run"
  FROM "run_rows"
), "labelled" AS (
  SELECT
    "r"."_q" AS "_q",
    "r"."_d" AS "_d",
    "r"."_key" AS "_key",
    COALESCE("l"."_gain", 0) AS "_gain",
    COALESCE("l"."_cg", 0) AS "_cg",
    COALESCE("l"."_rel_t0", 0) AS "_rel_t0",
    COALESCE("l"."_pool", 0) AS "_pool",
    COALESCE("l"."_judged", 0) AS "_judged"
  FROM "run_rows" "r"
  LEFT JOIN "labels" "l"
    ON "l"."_q" = "r"."_q" AND "l"."_d" = "r"."_d"
), "ranked" AS (
  SELECT
    "_q",
    "_d",
    "_key",
    "_gain",
    "_cg",
    "_rel_t0",
    "_pool",
    "_judged",
    SUM("_rel_t0") OVER (
      PARTITION BY "_q"
      ORDER BY "_key" DESC NULLS LAST, "_d" DESC NULLS LAST
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS "_seen_t0",
    ROW_NUMBER() OVER (PARTITION BY "_q" ORDER BY "_key" DESC NULLS LAST, "_d" DESC NULLS LAST) AS "_pos"
  FROM "labelled"
), "top_ranked" AS (
  SELECT
    "_q",
    "_d",
    "_key",
    "_pos",
    "_gain",
    "_cg",
    "_rel_t0",
    "_pool",
    "_judged",
    "_seen_t0"
  FROM "ranked"
), "ideal_order" AS (
  SELECT
    "_q",
    "_gain",
    ROW_NUMBER() OVER (PARTITION BY "_q" ORDER BY "_gain" DESC NULLS LAST) AS "_ideal_pos"
  FROM "labels"
  WHERE
    "_gain" > 0
), "ideal_ranking" AS (
  SELECT
    "_q",
    "_ideal_pos",
    "_gain",
    SUM(
      "_gain" * (
        LN(CAST(2 AS DOUBLE PRECISION)) / LN(CAST("_ideal_pos" AS DOUBLE PRECISION) + 1)
      )
    ) OVER (
      PARTITION BY "_q"
      ORDER BY "_ideal_pos" NULLS FIRST
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS "_idcg_run"
  FROM "ideal_order"
), "scored" AS (
  SELECT
    "r"."_gain" AS "_gain",
    "r"."_cg" AS "_cg",
    "r"."_rel_t0" AS "_rel_t0",
    "r"."_pool" AS "_pool",
    "r"."_judged" AS "_judged",
    "r"."_seen_t0" AS "_seen_t0",
    "r"."_q" AS "_q",
    "r"."_d" AS "_d",
    "r"."_key" AS "_key",
    "r"."_pos" AS "_pos"
  FROM "top_ranked" "r"
), "positioned" AS (
  SELECT
    "_q",
    "_pos",
    "_judged",
    "_pool",
    "_rel_t0",
    "_gain" AS "_gain_at",
    "_cg" AS "_cg_at",
    "_judged" AS "_judged_at",
    "_rel_t0" AS "_rel_t0_at",
    "_seen_t0" AS "_seen_t0",
    "_gain"
  FROM "scored"
), "accumulated" AS (
  SELECT
    "_q",
    "_pos",
    "_judged",
    "_pool",
    "_rel_t0",
    SUM(
      "_gain_at" * (
        LN(CAST(2 AS DOUBLE PRECISION)) / LN(CAST("_pos" AS DOUBLE PRECISION) + 1)
      )
    ) OVER (
      PARTITION BY "_q"
      ORDER BY "_pos" NULLS FIRST
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS "_dcg_run",
    SUM(
      CASE
        WHEN "_rel_t0" = 1
        THEN CAST("_seen_t0" AS DOUBLE PRECISION) / "_pos"
        ELSE 0
      END
    ) OVER (
      PARTITION BY "_q"
      ORDER BY "_pos" NULLS FIRST
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS "_ap_run_t0",
    "_gain"
  FROM "positioned"
), "run_metrics" AS (
  SELECT
    "_q",
    MAX("_pos") AS "_n",
    MAX(CASE WHEN "_pos" <= 10 THEN "_dcg_run" ELSE 0 END) AS "_dcg_10",
    SUM(CASE WHEN "_pos" <= 10 THEN "_rel_t0" ELSE 0 END) AS "_hits_10_t0",
    MAX(CASE WHEN 1 = 1 THEN "_ap_run_t0" ELSE 0 END) AS "_ap_all_t0",
    MIN(CASE WHEN "_rel_t0" = 1 THEN "_pos" ELSE NULL END) AS "_first_t0",
    MAX(CASE WHEN "_gain" > 0 THEN 1 ELSE 0 END) AS "_has_gain"
  FROM "accumulated"
  GROUP BY
    "_q"
), "ideal_dcg" AS (
  SELECT
    "_q",
    MAX(CASE WHEN "_ideal_pos" <= 10 THEN "_idcg_run" ELSE 0 END) AS "_idcg_10"
  FROM "ideal_ranking"
  GROUP BY
    "_q"
), "scored_queries" AS (
  SELECT
    "jq"."_q" AS "_q"
  FROM "judged_queries" "jq"
)
SELECT
  "sq"."_q" AS "query_id",
  CAST(CASE
    WHEN COALESCE("jq"."_has_gain", 0) = 0
    THEN 0
    WHEN COALESCE("idl"."_idcg_10", 0) = 0
    THEN 0
    ELSE COALESCE("rm"."_dcg_10", 0) / COALESCE("idl"."_idcg_10", 0)
  END AS DOUBLE PRECISION) AS "ndcg@10",
  CAST(CASE
    WHEN 10 = 0
    THEN 0
    ELSE CAST(COALESCE("rm"."_hits_10_t0", 0) AS DOUBLE PRECISION) / 10
  END AS DOUBLE PRECISION) AS "p@10",
  CAST(CASE
    WHEN COALESCE("jq"."_r_t0", 0) = 0
    THEN 0
    ELSE COALESCE("rm"."_ap_all_t0", 0) / COALESCE("jq"."_r_t0", 0)
  END AS DOUBLE PRECISION) AS "map",
  CAST(CASE
    WHEN COALESCE("rm"."_first_t0", 0) > 0
    THEN 1 / CAST("rm"."_first_t0" AS DOUBLE PRECISION)
    ELSE 0
  END AS DOUBLE PRECISION) AS "recip_rank"
FROM "scored_queries" "sq"
LEFT JOIN "run_metrics" "rm"
  ON "rm"."_q" = "sq"."_q"
LEFT JOIN "judged_queries" "jq"
  ON "jq"."_q" = "sq"."_q"
LEFT JOIN "ideal_dcg" "idl"
  ON "idl"."_q" = "sq"."_q"
ORDER BY
  "sq"."_q"
