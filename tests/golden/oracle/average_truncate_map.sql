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
    CAST("rel" AS DOUBLE PRECISION) AS "_rel"
  FROM "qrels" "judgments_input"
), "labels" AS (
  SELECT
    "_q",
    "_d",
    "_rel",
    CASE
      WHEN "_rel" = CAST(1.0 AS DOUBLE PRECISION)
      THEN CAST(1.0 AS DOUBLE PRECISION)
      WHEN "_rel" = CAST(2.0 AS DOUBLE PRECISION)
      THEN CAST(3.0 AS DOUBLE PRECISION)
      WHEN "_rel" = CAST(3.0 AS DOUBLE PRECISION)
      THEN CAST(7.0 AS DOUBLE PRECISION)
      ELSE 0
    END AS "_gain",
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
    ROW_NUMBER() OVER (PARTITION BY "_q" ORDER BY "_key" DESC NULLS LAST, "_d" DESC NULLS LAST) AS "_pos",
    RANK() OVER (PARTITION BY "_q" ORDER BY "_key" DESC NULLS LAST) AS "_tie_start"
  FROM "labelled"
), "top_ranked" AS (
  SELECT
    "_q",
    "_d",
    "_key",
    "_pos",
    "_tie_start",
    "_gain",
    "_cg",
    "_rel_t0",
    "_pool",
    "_judged"
  FROM "ranked"
), "scored" AS (
  SELECT
    "r"."_gain" AS "_gain",
    "r"."_cg" AS "_cg",
    "r"."_rel_t0" AS "_rel_t0",
    "r"."_pool" AS "_pool",
    "r"."_judged" AS "_judged",
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
    AVG(CAST("_gain" AS DOUBLE PRECISION)) OVER (
      PARTITION BY "_q", "_key"
      ORDER BY "_pos" NULLS FIRST
      ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING
    ) AS "_gain_at",
    AVG(CAST("_cg" AS DOUBLE PRECISION)) OVER (
      PARTITION BY "_q", "_key"
      ORDER BY "_pos" NULLS FIRST
      ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING
    ) AS "_cg_at",
    AVG(CAST("_judged" AS DOUBLE PRECISION)) OVER (
      PARTITION BY "_q", "_key"
      ORDER BY "_pos" NULLS FIRST
      ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING
    ) AS "_judged_at",
    AVG(CAST("_rel_t0" AS DOUBLE PRECISION)) OVER (
      PARTITION BY "_q", "_key"
      ORDER BY "_pos" NULLS FIRST
      ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING
    ) AS "_rel_t0_at",
    ROW_NUMBER() OVER (PARTITION BY "_q" ORDER BY "_gain" DESC NULLS LAST) AS "_ideal_pos",
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
    SUM("_judged_at") OVER (
      PARTITION BY "_q"
      ORDER BY "_pos" NULLS FIRST
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS "_judged_run",
    SUM("_rel_t0_at") OVER (
      PARTITION BY "_q"
      ORDER BY "_pos" NULLS FIRST
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS "_hits_run_t0",
    "_ideal_pos",
    SUM(
      "_gain" * (
        LN(CAST(2 AS DOUBLE PRECISION)) / LN(CAST("_ideal_pos" AS DOUBLE PRECISION) + 1)
      )
    ) OVER (
      PARTITION BY "_q"
      ORDER BY "_ideal_pos" NULLS FIRST
      ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS "_idcg_run",
    "_gain"
  FROM "positioned"
), "run_metrics" AS (
  SELECT
    "_q",
    MAX("_pos") AS "_n",
    MAX(CASE WHEN "_pos" <= 5 THEN "_dcg_run" ELSE 0 END) AS "_dcg_5",
    MAX(CASE WHEN "_ideal_pos" <= 5 THEN "_idcg_run" ELSE 0 END) AS "_idcg_5",
    MAX(CASE WHEN "_pos" <= 5 THEN "_judged_run" ELSE 0 END) AS "_judged_5",
    MAX(CASE WHEN 1 = 1 THEN "_dcg_run" ELSE 0 END) AS "_dcg_all",
    MAX(CASE WHEN 1 = 1 THEN "_idcg_run" ELSE 0 END) AS "_idcg_all",
    MAX(CASE WHEN "_pos" <= 3 THEN "_hits_run_t0" ELSE 0 END) AS "_hits_3_t0",
    MAX(CASE WHEN "_gain" > 0 THEN 1 ELSE 0 END) AS "_has_gain"
  FROM "accumulated"
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
    WHEN COALESCE("rm"."_has_gain", 0) = 0
    THEN 0
    WHEN COALESCE("rm"."_idcg_5", 0) = 0
    THEN 0
    ELSE COALESCE("rm"."_dcg_5", 0) / COALESCE("rm"."_idcg_5", 0)
  END AS DOUBLE PRECISION) AS "ndcg@5",
  CAST(CASE
    WHEN COALESCE("rm"."_has_gain", 0) = 0
    THEN 0
    WHEN COALESCE("rm"."_idcg_all", 0) = 0
    THEN 0
    ELSE COALESCE("rm"."_dcg_all", 0) / COALESCE("rm"."_idcg_all", 0)
  END AS DOUBLE PRECISION) AS "ndcg",
  CAST(CASE
    WHEN CASE WHEN COALESCE("rm"."_n", 0) < 3 THEN COALESCE("rm"."_n", 0) ELSE 3 END = 0
    THEN 0
    ELSE CAST(COALESCE("rm"."_hits_3_t0", 0) AS DOUBLE PRECISION) / CASE WHEN COALESCE("rm"."_n", 0) < 3 THEN COALESCE("rm"."_n", 0) ELSE 3 END
  END AS DOUBLE PRECISION) AS "p@3",
  CAST(CASE
    WHEN CASE WHEN COALESCE("rm"."_n", 0) < 5 THEN COALESCE("rm"."_n", 0) ELSE 5 END = 0
    THEN 0
    ELSE CAST(COALESCE("rm"."_judged_5", 0) AS DOUBLE PRECISION) / CASE WHEN COALESCE("rm"."_n", 0) < 5 THEN COALESCE("rm"."_n", 0) ELSE 5 END
  END AS DOUBLE PRECISION) AS "judged@5"
FROM "scored_queries" "sq"
LEFT JOIN "run_metrics" "rm"
  ON "rm"."_q" = "sq"."_q"
LEFT JOIN "judged_queries" "jq"
  ON "jq"."_q" = "sq"."_q"
ORDER BY
  "sq"."_q"
