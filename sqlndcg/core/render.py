"""Render the Jinja templates in ``sql/`` into SQL text, exactly as dbt renders them.

``sql/macros/`` is the dbt package's macro path: every macro there is written for dbt and calls its siblings as
``sqlndcg.name(...)``. Python renders the same files with a small stand-in for the few dbt facilities they use:
``adapter.dispatch``/``adapter.quote``/``adapter.type``, ``return``, ``exceptions.raise_compiler_error``,
``modules.re`` and ``execute``. ``sql/local/`` holds the DuckDB-only helpers (file readers, session helpers) that
dbt never sees. One renderer per target engine: dispatch picks that engine's fragments, as dbt's adapter would. Which
engine a dialect name renders as, and the adapters it inherits from, are facts its file states
(``sql/macros/dialects/<adapter>.sql``: :func:`dialect_facts`); a dialect no file names is rendered in the portable
DuckDB form and translated by sqlglot (:func:`transpiled`).

Nothing happens at import: Jinja and sqlglot are imported on the first render, and each template file is compiled
when one of its macros is first called, once per process (a new dialect only binds the compiled macros to its
adapter), so reading the settings' declaration compiles one file, not the package. :func:`activity` says what was
compiled and rendered (the tests hold import, --help and a small evaluate to it).
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections import Counter, OrderedDict
from functools import cached_property, lru_cache
from pathlib import Path
from typing import cast

from ..errors import InputError, MetricError, SettingError, SqlndcgError


@lru_cache(maxsize=None)
def _sql_dir() -> Path:
    """Templates ship inside the wheel as ``sqlndcg/sql``; in a source checkout they sit in ``sql/``."""
    from importlib import resources

    packaged = resources.files("sqlndcg") / "sql"
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[2] / "sql"


def __getattr__(name: str):
    # SQL_DIR, found on first use (importlib.resources is not needed before anything renders)
    if name == "SQL_DIR":
        return _sql_dir()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _root() -> Path:
    """The templates' folder: SQL_DIR when it was set (a test pointing at a copy with one more file), else found."""
    return globals().get("SQL_DIR") or _sql_dir()


#: A dialect file's facts macro, ``<adapter>__dialect_facts()`` (see :func:`dialect_facts`), whole.
_FACTS = re.compile(r"{%-?\s*macro\s+([a-z0-9_]+?)__dialect_facts\s*\(.*?{%-?\s*endmacro\s*-?%}", re.S)


def dialect_facts() -> dict[str, dict]:
    """adapter -> what its file (``sql/macros/dialects/<adapter>.sql``) says of it in ``<adapter>__dialect_facts()``:
    ``dialects``, the names ``dialect=`` takes that render with it (sqlglot's, or the engine's own where sqlglot
    has none); ``inherits``, the adapter whose rules apply where its own say nothing (dbt's adapter parents:
    redshift -> postgres), or None; ``nearest``, the sqlglot dialect that reads and formats its SQL when sqlglot
    has none of its name, or None. One file (transpiled.sql) serves every dialect no file names: its
    ``transpiles_from`` names the sqlglot dialect its text is read in, ``identify`` whether every identifier is
    quoted when sqlglot writes it. Read once per templates folder."""
    return _facts_in(_root())


@lru_cache(maxsize=None)
def _facts_in(root: Path) -> dict[str, dict]:
    # The facts macros alone, compiled as one template (the rest of each file is compiled when a dispatch first
    # needs it: rendering for DuckDB compiles duckdb.sql and default.sql, not every engine's file). They use
    # nothing but return().
    found = [(match.group(1), match.group(0)) for path in sorted((root / "macros" / "dialects").glob("*.sql"))
             for match in _FACTS.finditer(path.read_text(encoding="utf-8"))]
    macros = _macros_of(_compile("\n".join(text for _, text in found)), {"return": _return})
    return {adapter: {"dialects": [], "inherits": None, "nearest": None, "transpiles_from": None, "identify": False,
                      **_unwrap(macros[f"{adapter}__dialect_facts"])()} for adapter, _ in found}


def adapters() -> dict[str, tuple[str, ...]]:
    """dialect name -> the adapter whose macros render it, then the adapters it inherits from (dbt's dispatch
    searches redshift__ then postgres__, databricks__ then spark__, before default__), from the dialect files."""
    return _adapters_in(_root())


@lru_cache(maxsize=None)
def _adapters_in(root: Path) -> dict[str, tuple[str, ...]]:
    facts = _facts_in(root)

    def chain(adapter: str) -> tuple[str, ...]:
        parent = facts[adapter]["inherits"]
        return (adapter, *chain(parent)) if parent else (adapter,)

    return {name: chain(adapter) for adapter, said in facts.items() for name in said["dialects"]}


@lru_cache(maxsize=None)
def _transpiling_in(root: Path) -> tuple[str, dict]:
    """The adapter that renders every dialect no file names, and its facts."""
    found = [(adapter, said) for adapter, said in _facts_in(root).items() if said["transpiles_from"]]
    if len(found) != 1:
        raise LookupError(f"{len(found)} dialect files in {root} declare transpiles_from; one must")
    return found[0]


def _nearest(dialect: str) -> str:
    """The sqlglot dialect ``dialect``'s rendered text is in: its own name, the nearest its file names (DataFusion:
    postgres), or, for a dialect no file names, the one its text is transpiled from (DuckDB)."""
    said = _facts_of(dialect)
    return said["transpiles_from"] or said["nearest"] or dialect


def transpiled(dialect: str) -> bool:
    """Whether no dialect file names ``dialect``: its statements are rendered by sql/macros/dialects/transpiled.sql
    (the portable forms, DuckDB's SQL) and sqlglot translates them from DuckDB's dialect to ``dialect``
    (:func:`pretty`, :func:`executable`)."""
    return dialect not in adapters()


def sqlglot_has(dialect: str) -> bool:
    """Whether sqlglot has a dialect of that name (its file names no nearest one, as DataFusion's does)."""
    return not _facts_of(dialect)["nearest"]


def _chain(dialect: str) -> tuple[str, ...]:
    return adapters().get(dialect) or (_transpiling_in(_root())[0],)


def _facts_of(dialect: str) -> dict:
    """The facts of the file that renders ``dialect`` (transpiled.sql's for a dialect no file names)."""
    return dialect_facts()[_chain(dialect)[0]]


#: Messages raised by the templates start with one of these; each maps to the exception a Python caller catches.
_ERROR_PREFIXES = {
    "sqlndcg metric error: ": MetricError,
    "sqlndcg setting error: ": SettingError,
    "sqlndcg input error: ": InputError,
}


class _MacroReturn(Exception):
    """dbt's ``return(value)``: a macro hands back a value instead of text."""

    def __init__(self, value):
        self.value = value


def _return(value):
    raise _MacroReturn(value)


def _unwrap(macro):
    """Call a Jinja macro the way dbt does: a ``return(...)`` inside gives its value, otherwise the text."""

    def call(*args, **kwargs):
        try:
            return macro(*args, **kwargs)
        except _MacroReturn as returned:
            return returned.value

    call.__name__ = getattr(macro, "__name__", "macro")
    return call


class _Exceptions:
    @staticmethod
    def raise_compiler_error(message: str):
        for prefix, error in _ERROR_PREFIXES.items():
            if message.startswith(prefix):
                raise error(message[len(prefix):])
        raise SqlndcgError(message)


class _Modules:
    re = re


class _Namespace:
    """``sqlndcg.name``: the package's macros, as dbt exposes an installed package. Each file's macros are bound
    to the dialect's globals (adapter, ...) when the first of them is called."""

    def __init__(self, files: "_Files", module_globals: dict) -> None:
        self._files = files
        self._globals = module_globals
        self._modules: dict = {}  # file -> its compiled macros, bound to this dialect
        self._declared: dict = {}  # name -> what a macro of no arguments gave (see _declaration)
        self._callables: dict = {}  # name -> the macro as the templates call it (made once, not per access)

    def macro(self, name: str):
        """The macro ``name`` (None when no file defines it)."""
        path = self._files.where.get(name)
        if path is None:
            return None
        module = self._modules.get(path)
        if module is None:
            module = self._modules[path] = _macros_of(_compile(self._files.texts[path]), self._globals)
        return module.get(name)

    def __getattr__(self, name: str):
        found = self._callables.get(name)
        if found is None:
            macro = self.macro(name)
            if macro is None or not callable(macro):
                raise AttributeError(f"no macro {name!r} in {_root()}")
            found = self._callables[name] = _declaration(self._declared, name, _unwrap(macro))
        return found


def _declaration(declared: dict, name: str, macro):
    """A macro called without arguments is a declaration (the measure registry, the settings, a dialect's type
    name): rendered once per dialect and handed out read-only, since the metric parser reads the registry several
    times per metric. Read-only, so a template that changed what it was given would fail loudly instead of changing
    the next caller's registry; dbt, which has no such memory, renders them each time to the same values."""

    def call(*args, **kwargs):
        if args or kwargs:
            return macro(*args, **kwargs)
        if name not in declared:
            declared[name] = _frozen(macro())
        return declared[name]

    return call


class _ReadOnly:
    """Refuses the changes of dict and list (a declaration is shared by every caller)."""

    def _refuse(self, *args, **kwargs):
        raise TypeError("a declaration rendered by the package is read-only: copy it before changing it")

    __setitem__ = __delitem__ = __iadd__ = __ior__ = _refuse
    update = pop = popitem = clear = setdefault = append = extend = insert = remove = sort = reverse = _refuse

    def _thawed(self):
        """A plain, changeable shallow copy (what copy, deepcopy and pickle hand out)."""
        return dict(self) if isinstance(self, dict) else list(cast(list, self))  # else a FrozenList

    def __deepcopy__(self, memo):
        return copy.deepcopy(self._thawed(), memo)

    def __copy__(self):
        return self._thawed()

    def __reduce__(self):
        thawed = self._thawed()
        return (type(thawed), (thawed,))


class FrozenDict(_ReadOnly, dict):
    __hash__ = None


class FrozenList(_ReadOnly, list):
    __hash__ = None


def _frozen(value):
    """``value`` with every dict and list in it made read-only (equal to it, and a dict or a list still)."""
    if isinstance(value, dict):
        return FrozenDict({k: _frozen(v) for k, v in value.items()})
    if isinstance(value, list):
        return FrozenList(_frozen(v) for v in value)
    return value


class _Adapter:
    """The sliver of dbt's ``adapter`` the templates use."""

    def __init__(self, dialect: str) -> None:
        self.dialect = dialect
        self.namespace: _Namespace | None = None

    @cached_property
    def chain(self) -> tuple[str, ...]:
        """The adapters dispatch tries before default__, read from the dialect files on the first dispatch (a
        declaration such as the settings' dispatches nothing, so --help compiles no dialect file)."""
        return _chain(self.dialect)

    def type(self) -> str:
        return self.chain[0]

    def dispatch(self, name: str, macro_namespace: str | None = None):
        for prefix in (*self.chain, "default"):
            # bound by package() before any template runs
            macro = cast(_Namespace, self.namespace).macro(f"{prefix}__{name}")
            if macro is not None:
                return _unwrap(macro)
        raise LookupError(f"no macro default__{name} in {_root()}")

    def quote(self, name: str) -> str:
        """What dbt's adapter.quote does: wrap in the engine's quote character (escaping is the caller's job)."""
        start, end = _quote_chars(self.dialect)
        return f"{start}{name}{end}"


def _quote_chars(dialect: str) -> tuple[str, str]:
    """The identifier quotes of a dialect: ('"', '"'), ('`', '`'), ('[', ']')."""
    from sqlglot.dialects.dialect import Dialect

    first = Dialect.get_or_raise(_nearest(dialect)).tokenizer_class.IDENTIFIERS[0]  # transpiled: as read
    return (first, first) if isinstance(first, str) else cast("tuple[str, str]", tuple(first))


#: A macro definition's opening tag (the files hold macros only, no top-level statements).
_MACRO = re.compile(r"{%-?\s*macro\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def _macros_of(template, module_globals: dict) -> dict:
    """Every macro a file defines, the private ones (a leading underscore, dbt-utils' mark) included: a Jinja
    module exports only public names, while dbt's namespace holds every macro of a package."""
    context = template.new_context(module_globals)
    for _ in template.root_render_func(context):
        pass
    return dict(context.vars)


class _Files:
    """Every template file under the folders, read in a stable order, and which file defines each macro (a name
    defined twice: the later file's, as in one concatenated template). dbt's generic tests (``{% test %}`` blocks,
    a dbt extension of Jinja) are dbt's alone and stay out."""

    def __init__(self, folders: tuple[str, ...]) -> None:
        paths = [path for folder in folders for path in sorted((_root() / folder).rglob("*.sql"))
                 if "generic_tests" not in path.parts]
        self.texts = {path: path.read_text(encoding="utf-8") for path in paths}
        self.where = {name: path for path, text in self.texts.items() for name in _MACRO.findall(text)}


def environment():
    """A Jinja environment configured as dbt's: ``do`` statements, loop controls, strict about undefined names."""
    import jinja2

    return jinja2.Environment(
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        extensions=["jinja2.ext.do", "jinja2.ext.loopcontrols"],
    )


@lru_cache(maxsize=None)
def _environment():
    return environment()


@lru_cache(maxsize=None)
def _bytecode_cache():
    """Jinja's own on-disk cache of compiled templates, in the user's cache folder ($XDG_CACHE_HOME or ~/.cache,
    then sqlndcg/templates; $SQLNDCG_CACHE_DIR instead when set), keyed by each source's checksum and the Python
    version: compiling every file anew cost each new process far more than rendering. None where no such folder
    can be made (then every process compiles); SQLNDCG_CACHE_DIR="" turns it off."""
    import os

    import jinja2

    folder = os.environ.get("SQLNDCG_CACHE_DIR")
    if folder is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        folder = os.path.join(base, "sqlndcg", "templates")
    if not folder:
        return None
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        return jinja2.FileSystemBytecodeCache(folder)
    except (OSError, RuntimeError):
        return None


@lru_cache(maxsize=None)
def _compile(text: str):
    """One file compiled to Python, once per text: every dialect shares it (only the globals its macros are bound
    to differ), and a changed file (a test adding a measure) compiles anew."""
    _ACTIVITY["compiles"] += 1
    env = _environment()
    cache = _bytecode_cache()
    if cache is None:
        return env.from_string(text)
    key = hashlib.sha256(text.encode("utf-8")).hexdigest()
    try:
        bucket = cache.get_bucket(env, key, None, text)
    except OSError:
        return env.from_string(text)
    if bucket.code is None:
        bucket.code = env.compile(text)
        try:
            cache.set_bucket(bucket)
        except OSError:
            pass
    return env.template_class.from_code(env, bucket.code, env.make_globals(None), None)


@lru_cache(maxsize=None)
def package(dialect: str = "duckdb") -> _Namespace:
    """Every macro of ``sql/macros`` and ``sql/local``, bound to ``dialect``'s adapter."""
    adapter = _Adapter(dialect)
    module_globals = {
        "adapter": adapter,
        "return": _return,
        "exceptions": _Exceptions(),
        "modules": _Modules(),
        "execute": True,
    }
    holder: dict = {}
    module_globals["sqlndcg"] = _Lazy(holder)
    namespace = _Namespace(_Files(("macros", "local")), module_globals)
    holder["namespace"] = namespace
    adapter.namespace = namespace
    return namespace


class _Lazy:
    """The ``sqlndcg`` global, bound once the module it names exists."""

    def __init__(self, holder: dict) -> None:
        self._holder = holder

    def __getattr__(self, name: str):
        return getattr(self._holder["namespace"], name)


def call(macro_name: str, *args, dialect: str = "duckdb", **kwargs):
    """Render one macro to SQL text (or, for a macro that uses ``return``, give its value).

    The macros are pure functions of their arguments and the dialect, so a rendering of plain data (a spec or a
    plan renders in tens of milliseconds; an evaluation renders a dozen of them) is remembered. Values come back
    as fresh copies, so a caller may change what it gets."""
    if not _plain((args, kwargs)):
        return _render(macro_name, dialect, args, kwargs)
    key = repr((macro_name, dialect, args, sorted(kwargs.items())))
    if key not in _RENDERED:
        _RENDERED[key] = _render(macro_name, dialect, args, kwargs)
        if len(_RENDERED) > _RENDERED_MAX:
            del _RENDERED[next(iter(_RENDERED))]
    else:
        _RENDERED.move_to_end(key)
    value = _RENDERED[key]
    return value if isinstance(value, str) else copy.deepcopy(value)


_RENDERED: "OrderedDict[str, object]" = OrderedDict()
_RENDERED_MAX = 1024


def _plain(value) -> bool:
    """Data whose repr() says all of it (so two different values never share a key)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(_plain(k) and _plain(v) for k, v in value.items())
    return False


#: What this process compiled and rendered: "compiles" (of the whole source) and one count per macro rendered.
_ACTIVITY: Counter = Counter()


def activity() -> dict[str, int]:
    """What was compiled and rendered so far: {"compiles": n, "packages": dialects bound, macro name: renders}."""
    return {**_ACTIVITY, "compiles": _ACTIVITY["compiles"], "packages": package.cache_info().currsize}


def _render(macro_name: str, dialect: str, args, kwargs):
    _ACTIVITY[macro_name] += 1
    result = getattr(package(dialect), macro_name)(*args, **kwargs)
    return result.strip() if isinstance(result, str) else result


def quote(name: str, dialect: str = "duckdb") -> str:
    """An identifier, always quoted (so keywords, spaces, quotes and unicode are safe), by the package's rule."""
    return call("_quote", name, dialect=dialect)


def string_literal(value: str) -> str:
    """A string value as an escaped SQL literal (DuckDB), by the package's rule (text_literal)."""
    return call("text_literal", value)


def sqlglot_dialect(dialect: str) -> str:
    """The sqlglot dialect that reads and formats ``dialect``'s SQL (the nearest one for engines sqlglot lacks):
    the SQL :func:`pretty` gives, which for a transpiled dialect is written in that dialect."""
    return dialect if transpiled(dialect) else _nearest(dialect)


def known_dialect(dialect: str) -> str:
    from sqlglot.dialects.dialect import Dialect, Dialects

    try:
        Dialect.get_or_raise(sqlglot_dialect(dialect))
    except ValueError:
        known = ", ".join(sorted(d.value for d in Dialects if d.value))
        raise SettingError(f"dialect={dialect!r} is not known; choose one of {known}") from None
    return dialect


#: The first line of SQL that sqlglot translated (a dialect no dialect file names, so no engine in the tests runs it).
TRANSPILED_HEADER = ("-- sqlndcg: transpiled by sqlglot from the portable DuckDB SQL to {dialect}, which has no "
                     "dialect file of its own (sql/macros/dialects/) and is not run in sqlndcg's tests")


def pretty(sql: str, dialect: str = "duckdb") -> str:
    """Format SQL rendered for ``dialect``: sqlglot reads it in that dialect and writes it back for people,
    normalizing what the portable text leaves to each engine (types, NULL ordering); anything sqlglot cannot
    express in that dialect raises instead of emitting something else. A dialect no dialect file names was
    rendered in the portable DuckDB form: sqlglot reads it as DuckDB and writes it in ``dialect``, under a first
    line saying so (:data:`TRANSPILED_HEADER`)."""
    known_dialect(dialect)
    if transpiled(dialect):
        return TRANSPILED_HEADER.format(dialect=dialect) + "\n" + _transpile(sql, dialect, pretty=True)
    return _transpile(sql, dialect, pretty=True)


def executable(sql: str, dialect: str) -> str:
    """SQL rendered for ``dialect`` as its engine runs it: as it is, or, for a dialect no dialect file names,
    translated by sqlglot from the portable DuckDB form it was rendered in."""
    return _transpile(sql, dialect, pretty=False) if transpiled(dialect) else sql


def _transpile(sql: str, dialect: str, pretty: bool) -> str:
    """SQL rendered for ``dialect`` read in the dialect it was rendered in and written in ``dialect``'s."""
    import sqlglot
    import sqlglot.errors

    read, write = _nearest(dialect), sqlglot_dialect(dialect)
    identify = _facts_of(dialect)["identify"]
    try:
        return sqlglot.transpile(sql, read=read, write=write, pretty=pretty, identify=identify,
                                 unsupported_level=sqlglot.ErrorLevel.RAISE)[0]
    except sqlglot.errors.SqlglotError as exc:
        raise SettingError(f"the SQL cannot be written in dialect {write!r}: {str(exc).splitlines()[0]}") from None
