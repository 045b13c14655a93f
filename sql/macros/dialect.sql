{#-
  The few SQL fragments that differ between engines, one macro each, dispatched like dbt-utils:
  adapter.dispatch('name', 'sqlndcg') picks `<adapter>__name` (then the adapter's parents: redshift -> postgres,
  databricks -> spark) and falls back to `default__name`. The defaults are DuckDB's SQL, which most engines share.
  Python renders these same macros per target engine (sqlndcg/render.py), so `to_sql(dialect=...)` and dbt agree.
-#}

{#- adapter.dispatch for a name computed at render time (a measure's macros: 'value_' ~ kind). dbt's static
    parser reads `adapter.dispatch(...)` calls and needs a literal name there, so the call goes through an alias. -#}
{%- macro _dispatched(name) -%}
{%- set dispatcher = adapter -%}
{{ return(dispatcher.dispatch(name, 'sqlndcg')) }}
{%- endmacro -%}

{#- The double-precision float type (DuckDB's FLOAT is 32-bit; Postgres has no DOUBLE). -#}
{%- macro double() -%}{{ return(adapter.dispatch('double', 'sqlndcg')()) }}{%- endmacro -%}
{%- macro default__double() -%}{{ return('DOUBLE') }}{%- endmacro -%}
{%- macro postgres__double() -%}{{ return('DOUBLE PRECISION') }}{%- endmacro -%}
{%- macro bigquery__double() -%}{{ return('FLOAT64') }}{%- endmacro -%}
{%- macro sqlserver__double() -%}{{ return('FLOAT') }}{%- endmacro -%}
{%- macro clickhouse__double() -%}{{ return('Nullable(Float64)') }}{%- endmacro -%}

{#- A 64-bit integer type for counts (sums of counts are 128-bit in DuckDB; MySQL casts to SIGNED only). -#}
{%- macro integer_type() -%}{{ return(adapter.dispatch('integer_type', 'sqlndcg')()) }}{%- endmacro -%}
{%- macro default__integer_type() -%}{{ return('BIGINT') }}{%- endmacro -%}
{%- macro mysql__integer_type() -%}{{ return('SIGNED') }}{%- endmacro -%}
{%- macro bigquery__integer_type() -%}{{ return('INT64') }}{%- endmacro -%}

{#- A text type that holds any id whole (T-SQL's bare VARCHAR is 30 characters, Redshift's 256; MySQL casts to
    CHAR only). -#}
{%- macro text_type() -%}{{ return(adapter.dispatch('text_type', 'sqlndcg')()) }}{%- endmacro -%}
{%- macro default__text_type() -%}{{ return('VARCHAR') }}{%- endmacro -%}
{%- macro bigquery__text_type() -%}{{ return('STRING') }}{%- endmacro -%}
{%- macro spark__text_type() -%}{{ return('STRING') }}{%- endmacro -%}
{%- macro redshift__text_type() -%}{{ return('VARCHAR(65535)') }}{%- endmacro -%}
{%- macro sqlserver__text_type() -%}{{ return('NVARCHAR(4000)') }}{%- endmacro -%}
{%- macro mysql__text_type() -%}{{ return('CHAR') }}{%- endmacro -%}
{%- macro clickhouse__text_type() -%}{{ return('String') }}{%- endmacro -%}

{#- Text ids in byte (binary, UTF-8) order whatever the column's or database's collation: tie-breaks follow
    SEMANTICS.md on every engine. A Postgres database with ICU en-US otherwise orders `dóc, DOC, Doc, doc`
    where byte order gives `dóc, doc, Doc, DOC`. Engines whose text order is binary use the id as it is. -#}
{%- macro byte_order(expression) -%}{{ return(adapter.dispatch('byte_order', 'sqlndcg')(expression)) }}{%- endmacro -%}
{%- macro default__byte_order(expression) -%}{{ return(expression) }}{%- endmacro -%}
{%- macro postgres__byte_order(expression) -%}{{ return(expression ~ ' COLLATE "C"') }}{%- endmacro -%}
{%- macro redshift__byte_order(expression) -%}{{ return("COLLATE(" ~ expression ~ ", 'case_sensitive')") }}{%- endmacro -%}
{%- macro snowflake__byte_order(expression) -%}{{ return("COLLATE(" ~ expression ~ ", 'utf8')") }}{%- endmacro -%}
{%- macro bigquery__byte_order(expression) -%}{{ return('CAST(' ~ expression ~ ' AS BYTES)') }}{%- endmacro -%}
{%- macro spark__byte_order(expression) -%}{{ return('CAST(' ~ expression ~ ' AS BINARY)') }}{%- endmacro -%}
{%- macro mysql__byte_order(expression) -%}{{ return('CAST(' ~ expression ~ ' AS BINARY)') }}{%- endmacro -%}
{%- macro sqlserver__byte_order(expression) -%}{{ return(expression ~ ' COLLATE Latin1_General_100_BIN2_UTF8') }}{%- endmacro -%}

{#- ' NULLS FIRST' / ' NULLS LAST' where the engine has the clause; T-SQL and MySQL lack it (their NULLs sort
    lowest, which is what the templates spell out: first ascending, last descending). -#}
{%- macro nulls(where) -%}{{ return(adapter.dispatch('nulls', 'sqlndcg')(where)) }}{%- endmacro -%}
{%- macro default__nulls(where) -%}{{ return(' NULLS ' ~ where) }}{%- endmacro -%}
{%- macro sqlserver__nulls(where) -%}{{ return('') }}{%- endmacro -%}
{%- macro mysql__nulls(where) -%}{{ return('') }}{%- endmacro -%}

{#- True when a double is neither NaN nor infinite. -#}
{%- macro is_finite(expression) -%}{{ return(adapter.dispatch('is_finite', 'sqlndcg')(expression)) }}{%- endmacro -%}
{%- macro default__is_finite(expression) -%}{{ return('isfinite(' ~ expression ~ ')') }}{%- endmacro -%}
{%- macro postgres__is_finite(expression) -%}{{ return('(' ~ expression ~ " NOT IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8))") }}{%- endmacro -%}
{%- macro redshift__is_finite(expression) -%}{{ return('(' ~ expression ~ ' = ' ~ expression ~ ' AND ABS(' ~ expression ~ ") < 1.7976931348623157E308)") }}{%- endmacro -%}
{%- macro snowflake__is_finite(expression) -%}{{ return('(' ~ expression ~ " NOT IN ('NaN'::FLOAT, 'inf'::FLOAT, '-inf'::FLOAT))") }}{%- endmacro -%}
{%- macro bigquery__is_finite(expression) -%}{{ return('NOT (IS_NAN(' ~ expression ~ ') OR IS_INF(' ~ expression ~ '))') }}{%- endmacro -%}
{%- macro spark__is_finite(expression) -%}{{ return('(NOT isnan(' ~ expression ~ ') AND ABS(' ~ expression ~ ") < CAST('Infinity' AS DOUBLE))") }}{%- endmacro -%}
{%- macro sqlite__is_finite(expression) -%}{{ return('(' ~ expression ~ ' = ' ~ expression ~ ' AND ABS(' ~ expression ~ ') < 1e308 * 10)') }}{%- endmacro -%}
{%- macro clickhouse__is_finite(expression) -%}{{ return('isFinite(' ~ expression ~ ')') }}{%- endmacro -%}
{%- macro trino__is_finite(expression) -%}{{ return('is_finite(' ~ expression ~ ')') }}{%- endmacro -%}
{%- macro datafusion__is_finite(expression) -%}{{ return('(ABS(' ~ expression ~ ') <= 1.7976931348623157e308)') }}{%- endmacro -%}
{#- SQL Server's and MySQL's floats hold no NaN or infinity. -#}
{%- macro sqlserver__is_finite(expression) -%}{{ return('1 = 1') }}{%- endmacro -%}
{%- macro mysql__is_finite(expression) -%}{{ return('1 = 1') }}{%- endmacro -%}

{#- An identifier, always quoted with the engine's quote characters (via adapter.quote) and escaped by the
    engine's own lexical rules (escape_identifier), so keywords, spaces, quotes, backslashes and unicode in names
    are safe: a name never ends its quotes early. -#}
{%- macro _quote(name) -%}
{%- if name is not string or name == '' -%}
  {{ exceptions.raise_compiler_error("sqlndcg setting error: a column or table name must be a non-empty string, got " ~ name) }}
{%- endif -%}
{{ return(adapter.quote(adapter.dispatch('escape_identifier', 'sqlndcg')(name, adapter.quote('x')[-1]))) }}
{%- endmacro -%}

{#- The text between an identifier's quotes. Most engines read a backslash there as itself and the closing quote
    character doubled as one (DuckDB, SQLite, PostgreSQL, Redshift, Snowflake, Trino, DataFusion; Spark and MySQL
    backticks; SQL Server's `]`). -#}
{%- macro default__escape_identifier(name, q) -%}{{ return(name | replace(q, q ~ q)) }}{%- endmacro -%}
{#- ClickHouse reads backslash escapes inside quoted identifiers (`\"` is a quote that does not close), so a
    backslash is written `\\` and the quote `\"`. -#}
{%- macro clickhouse__escape_identifier(name, q) -%}
{{ return(name | replace('\\', '\\\\') | replace(q, '\\' ~ q)) }}
{%- endmacro -%}
{#- BigQuery's quoted identifiers take the escape sequences of its string literals, which hold no raw line break. -#}
{%- macro bigquery__escape_identifier(name, q) -%}
{{ return(name | replace('\\', '\\\\') | replace(q, '\\' ~ q) | replace('\n', '\\n') | replace('\r', '\\r')) }}
{%- endmacro -%}

{#- A number validated by the plan, as a double (bare float literals are DECIMAL in DuckDB and Postgres). -#}
{%- macro _number(x) -%}{{ return('CAST(' ~ x ~ ' AS ' ~ sqlndcg.double() ~ ')') }}{%- endmacro -%}

{#- 1 / log2(position + 1), written as LN(2) / LN(position + 1): one-argument LOG is base 10 in some engines and
    natural in others, and LOG(a, b) swaps its arguments between engines. -#}
{%- macro _discount(position) -%}
{{ return('(LN(CAST(2 AS ' ~ sqlndcg.double() ~ ')) / LN(CAST(' ~ position ~ ' AS ' ~ sqlndcg.double() ~ ') + 1))') }}
{%- endmacro -%}

{#- gain / log2(position + 1): the term DCG adds at a position. In DuckDB as trec_eval's m_ndcg.c writes it (gain /
    log2(i + 2), the C library's log2): the per-query values are trec_eval's to the last bit. Elsewhere gain times
    the portable _discount (LN(2) / LN(position + 1)), which can differ from it in the last bit. -#}
{%- macro _discounted(gain, position) -%}{{ return(adapter.dispatch('discounted', 'sqlndcg')(gain, position)) }}{%- endmacro -%}
{%- macro default__discounted(gain, position) -%}{{ return(gain ~ ' * ' ~ sqlndcg._discount(position)) }}{%- endmacro -%}
{%- macro duckdb__discounted(gain, position) -%}
{{ return(gain ~ ' / ' ~ sqlndcg._log2('CAST(' ~ position ~ ' AS ' ~ sqlndcg.double() ~ ') + 1')) }}
{%- endmacro -%}

{#- 2^rel - 1 on doubles (SQL Server's POWER(2, int) is an INT and overflows). -#}
{%- macro _exp2_minus_1(x) -%}
{{ return('(POWER(CAST(2 AS ' ~ sqlndcg.double() ~ '), ' ~ x ~ ') - 1)') }}
{%- endmacro -%}

{#- Ids are compared as given when both inputs hold integers, else as text in a binary collation, so every
    comparison of them (the join of run and judgments, groups, windows, the tie-break) is byte by byte whatever
    the column's, database's or session's collation: a case- or accent-insensitive one (MySQL's and SQL Server's
    defaults, DuckDB's default_collation='nocase') would otherwise join `Doc` to the label of `doc`. -#}
{%- macro _id(expression, as_text) -%}
{{ return(sqlndcg.binary_text('CAST(' ~ expression ~ ' AS ' ~ sqlndcg.text_type() ~ ')') if as_text else expression) }}
{%- endmacro -%}

{#- Text in the engine's binary collation; the collation travels with the column through CTEs and joins. Engines
    whose text compares byte by byte everywhere (Spark's default, ClickHouse, DataFusion, Trino) take it as it is;
    their ordering goes through byte_order. -#}
{%- macro binary_text(expression) -%}{{ return(adapter.dispatch('binary_text', 'sqlndcg')(expression)) }}{%- endmacro -%}
{%- macro default__binary_text(expression) -%}{{ return(expression) }}{%- endmacro -%}
{%- macro duckdb__binary_text(expression) -%}{{ return(expression ~ ' COLLATE "binary"') }}{%- endmacro -%}
{%- macro sqlite__binary_text(expression) -%}{{ return(expression ~ ' COLLATE BINARY') }}{%- endmacro -%}
{%- macro postgres__binary_text(expression) -%}{{ return(expression ~ ' COLLATE "C"') }}{%- endmacro -%}
{%- macro redshift__binary_text(expression) -%}{{ return("COLLATE(" ~ expression ~ ", 'case_sensitive')") }}{%- endmacro -%}
{%- macro snowflake__binary_text(expression) -%}{{ return("COLLATE(" ~ expression ~ ", 'utf8')") }}{%- endmacro -%}
{%- macro bigquery__binary_text(expression) -%}{{ return("COLLATE(" ~ expression ~ ", '')") }}{%- endmacro -%}
{%- macro mysql__binary_text(expression) -%}{{ return(expression ~ ' COLLATE utf8mb4_bin') }}{%- endmacro -%}
{%- macro sqlserver__binary_text(expression) -%}{{ return(expression ~ ' COLLATE Latin1_General_100_BIN2_UTF8') }}{%- endmacro -%}

{#- The document id as the tie-break compares it: in the run's own type (text ids in byte order, integer ids
    numerically, also where they are joined to text judgments as text), or as text in byte order under
    id_order='text' (trec_eval compares ids as strings: 9 ranks above 10 in a tie). -#}
{%- macro _tie_doc(p, column='_d') -%}
{%- if p.get('id_order', 'native') == 'text' -%}{{ return(sqlndcg.byte_order(sqlndcg._id(column, not p.doc_ids_as_text))) }}
{%- elif p.doc_ids_as_text and p.run_doc_ids_integer -%}{{ return('CAST(' ~ column ~ ' AS ' ~ sqlndcg.integer_type() ~ ')') }}
{%- elif p.doc_ids_as_text -%}{{ return(sqlndcg.byte_order(column)) }}
{%- else -%}{{ return(column) }}
{%- endif -%}
{%- endmacro -%}

{#- Whether a plan's key (its score, or its rank) ranks a list from its highest value: a score does, unless the
    scores are distances (lower_is_better); a rank never (1 is best). -#}
{%- macro _descending(p) -%}
{{ return(p.order_by == 'score' and not p.spec.get('lower_is_better', false)) }}
{%- endmacro -%}

{#- The order that ranks a list: score descending (ascending when lower is better, and rank ascending), ties by
    document id descending, with the NULL placement spelled out (no value here is NULL). The same text on every
    engine: where every metric has a cutoff, per_query.sql first keeps each list's top k by the key alone
    (list_cut), so this order only ranks those few rows. -#}
{%- macro _rank_order(key, doc, descending) -%}
{{ return(key ~ (' DESC' ~ sqlndcg.nulls('LAST') if descending else ' ASC' ~ sqlndcg.nulls('FIRST')) ~ ', ' ~ doc ~ ' DESC') }}
{%- endmacro -%}

{#- How the statement finds each list's top k when every metric has a cutoff: 'aggregate', DuckDB's top-N
    aggregate over one sort key (min_by(doc, create_sort_key(...), k)), which holds k documents per list; 'window',
    a ROW_NUMBER filtered to k, which Spark plans as a per-group limit (WindowGroupLimit); 'cut' elsewhere: the k-th
    best key of each list by a one-key ROW_NUMBER first, then only the rows that can reach the top k ranked.
    DuckDB's aggregate state does not spill and takes a few KiB per list, so for many lists (the plan's many_lists,
    sqlndcg_duckdb_many_lists in sql/local/session.sql) DuckDB ranks with the window, which sorts and spills. -#}
{%- macro top_n(p) -%}{{ return(adapter.dispatch('top_n', 'sqlndcg')(p)) }}{%- endmacro -%}
{%- macro default__top_n(p) -%}{{ return('cut') }}{%- endmacro -%}
{%- macro duckdb__top_n(p) -%}{{ return('window' if p.get('many_lists') else 'aggregate') }}{%- endmacro -%}
{%- macro spark__top_n(p) -%}{{ return('window') }}{%- endmacro -%}

{#- An aggregate over rows summed in a fixed order, so the result is the same bits whatever the thread count.
    DuckDB orders the aggregate's input; elsewhere the plain aggregate is the portable choice. -#}
{%- macro ordered(function, column, order_by) -%}{{ return(adapter.dispatch('ordered', 'sqlndcg')(function, column, order_by)) }}{%- endmacro -%}
{%- macro default__ordered(function, column, order_by) -%}{{ return(function ~ '(' ~ column ~ ')') }}{%- endmacro -%}
{%- macro duckdb__ordered(function, column, order_by) -%}{{ return(function ~ '(' ~ column ~ ' ORDER BY ' ~ order_by ~ ')') }}{%- endmacro -%}

{#- Whether the sums over a ranked list that metrics read at a cutoff (DCG@k, AP@k, ...) are taken from the list of
    its terms aggregated in rank order (list_sum(list_slice(list(x ORDER BY _pos), 1, k))) rather than from a
    running window SUM. Both add in rank order as trec_eval's loops do where the engine runs a running window
    row by row (PostgreSQL, SQLite, Spark, ...); DuckDB runs it on a segment tree whose grouping of the additions
    depends on where a query's rows fall among the others (the file's size, the thread count), which moves the
    last bit and, at a value like AP = 0.36875, the printed fourth decimal. Its list aggregate and list_sum add
    one element after the other. -#}
{%- macro list_sums() -%}{{ return(adapter.dispatch('list_sums', 'sqlndcg')()) }}{%- endmacro -%}
{%- macro default__list_sums() -%}{{ return(false) }}{%- endmacro -%}
{%- macro duckdb__list_sums() -%}{{ return(true) }}{%- endmacro -%}

{#- The sum of the first `k` terms (none: all) of a list made by list_sums' list aggregate, 0 for none. -#}
{%- macro _list_prefix_sum(terms, k) -%}
{{ return('COALESCE(list_sum(' ~ (terms if k is none else 'list_slice(' ~ terms ~ ', 1, ' ~ k ~ ')') ~ '), 0)') }}
{%- endmacro -%}

{#- The MD5 digest of a text as 32 lowercase hex digits, the same on every engine: the hash that chooses a sample of
    queries (sample=), so the same queries are chosen wherever the statement runs. SQLite has none built in: its
    engine registers sqlndcg_md5 (Python's hashlib) on the connection. -#}
{%- macro md5_hex(text) -%}{{ return(adapter.dispatch('md5_hex', 'sqlndcg')(text)) }}{%- endmacro -%}
{%- macro default__md5_hex(text) -%}{{ return('LOWER(MD5(' ~ text ~ '))') }}{%- endmacro -%}
{%- macro bigquery__md5_hex(text) -%}{{ return('TO_HEX(MD5(' ~ text ~ '))') }}{%- endmacro -%}
{%- macro clickhouse__md5_hex(text) -%}{{ return('lower(hex(MD5(' ~ text ~ ')))') }}{%- endmacro -%}
{%- macro sqlserver__md5_hex(text) -%}{{ return("LOWER(CONVERT(VARCHAR(32), HASHBYTES('MD5', " ~ text ~ '), 2))') }}{%- endmacro -%}
{%- macro trino__md5_hex(text) -%}{{ return('lower(to_hex(md5(to_utf8(' ~ text ~ '))))') }}{%- endmacro -%}
{%- macro sqlite__md5_hex(text) -%}{{ return('sqlndcg_md5(' ~ text ~ ')') }}{%- endmacro -%}

{#- Two texts joined (|| is OR in MySQL; CONCAT is missing from SQLite before 3.44). -#}
{%- macro concat_text(a, b) -%}{{ return(adapter.dispatch('concat_text', 'sqlndcg')(a, b)) }}{%- endmacro -%}
{%- macro default__concat_text(a, b) -%}{{ return('CONCAT(' ~ a ~ ', ' ~ b ~ ')') }}{%- endmacro -%}
{%- macro sqlite__concat_text(a, b) -%}{{ return('(' ~ a ~ ' || ' ~ b ~ ')') }}{%- endmacro -%}

{#- Which of `count` buckets a query id falls in: evaluate(partitions=n) splits one machine's work into n passes
    over disjoint sets of queries. The same id lands in the same bucket in the run and the judgments (DuckDB's
    hash() of an integer does not depend on its width). Partitions are a DuckDB setting; a warehouse or Spark
    splits the work itself. -#}
{%- macro _bucket_of(expression, count) -%}{{ return('hash(' ~ expression ~ ') % ' ~ count) }}{%- endmacro -%}


{#- A CTE that reads an input cheap to read again (a Parquet file, a base table, an Arrow frame: the plan's
    run_rereadable / judgments_rereadable, set by Python): DuckDB then reads it once per use instead of first holding a
    copy of every row, which is faster and, under a memory limit, spills less (docs/speed.md). Elsewhere,
    and for inputs that cost more to read again (CSV and TREC files are parsed, views computed), the engine decides. -#}
{%- macro reread(rereadable) -%}{{ return(adapter.dispatch('reread', 'sqlndcg')(rereadable)) }}{%- endmacro -%}
{%- macro default__reread(rereadable) -%}{{ return('') }}{%- endmacro -%}
{%- macro duckdb__reread(rereadable) -%}{{ return(' NOT MATERIALIZED' if rereadable else '') }}{%- endmacro -%}

{#- A CTE held once, whatever the engine would choose: a sample's rows, each hashed once (per_query.sql, _input_cte);
    elsewhere the engine decides. -#}
{%- macro held() -%}{{ return(adapter.dispatch('held', 'sqlndcg')()) }}{%- endmacro -%}
{%- macro default__held() -%}{{ return('') }}{%- endmacro -%}
{%- macro duckdb__held() -%}{{ return(' MATERIALIZED') }}{%- endmacro -%}


{#- FROM-clause text for the rows of `left` (alias `l`) that no row of `right` (alias `r`) matches on `condition`:
    NOT EXISTS, which engines run as an anti-join. DuckDB's own ANTI JOIN on plain equalities runs faster than its
    rewrite of NOT EXISTS (null-safe comparisons), most of all on inputs larger than memory. -#}
{%- macro unmatched_rows(left, l, right, r, condition) -%}{{ return(adapter.dispatch('unmatched_rows', 'sqlndcg')(left, l, right, r, condition)) }}{%- endmacro -%}
{%- macro default__unmatched_rows(left, l, right, r, condition) -%}
{{ return(left ~ ' AS ' ~ l ~ ' WHERE NOT EXISTS (SELECT 1 FROM ' ~ right ~ ' AS ' ~ r ~ ' WHERE ' ~ condition ~ ')') }}
{%- endmacro -%}
{%- macro duckdb__unmatched_rows(left, l, right, r, condition) -%}
{{ return(left ~ ' AS ' ~ l ~ ' ANTI JOIN ' ~ right ~ ' AS ' ~ r ~ ' ON ' ~ condition) }}
{%- endmacro -%}
