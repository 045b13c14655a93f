{#-
  The dialect rules: the few SQL fragments (and capabilities) that differ between engines, one dispatcher each,
  named and explained here, dispatched like dbt-utils: adapter.dispatch('name', 'sqlndcg') picks `<adapter>__name`
  (then the adapter's parents: redshift -> postgres, databricks -> spark) and falls back to `default__name`.
  Each rule's portable form is in dialects/default.sql (DuckDB's SQL, which most engines share); each engine's
  differences are in its own file, dialects/<adapter>.sql, which also declares the engine's facts
  (<adapter>__dialect_facts: the dialect names it renders, the adapter it inherits from). Python renders these same
  macros per target engine (sqlndcg/core/render.py), so `to_sql(dialect=...)` and dbt agree.
-#}

{#- adapter.dispatch for a name computed at render time (a measure's macros: 'value_' ~ kind). dbt's static
    parser reads `adapter.dispatch(...)` calls and needs a literal name there, so the call goes through an alias. -#}
{%- macro _dispatched(name) -%}
{%- set dispatcher = adapter -%}
{{ return(dispatcher.dispatch(name, 'sqlndcg')) }}
{%- endmacro -%}

{#- The double-precision float type (DuckDB's FLOAT is 32-bit; Postgres has no DOUBLE). -#}
{%- macro double() -%}{{ return(adapter.dispatch('double', 'sqlndcg')()) }}{%- endmacro -%}

{#- A 64-bit integer type for counts (sums of counts are 128-bit in DuckDB; MySQL casts to SIGNED only). -#}
{%- macro integer_type() -%}{{ return(adapter.dispatch('integer_type', 'sqlndcg')()) }}{%- endmacro -%}

{#- A text type that holds any id whole (T-SQL's bare VARCHAR is 30 characters, Redshift's 256; MySQL casts to
    CHAR only). -#}
{%- macro text_type() -%}{{ return(adapter.dispatch('text_type', 'sqlndcg')()) }}{%- endmacro -%}

{#- Text ids in byte (binary, UTF-8) order whatever the column's or database's collation: tie-breaks follow
    SEMANTICS.md on every engine. A Postgres database with ICU en-US otherwise orders `dóc, DOC, Doc, doc`
    where byte order gives `dóc, doc, Doc, DOC`. Engines whose text order is binary use the id as it is. -#}
{%- macro byte_order(expression) -%}{{ return(adapter.dispatch('byte_order', 'sqlndcg')(expression)) }}{%- endmacro -%}

{#- ' NULLS FIRST' / ' NULLS LAST' where the engine has the clause; T-SQL and MySQL lack it (their NULLs sort
    lowest, which is what the templates spell out: first ascending, last descending). -#}
{%- macro nulls(where) -%}{{ return(adapter.dispatch('nulls', 'sqlndcg')(where)) }}{%- endmacro -%}

{#- True when a double is neither NaN nor infinite. -#}
{%- macro is_finite(expression) -%}{{ return(adapter.dispatch('is_finite', 'sqlndcg')(expression)) }}{%- endmacro -%}

{#- An identifier, always quoted with the engine's quote characters (via adapter.quote) and escaped by the
    engine's own lexical rules (escape_identifier(name, q): the text between the quotes, q the closing quote
    character), so keywords, spaces, quotes, backslashes and unicode in names are safe: a name never ends its
    quotes early. -#}
{%- macro _quote(name) -%}
{%- if name is not string or name == '' -%}
  {{ exceptions.raise_compiler_error("sqlndcg setting error: a column or table name must be a non-empty string, got " ~ name) }}
{%- endif -%}
{{ return(adapter.quote(adapter.dispatch('escape_identifier', 'sqlndcg')(name, adapter.quote('x')[-1]))) }}
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

{#- An aggregate over rows summed in a fixed order, so the result is the same bits whatever the thread count.
    DuckDB orders the aggregate's input; elsewhere the plain aggregate is the portable choice. -#}
{%- macro ordered(function, column, order_by) -%}{{ return(adapter.dispatch('ordered', 'sqlndcg')(function, column, order_by)) }}{%- endmacro -%}

{#- Whether the sums over a ranked list that metrics read at a cutoff (DCG@k, AP@k, ...) are taken from the list of
    its terms aggregated in rank order (list_sum(list_slice(list(x ORDER BY _pos), 1, k))) rather than from a
    running window SUM. Both add in rank order as trec_eval's loops do where the engine runs a running window
    row by row (PostgreSQL, SQLite, Spark, ...); DuckDB runs it on a segment tree whose grouping of the additions
    depends on where a query's rows fall among the others (the file's size, the thread count), which moves the
    last bit and, at a value like AP = 0.36875, the printed fourth decimal. Its list aggregate and list_sum add
    one element after the other. -#}
{%- macro list_sums() -%}{{ return(adapter.dispatch('list_sums', 'sqlndcg')()) }}{%- endmacro -%}

{#- Whether a measure's loop over the ranking runs as trec_eval's m_*.c writes it, folded over the list's rows in
    rank order with running doubles (_rank_reduce: a list aggregate and a fold with lambdas), rather than as the
    portable closed form (sums of window terms, POWER(p, i)), which can differ from it in the last bit. A measure
    file branches on it (rndcg, ndcg_rel, rbp, g, err). -#}
{%- macro rank_folds() -%}{{ return(adapter.dispatch('rank_folds', 'sqlndcg')()) }}{%- endmacro -%}

{#- The sum of the first `k` terms (none: all) of a list made by list_sums' list aggregate, 0 for none. -#}
{%- macro _list_prefix_sum(terms, k) -%}
{{ return('COALESCE(list_sum(' ~ (terms if k is none else 'list_slice(' ~ terms ~ ', 1, ' ~ k ~ ')') ~ '), 0)') }}
{%- endmacro -%}

{#- The MD5 digest of a text as 32 lowercase hex digits, the same on every engine: the hash that chooses a sample of
    queries (sample=), so the same queries are chosen wherever the statement runs. SQLite has none built in: its
    engine registers sqlndcg_md5 (Python's hashlib) on the connection. -#}
{%- macro md5_hex(text) -%}{{ return(adapter.dispatch('md5_hex', 'sqlndcg')(text)) }}{%- endmacro -%}

{#- Two texts joined (|| is OR in MySQL; CONCAT is missing from SQLite before 3.44). -#}
{%- macro concat_text(a, b) -%}{{ return(adapter.dispatch('concat_text', 'sqlndcg')(a, b)) }}{%- endmacro -%}

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

{#- A CTE held once, whatever the engine would choose: a sample's rows, each hashed once (per_query.sql, _input_cte);
    elsewhere the engine decides. -#}
{%- macro held() -%}{{ return(adapter.dispatch('held', 'sqlndcg')()) }}{%- endmacro -%}


{#- FROM-clause text for the rows of `left` (alias `l`) that no row of `right` (alias `r`) matches on `condition`:
    NOT EXISTS, which engines run as an anti-join. DuckDB's own ANTI JOIN on plain equalities runs faster than its
    rewrite of NOT EXISTS (null-safe comparisons), most of all on inputs larger than memory. -#}
{%- macro unmatched_rows(left, l, right, r, condition) -%}{{ return(adapter.dispatch('unmatched_rows', 'sqlndcg')(left, l, right, r, condition)) }}{%- endmacro -%}

{#- A text value as an SQL string literal. Quotes are doubled; engines that read backslash escapes inside string
    literals (Spark/Databricks, BigQuery, MySQL, ClickHouse) get backslashes and quotes escaped with a backslash. -#}
{%- macro text_literal(value) -%}{{ return(adapter.dispatch('text_literal', 'sqlndcg')(value)) }}{%- endmacro -%}
{%- macro _backslash_text_literal(value) -%}{{ return("'" ~ (value | string | replace('\\', '\\\\') | replace("'", "\\'")) ~ "'") }}{%- endmacro -%}

{#- A NULL of the double type (ClickHouse's types refuse NULL unless declared Nullable). -#}
{%- macro null_double() -%}{{ return(adapter.dispatch('null_double', 'sqlndcg')()) }}{%- endmacro -%}

{#- A number column that reads as text (plan.sql refuses it by its type): the value as a double, NULL where it is not
    a number (checks.sql shows its first rows whose value is not a number, with how many there are). -#}
{%- macro try_double(expression) -%}{{ return(adapter.dispatch('try_double', 'sqlndcg')(expression)) }}{%- endmacro -%}

{#- x as the dialect's double (a ratio of counts divides as doubles everywhere). -#}
{%- macro _as_double(x) -%}{{ return('CAST(' ~ x ~ ' AS ' ~ sqlndcg.double() ~ ')') }}{%- endmacro -%}

{#- log2(x) for a positive double: LN(x) / LN(2), portable; DuckDB's log2 is the C library's log2, which trec_eval's
    m_*.c call (the two can differ in the last bit). -#}
{%- macro _log2(x) -%}{{ return(adapter.dispatch('log2', 'sqlndcg')(x)) }}{%- endmacro -%}

{#- The whole-number part of a non-negative double (C's (long) cast). -#}
{%- macro whole(x) -%}{{ return(adapter.dispatch('whole', 'sqlndcg')(x)) }}{%- endmacro -%}

{#- The integer part of a label, as trec_eval reads one (C's atol: 2.7 -> 2, -1.5 -> -1). -#}
{%- macro integer_part(x) -%}{{ return(adapter.dispatch('integer_part', 'sqlndcg')(x)) }}{%- endmacro -%}

{#- The GROUP BY list that tells key values apart byte by byte, whatever the columns' collation (their types
    unknown here): the keys themselves where text compares as bytes or in a deterministic collation; on MySQL,
    whose default collations are case-insensitive ('Doc' = 'doc'), each key followed by its bytes
    (sql/macros/dialects/mysql.sql). -#}
{%- macro distinct_keys(keys) -%}{{ return(adapter.dispatch('distinct_keys', 'sqlndcg')(keys)) }}{%- endmacro -%}
