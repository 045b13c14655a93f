"""Any DB-API 2.0 connection: run SQL through a cursor. Subclasses say how to read column types.

Engines that cannot read a data frame in place (SQLite, PostgreSQL) copy it into a temporary table: the frame
becomes Arrow record batches, the table gets the columns of the Arrow schema (sql/local/frames.sql says their
types and writes the statements), the rows go in a batch at a time, and :meth:`DBAPIEngine.unregister` drops the
table.
"""

from __future__ import annotations

from ...errors import InputError
from .base import Engine, classify
from ...core import render, templates

#: Rows per batch when a frame is copied into an engine.
BATCH_ROWS = 50_000


def arrow_batches(frame, batch_rows: int | None = None):
    """A frame as (its Arrow schema, an iterator of record batches of at most ``batch_rows`` rows), or None when
    ``frame`` is not something Arrow reads: a pyarrow Table, RecordBatch or RecordBatchReader, a pandas or polars
    DataFrame (or polars LazyFrame), a DuckDB relation, or anything with the Arrow C stream interface. Readers and
    relations are streamed, not read whole."""
    import pyarrow as pa

    batch_rows = batch_rows or BATCH_ROWS
    module = type(frame).__module__.split(".")[0]
    if module == "pandas" and hasattr(frame, "columns"):
        frame = pa.Table.from_pandas(frame, preserve_index=False)
    elif module == "polars" and hasattr(frame, "collect") and not hasattr(frame, "to_arrow"):
        frame = frame.collect().to_arrow()
    elif module == "polars" and hasattr(frame, "to_arrow"):
        frame = frame.to_arrow()
    elif module == "duckdb" and hasattr(frame, "to_arrow_reader"):  # a relation, streamed
        frame = frame.to_arrow_reader(batch_rows)
    elif module == "duckdb" and hasattr(frame, "fetch_record_batch"):
        frame = frame.fetch_record_batch(batch_rows)
    if isinstance(frame, pa.RecordBatch):
        frame = pa.Table.from_batches([frame])
    if isinstance(frame, pa.Table):
        return frame.schema, iter(frame.to_batches(max_chunksize=batch_rows))
    if not isinstance(frame, pa.RecordBatchReader):
        if not hasattr(frame, "__arrow_c_stream__") or not hasattr(pa.RecordBatchReader, "from_stream"):
            return None
        frame = pa.RecordBatchReader.from_stream(frame)

    def sliced(reader):
        for batch in reader:
            for start in range(0, batch.num_rows, batch_rows):
                yield batch.slice(start, batch_rows)

    return frame.schema, sliced(frame)


def column_kind(field) -> str | None:
    """'integer', 'float', 'text' or 'boolean': how a frame's column is stored in a temporary table (None: not
    at all). Dictionary columns (pandas categoricals) count as their values; decimals as floats; a column of
    nothing but nulls as text."""
    import pyarrow.types as t

    kind = field.type.value_type if t.is_dictionary(field.type) else field.type
    if t.is_integer(kind):
        return "integer"
    if t.is_floating(kind) or t.is_decimal(kind):
        return "float"
    if t.is_string(kind) or t.is_large_string(kind) or getattr(t, "is_string_view", lambda _: False)(kind) \
            or t.is_null(kind):
        return "text"
    if t.is_boolean(kind):
        return "boolean"
    return None


def _arrow_type(kind: str):
    import pyarrow as pa

    return {"integer": pa.int64(), "float": pa.float64(), "text": pa.string(), "boolean": pa.bool_()}[kind]


class DBAPIEngine(Engine):
    name = "DB-API connection"
    #: Whether :meth:`register` copies frames into temporary tables (sql/local/frames.sql has their statements
    #: for this engine's dialect); otherwise the engine takes only its own tables.
    frames_as_temporary_tables = False
    #: The driver's parameter marker in INSERT statements (DB-API paramstyle qmark: '?', format/pyformat: '%s').
    placeholder = "?"

    def fetch(self, sql):
        cur = self.con.cursor()
        try:
            cur.execute(render.executable(sql, self.dialect))  # translated where the dialect has no file
            if cur.description is None:
                return [], []
            return [d[0] for d in cur.description], [tuple(r) for r in cur.fetchall()]
        finally:
            cur.close()

    def columns(self, relation_sql):
        cur = self.con.cursor()
        try:
            cur.execute(render.executable(templates.no_rows(relation_sql), self.dialect))
            return {d[0]: str(d[1]) for d in cur.description}
        finally:
            cur.close()

    def column_class(self, type_name):
        return classify(type_name, ("int", "integer", "bigint", "smallint", "tinyint"),
                        ("double", "float", "real", "numeric", "decimal"), ("varchar", "text", "char", "string"))

    # -- frames as temporary tables ---------------------------------------------------------------------------------
    def register(self, name, frame):
        """``frame`` as the temporary table ``name`` (replacing a temporary table of that name), its columns typed
        from the Arrow schema, loaded in batches of :data:`BATCH_ROWS` rows."""
        converted = arrow_batches(frame) if self.frames_as_temporary_tables else None
        if converted is None:
            super().register(name, frame)
            return
        schema, batches = converted
        if not len(schema):
            raise InputError(f"a {type(frame).__name__} without columns cannot become a {self.name} table")
        columns = []
        for field in schema:
            kind = column_kind(field)
            if kind is None:
                raise InputError(
                    f"column {field.name!r} of the {type(frame).__name__} is of type {field.type}, which sqlndcg "
                    f"does not copy into {self.name}: frames on {self.name} take integer, floating-point, string "
                    "and boolean columns; cast the column (dates to strings, say) or leave it out")
            columns.append({"name": field.name, "kind": kind})
        self.execute(templates.frame_drop(name, dialect=self.dialect))
        self.execute(templates.frame_create(name, columns, dialect=self.dialect))
        try:
            self._load(name, columns, self._rows(columns, batches))
        except BaseException:
            try:  # never leave half a table behind, nor hide why loading failed
                self.unregister(name)
            except Exception:  # noqa: BLE001
                pass
            raise

    def unregister(self, name):
        self.execute(templates.frame_drop(name, dialect=self.dialect))

    @staticmethod
    def _rows(columns: list[dict], batches):
        """Each batch as a list of row tuples of plain Python values (the types the table's columns take)."""
        import pyarrow as pa

        targets = [_arrow_type(c["kind"]) for c in columns]
        for batch in batches:
            values = []
            for column, target, array in zip(columns, targets, batch.columns):
                if array.type != target and not pa.types.is_null(array.type):
                    try:
                        array = array.cast(target)
                    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
                        raise InputError(f"column {column['name']!r} cannot be copied as {column['kind']}: "
                                         f"{str(exc).strip().splitlines()[0]}") from None
                values.append(array.to_pylist())
            yield list(zip(*values))

    def _load(self, name: str, columns: list[dict], batches) -> None:
        """Insert the rows, a batch at a time (executemany with the driver's parameter marker)."""
        insert = templates.frame_insert(name, [c["name"] for c in columns], self.placeholder,
                             dialect=self.dialect)
        cur = self.con.cursor()
        try:
            for rows in batches:
                if rows:
                    cur.executemany(insert, rows)
        finally:
            cur.close()
