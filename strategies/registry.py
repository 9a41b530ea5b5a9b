"""Seat specs -> jitted strategy functions.

A seat's spec is ``PLAY[+exchange=POLICY][+void=POLICY]``; each part is a built-in name or
``path/to/file.py:name`` (paths may not contain ``,``, ``+`` or brackets), optionally followed by
its parameters in brackets, ``expert[flush_margin=2,pass_cost=0.3]`` (``strategies.params``).
Omitted policies default to the play's own (``expert``, ``search`` and every user file's play:
``exchange=expert`` and ``void=expert``, the default field's) or else, for the other built-in
plays, to ``exchange=shortest`` and ``void=fewest``. One spec applies to all
four seats; ``A,B,C,D`` names each (commas inside brackets do not separate seats). Outputs
always carry the canonical full form, every declared parameter in declaration order, e.g.
``efficient+exchange=shortest+void=fewest``.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import numba as nb
import numpy as np

from simcore.contract.arena import AR_HEADER, AR_LEN, AR_SETUP, AR_STATE_LEN, arena_len
from simcore.contract.messages import did_you_mean
from simcore.contract.view import N_PARAMS, SETUP_LEN, SETUP_SCRATCH, STRATEGY_SIG

from strategies import exchange as _exchange
from strategies import expert as _expert
from strategies import play as _play
from strategies import learned as _learned
from strategies import search as _search
from strategies import void as _void
from strategies.models import ModelError, check_variant, file_digest, files_of, models_of
from strategies.params import ParamError, learn_defaults, canonical_text, copy_declaration, declared, declared_slots, resolve_values, rollout_param, scratch_of, slots

DEFAULT_PLAY = "expert"
DEFAULT_EXCHANGE = "shortest"
DEFAULT_VOID = "fewest"
# a play's own policies, used where its spec names none
OWN_POLICIES = {"expert": {"exchange": "expert", "void": "expert"},
                "search": {"exchange": "expert", "void": "expert"},
                "learned": {"exchange": "expert", "void": "expert"}}
# a user file's play's, where its spec names none: the default play's, so that a user play set
# against the default field differs from it in play only (runs written before this recorded
# exchange=shortest and void=fewest, and keep them)
USER_POLICIES = {"exchange": "expert", "void": "expert"}

PLAY: dict = {}
EXCHANGE: dict = {
    "shortest": _exchange.shortest,
    "random": _exchange.random_suit,
    "keep-pairs": _exchange.keep_pairs,
    "expert": _exchange.plans,
    "search": _search.search,
    "learned": _learned.learned_exchange,
}
VOID: dict = {
    "fewest": _void.fewest,
    "weakest": _void.weakest,
    "random": _void.random_void,
    "expert": _void.plans,
    "search": _search.search,
    "learned": _learned.learned_void,
}
KINDS = {"play": PLAY, "exchange": EXCHANGE, "void": VOID}


def register_play(name: str, fn) -> None:
    PLAY[name] = fn


register_play("random", _play.random_play)
register_play("greedy", _play.greedy)
register_play("efficient", _play.efficient)
register_play("flush", _play.flush)
register_play("defensive", _play.defensive)
register_play("expert", _expert.expert)
register_play("search", _search.search)
register_play("learned", _learned.learned)


class StrategyError(ValueError):
    """A seat spec or user strategy that cannot be used; the message is one line."""


@dataclass(frozen=True)
class SeatSpec:
    """One seat's play, exchange and void strategies, each a name with the values of its declared
    parameters (``strategies.params``), every one in declaration order."""

    play: str
    exchange: str
    void: str
    play_values: tuple = ()
    exchange_values: tuple = ()
    void_values: tuple = ()

    def part(self, kind: str) -> tuple[str, tuple]:
        return getattr(self, kind), getattr(self, f"{kind}_values")

    @property
    def canonical(self) -> str:
        text = {k: name + canonical_text(declared(_declaring(k, name)), values)
                for k, (name, values) in ((k, self.part(k)) for k in KINDS)}
        return f"{text['play']}+exchange={text['exchange']}+void={text['void']}"

    def __str__(self) -> str:
        return self.canonical


def _is_user(name: str) -> bool:
    return ".py:" in name


def own_policies(play_name: str) -> dict[str, str]:
    """{exchange, void}: the policies a seat spec of this play gets where it names none."""
    if play_name in OWN_POLICIES:
        return OWN_POLICIES[play_name]
    if _is_user(play_name):
        return USER_POLICIES
    return {"exchange": DEFAULT_EXCHANGE, "void": DEFAULT_VOID}


def _closest(name: str, known) -> str:
    return did_you_mean(name, known)


def split_top(text: str, sep: str, what: str) -> list[str]:
    """``text`` split at each ``sep`` outside brackets (parameters may hold commas)."""
    out, cur, depth = [], [], 0
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise StrategyError(f"{what} {text!r}: a ']' without its '['")
        if ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if depth:
        raise StrategyError(f"{what} {text!r}: a '[' without its ']'")
    out.append("".join(cur))
    return out


def name_and_params(text: str, spec: str) -> tuple[str, dict]:
    """``name[a=1,b=2]`` -> (name, {a: "1", b: "2"})."""
    text = text.strip()
    if "[" not in text:
        return text, {}
    if not text.endswith("]"):
        raise StrategyError(f"seat spec {spec!r}: {text!r}: parameters go in brackets at the end, name[key=value,...]")
    name, inner = text[:-1].split("[", 1)
    given = {}
    for item in split_top(inner, ",", "parameters"):
        if not item.strip():
            continue
        if "=" not in item:
            raise StrategyError(f"seat spec {spec!r}: parameter {item.strip()!r} should be key=value")
        key, value = (x.strip() for x in item.split("=", 1))
        if key in given:
            raise StrategyError(f"seat spec {spec!r}: parameter {key} given twice")
        given[key] = value
    return name.strip(), given


def _check_part(kind: str, text: str, spec: str) -> tuple[str, tuple]:
    name, given = name_and_params(text, spec)
    if not name:
        raise StrategyError(f"seat spec {spec!r}: empty {kind} name")
    if _is_user(name):
        path = name.rsplit(":", 1)[0]
        if any(c in path for c in ",+[]"):
            raise StrategyError(f"seat spec {spec!r}: a strategy path may not contain ',', '+', '[' or ']'")
    elif name not in KINDS[kind]:
        known = ", ".join(sorted(KINDS[kind]))
        raise StrategyError(f"unknown {kind} strategy {name!r} in {spec!r}; {_closest(name, KINDS[kind])}"
                            f"built-ins: {known}, or path/to/file.py:name")
    try:
        values = resolve_values(declared(_declaring(kind, name)), given, name)
    except ParamError as exc:
        raise StrategyError(str(exc)) from None
    return name, values


def parse_seat(spec: str) -> SeatSpec:
    spec = spec.strip()
    if not spec:
        raise StrategyError("empty seat spec")
    parts = split_top(spec, "+", "seat spec")
    play = parts[0].strip()
    opts = dict(own_policies(play.split("[", 1)[0].strip()))
    seen = set()
    for part in parts[1:]:
        if "=" not in part.split("[", 1)[0]:
            raise StrategyError(f"seat spec {spec!r}: {part!r} should be exchange=POLICY or void=POLICY")
        key, value = (x.strip() for x in part.split("=", 1))
        if key not in opts:
            raise StrategyError(f"seat spec {spec!r}: unknown part {key!r} ({did_you_mean(key, opts)}"
                                "expected exchange= or void=)")
        if key in seen:
            raise StrategyError(f"seat spec {spec!r}: {key}= given twice")
        seen.add(key)
        opts[key] = value
    p_name, p_values = _check_part("play", play, spec)
    e_name, e_values = _check_part("exchange", opts["exchange"], spec)
    v_name, v_values = _check_part("void", opts["void"], spec)
    return SeatSpec(p_name, e_name, v_name, p_values, e_values, v_values)


def recorded_seat(text: str) -> str:
    """A seat as a run or dataset recorded it, in today's canonical form: a parameter a built-in
    strategy has declared since (such as ``search``'s ``near``) is read at its default, which plays
    as the record did, so the record still resumes. A seat naming a user file or a model file (whose
    parsing reads files, compared apart) and one that no longer parses stay as recorded."""
    if _is_user(text) or "model=" in text:
        return text
    try:
        return parse_seat(text).canonical
    except ValueError:
        return text


def parse_seats(spec: str | None) -> list[SeatSpec]:
    """``SPEC`` for all four seats or ``A,B,C,D``; None means the default (``expert``, with its
    own exchange and void policies).
    Commas inside a strategy's parameter brackets do not separate seats."""
    if spec is None or not str(spec).strip():
        spec = DEFAULT_PLAY
    items = split_top(str(spec), ",", "seats")
    if len(items) == 1:
        return [parse_seat(items[0])] * 4
    if len(items) != 4:
        raise StrategyError(f"seats {spec!r}: give one spec for all seats or four separated by commas, not {len(items)}")
    return [parse_seat(s) for s in items]


_USER_CACHE: dict[str, object] = {}


def user_file(name: str) -> Path:
    """The file of a ``path/to/file.py:func`` strategy (absolute)."""
    return Path(name.rpartition(":")[0]).expanduser().resolve()


def _imports_by_name(tree) -> bool:
    """Does the module import by computed name (``importlib.import_module``, ``__import__``), which
    its import statements cannot show?"""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if (isinstance(f, ast.Name) and f.id in ("__import__", "import_module")) or \
                    (isinstance(f, ast.Attribute) and f.attr in ("import_module", "__import__")):
                return True
    return False


def user_dependencies(path: Path) -> list[Path]:
    """The files a strategy file's results depend on: itself and the modules of its folder it
    imports (``import helper``, ``from helper import x``, a package folder beside it), followed
    through their own imports. A file that imports by computed name, or that does not parse,
    depends on every ``.py`` file of the folder (what a run recorded before it knew this)."""
    path = Path(path)
    folder = path.parent
    every = sorted(folder.glob("*.py"))
    seen: list[Path] = []
    todo = [path]
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.append(f)
        try:
            tree = ast.parse(f.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, OSError):
            return sorted(set(every) | {path})
        if _imports_by_name(tree):
            return sorted(set(every) | {path})
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if (folder / f"{top}.py").is_file():
                    todo.append(folder / f"{top}.py")
                elif (folder / top / "__init__.py").is_file():
                    todo.extend(sorted((folder / top).rglob("*.py")))
    return sorted(seen)


def _content_hash(path: Path) -> str:
    return hashlib.blake2b(path.read_bytes(), digest_size=12).hexdigest()


def user_file_hashes(path: Path) -> dict[str, str]:
    """{absolute path: hash} of each file a strategy file depends on (``user_dependencies``)."""
    return {str(f.resolve()): _content_hash(f) for f in user_dependencies(path)}


def user_file_hash(path: Path) -> str:
    """One hash of a strategy file and what it depends on: it names the file's numba cache
    folder, and a run records it beside the per-file hashes."""
    return _combined_hash(path, user_file_hashes(path))


def _combined_hash(path: Path, hashes: dict[str, str]) -> str:
    h = hashlib.blake2b(digest_size=12)
    for name, digest in sorted(hashes.items()):
        h.update(Path(name).relative_to(Path(path).resolve().parent).as_posix().encode())
        h.update(digest.encode())
    return h.hexdigest()


def legacy_file_hash(path: Path) -> str:
    """The hash runs written before per-file hashes recorded: the file and every ``.py`` file
    beside it."""
    h = hashlib.blake2b(digest_size=12)
    for f in [path] + sorted(p for p in path.parent.glob("*.py") if p != path):
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def user_file_records(seats) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """What a run records of every user strategy file the seats name, each file's imports read
    once: ({absolute path: hash of it and its dependencies, "missing" if it is gone},
    {absolute path: {dependency: hash}})."""
    files, deps = {}, {}
    for path in _user_paths_of(seats):
        deps[str(path)] = user_file_hashes(path) if path.is_file() else {}
        files[str(path)] = _combined_hash(path, deps[str(path)]) if path.is_file() else "missing"
    return files, deps


def _user_paths_of(seats) -> list[Path]:
    out = []
    for seat in seats:
        for kind in KINDS:
            name = getattr(seat, kind)
            if _is_user(name) and user_file(name) not in out:
                out.append(user_file(name))
    return out


class StrategyChanged(StrategyError):
    """A strategy file (or a file it imports) differs from what a run recorded."""


def changed_strategy_file(path: str, recorded_hash: str, recorded_deps: dict | None) -> str | None:
    """What changed of a strategy file since a run recorded it: None if nothing, else one line
    naming the file that changed (the strategy file itself or one it imports). Runs written
    before per-file hashes compare the file and its whole folder, as they did."""
    file = Path(path)
    if not file.is_file():
        return f"strategy file {path} no longer exists"
    if recorded_deps is None:
        if legacy_file_hash(file) != recorded_hash:
            return f"strategy file {path} or a .py file beside it changed since the run"
        return None
    now = user_file_hashes(file)
    for dep in sorted(set(now) | set(recorded_deps)):
        if now.get(dep) != recorded_deps.get(dep):
            what = ("is new" if dep not in recorded_deps else "no longer exists" if dep not in now
                    else "changed")
            return (f"{dep}, which strategy file {path} imports, {what} since the run" if dep != str(file.resolve())
                    else f"strategy file {path} changed since the run")
    return None


def _rewrite_parts(spec: str, rewrite) -> str:
    """``spec`` (one seat or ``A,B,C,D``) with each part of each seat replaced by ``rewrite(i, key,
    eq, rest)``: the part's index in its seat, and for policies ``key`` "exchange" or "void" with
    ``eq`` "=" (both "" for the play, and for a later part written without a key)."""
    seats = []
    for seat in split_top(spec, ",", "seats"):
        parts = []
        for i, part in enumerate(split_top(seat, "+", "seat spec")):
            key, eq, rest = part.partition("=") if i else ("", "", part)
            if i and not eq:
                key, rest = "", part
            parts.append(rewrite(i, key, eq, rest))
        seats.append("+".join(parts))
    return ",".join(seats)


def map_user_paths(spec: str, fn) -> str:
    """``spec`` (one seat or ``A,B,C,D``) with each user strategy's path replaced by ``fn(path)``;
    built-ins and parameters unchanged. Spec files resolve paths against their folder with it,
    and a run's trace loads its files from their recorded absolute paths."""
    def rewrite(i, key, eq, rest):
        name, bracket, params = rest.strip().partition("[")
        if _is_user(name):
            path, _, func = name.strip().rpartition(":")
            name = f"{fn(path)}:{func}"
        return f"{key.strip()}{eq}{name.strip()}{bracket}{params}"

    return _rewrite_parts(spec, rewrite)


def user_paths(seats) -> dict[str, str]:
    """{path as given: absolute path} of every user strategy file the seats (SeatSpecs) name (a
    run keeps the seats as given, and these, so its trace works from any directory)."""
    out: dict[str, str] = {}
    for seat in seats:
        for kind in KINDS:
            name = getattr(seat, kind)
            if _is_user(name):
                path = name.rpartition(":")[0]
                out[path] = str(Path(path).expanduser().resolve())
    return out


def model_params(kind: str, name: str) -> tuple[str, ...]:
    """The names of a part's model parameters (``Param.model``); none for a name no strategy has
    (parsing the spec says so)."""
    if not _is_user(name) and name not in KINDS.get(kind, {}):
        return ()
    return tuple(p.name for p in declared(_declaring(kind, name)) if p.kind == "model")


def _model_texts(seats):
    """(seat, part name, model text, the question it answers) of every model parameter the seats
    (SeatSpecs) carry: a file as given, or "" for the shipped models, those a search's rollout
    policy plays too (``search[policy=learned]``: the play's shipped models)."""
    for s, seat in enumerate(seats):
        for kind in KINDS:
            name, values = seat.part(kind)
            for key, value in values:
                if key == "policy" and isinstance(value, str) and model_params("play", value):
                    for p in declared(_declaring("play", value)):
                        if p.kind == "model":
                            yield s, name, "", p.decision
            if not model_params(kind, name):
                continue
            decisions = {p.name: p.decision for p in declared(_declaring(kind, name)) if p.kind == "model"}
            for key, value in values:
                if key in decisions:
                    yield s, name, value, decisions[key]


def model_paths(seats) -> dict[str, str]:
    """{model file as given: absolute path} of every model file the seats name (as ``user_paths``:
    a run keeps them, so its trace reads the same files from any directory)."""
    return {t: str(Path(t).resolve()) for _, _, t, _ in _model_texts(seats) if t}


def _blood(rules) -> int:
    return 1 if rules.variant == "flow" else 0   # the model a seat's set holds for the table (V_FLOW)


def model_file_records(seats, rules) -> dict[str, str]:
    """{absolute path: digest of its bytes} of each model file the seats play under ``rules``: a
    file a seat names, or for the shipped default the shipped file of the rules' blood only (the
    other one plays no hand of the run, so retraining it must not lock the run); "missing" where
    no such file is shipped (the seat plays as expert)."""
    out = {}
    for _, _, text, decision in _model_texts(seats):
        files = files_of(text, decision)
        path = files[min(_blood(rules), len(files) - 1)].resolve()
        out[str(path)] = file_digest(path) if path.is_file() else "missing"
    return out


def check_rules(seats, rules) -> None:
    """Refuse, in one line naming the seat and the file, a seat whose model was trained for the
    other blood than ``rules``' (a blood battle preset plays a battle model, blood flow a flow
    one): its trees learnt another game."""
    for s, name, text, decision in _model_texts(seats):
        try:
            m = models_of(text, decision)[_blood(rules)]
            if m is not None:
                check_variant(m, rules.variant)
        except ModelError as exc:
            raise StrategyError(f"seat {s}'s {name}: {exc}") from None


def map_model_paths(spec: str, fn, params_of=None) -> str:
    """``spec`` (one seat or ``A,B,C,D``) with the file of each model parameter replaced by
    ``fn(path)`` (the shipped default, "", unchanged; all else as written). ``params_of(kind,
    name)``: a part's model parameters (``model_params`` by default). A run's trace reads its
    models from their recorded absolute paths with it, as ``map_user_paths`` does its files."""
    params_of = params_of or model_params

    def rewrite(i, key, eq, rest):
        name, bracket, params = rest.partition("[")
        kind = key.strip() if i else "play"
        models = params_of(kind, name.strip()) if bracket and params.rstrip().endswith("]") else ()
        if models:
            items = []
            for item in split_top(params.rstrip()[:-1], ",", "parameters"):
                k, e, v = item.partition("=")
                items.append(f"{k}{e}{fn(v.strip())}" if e and k.strip() in models and v.strip() else item)
            params = ",".join(items) + "]"
        return f"{key}{eq}{name}{bracket}{params}"

    return _rewrite_parts(spec, rewrite)


def numba_cause(exc: BaseException) -> str:
    """numba's reason a function does not compile, in a line: what failed (its first statement,
    not "Failed in nopython mode pipeline") and where (the user's file, line and source line)."""
    import re

    text = str(exc)
    lines = [line.rstrip() for line in text.splitlines()]
    body = [line.strip() for line in lines if line.strip() and not line.strip().startswith(("Failed in nopython", "During:"))]
    if not body:
        return " ".join(text.split()) or type(exc).__name__
    what = body[0]
    if what.endswith(":") and len(body) > 1 and body[1].startswith(">>>"):
        what += " " + body[1][3:].strip()
    where = ""
    places = [m for m in re.finditer(r"at (\S+\.py) \((\d+)\)", text) if "site-packages" not in m.group(1)]
    if places:
        where = f"{places[-1].group(1)}, line {places[-1].group(2)}"
    else:
        m = list(re.finditer(r'File "([^"]+)", line (\d+)', text))
        where = f"{m[-1].group(1)}, line {m[-1].group(2)}" if m else ""
    caret = [i for i, line in enumerate(lines) if line.strip() == "^"]
    source = lines[caret[-1] - 1].strip() if caret and caret[-1] > 0 else ""
    if where:
        what += f" ({where}" + (f": {source}" if source else "") + ")"
    return what


def _import_user(path: str, file: Path):
    """Import a user strategy file as a module of its own. Its folder goes on ``sys.path``, so it
    may import the modules beside it (in every process that loads it: worker processes and Dask
    workers load it the same way), and what it compiles is cached under a directory named by
    the hash of it and its siblings, so an edit to any of them is compiled afresh."""
    from numba.core import config

    folder = str(file.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    mod_name = "sichuan_user_" + "".join(c if c.isalnum() else "_" for c in str(file))
    kept = config.CACHE_DIR
    if kept:
        config.CACHE_DIR = os.path.join(kept, f"user-{user_file_hash(file)}")
    try:
        spec = importlib.util.spec_from_file_location(mod_name, file)
        module = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = module
        spec.loader.exec_module(module)
        return module
    except nb.core.errors.NumbaError as exc:   # compiled on import (a signature given): numba's cause
        raise StrategyError(f"strategy file {path!r} does not compile: {numba_cause(exc)}") from None
    except Exception as exc:  # a user file can fail in any way; report it in one line
        raise StrategyError(f"strategy file {path!r} failed to import: {type(exc).__name__}: {exc}") from None
    finally:
        config.CACHE_DIR = kept


def load_user(name: str):
    """``path/to/file.py:func`` -> a dispatcher compiled for STRATEGY_SIG."""
    if name in _USER_CACHE:
        return _USER_CACHE[name]
    path, _, attr = name.rpartition(":")
    file = Path(path).expanduser()
    if not file.is_file():
        raise StrategyError(f"strategy file {path!r} does not exist")
    module = _import_user(path, file.resolve())
    fn = getattr(module, attr, None)
    if fn is None:
        raise StrategyError(f"strategy file {path!r} has no function {attr!r}")
    try:
        if isinstance(fn, nb.core.registry.CPUDispatcher):
            if STRATEGY_SIG.args not in fn.overloads:
                fn.compile(STRATEGY_SIG)
            disp = fn
        elif callable(fn):
            disp = copy_declaration(fn, nb.njit(STRATEGY_SIG, cache=True)(fn))
        else:
            raise StrategyError(f"{name!r} is not a function")
        cres = disp.overloads.get(STRATEGY_SIG.args)
        if cres is None or cres.signature.return_type != STRATEGY_SIG.return_type:
            raise StrategyError(f"strategy {name!r} must return an int64 for (int64, int64[::1], uint8[::1])")
    except StrategyError:
        raise
    except Exception as exc:
        raise StrategyError(f"strategy {name!r} does not compile as f(question, view, tab) -> int64: "
                            f"{numba_cause(exc)}") from None
    _USER_CACHE[name] = disp
    learn_defaults(name, declared(disp))
    return disp


def _first_line(fn) -> str:
    """The first paragraph of a strategy's docstring, in one line."""
    doc = getattr(fn, "__doc__", None) or getattr(getattr(fn, "py_func", None), "__doc__", None) or ""
    return " ".join(doc.strip().split("\n\n", 1)[0].split())


def describe_builtins() -> str:
    """One line per built-in strategy, grouped by kind, defaults marked, each declared parameter
    on a line of its own below it."""
    defaults = {"play": DEFAULT_PLAY, "exchange": DEFAULT_EXCHANGE, "void": DEFAULT_VOID}
    own = OWN_POLICIES.get(DEFAULT_PLAY, {})
    lines = []
    for kind, table in KINDS.items():
        lines.append(f"{kind}:")
        width = max(len(n) for n in table)
        for name, fn in table.items():
            mark = ""
            if kind == "play" and name == DEFAULT_PLAY:
                mark = " (default)"
            elif kind != "play" and name == own.get(kind):
                mark = f" (default with {DEFAULT_PLAY})"
            elif kind != "play" and name == defaults[kind]:
                mark = " (default with other plays)"
            lines.append(f"  {name:<{width}}  {_first_line(fn)}{mark}")
            for p in declared(fn):
                lines.append(f"  {'':<{width}}    [{p.describe()}]")
    own_text = ", ".join(f"{p}: exchange={o['exchange']}, void={o['void']}" for p, o in OWN_POLICIES.items())
    lines.append("A seat spec is PLAY[+exchange=POLICY][+void=POLICY]; any part may be path/to/file.py:function, "
                 "and parameters follow a name in brackets: NAME[key=value,...]. Omitted policies are the play's own "
                 f"({own_text}; a user file's play: exchange={USER_POLICIES['exchange']}, void={USER_POLICIES['void']}) "
                 f"or exchange={DEFAULT_EXCHANGE}, void={DEFAULT_VOID} (the other built-in plays). "
                 "`sichuan strategies path/to/file.py` lists a file's strategies.")
    return "\n".join(lines)


def _builtin_name(fn) -> str:
    """``play expert`` for a built-in strategy function (its kind and name), else its name."""
    for kind, table in KINDS.items():
        for name, f in table.items():
            if f is fn:
                return f"{kind} {name}"
    return getattr(fn, "__name__", str(fn))


def describe_file(path: str) -> str:
    """The strategies of a user file, as :func:`describe_builtins` lists the built-ins: each
    function compiled for ``STRATEGY_SIG`` or declared with parameters, its first doc line, and
    its parameters (a wrapper's own; the wrapped built-in's by reference)."""
    from strategies.params import wrapped_of

    file = Path(path).expanduser()
    if not file.is_file():
        raise StrategyError(f"strategy file {path!r} does not exist")
    if file.suffix != ".py":
        raise StrategyError(f"{path!r} is not a strategy file (a .py file)")
    module = _import_user(path, file.resolve())
    found = []
    for attr, fn in vars(module).items():
        if attr.startswith("_") or not isinstance(fn, nb.core.registry.CPUDispatcher):
            continue
        if getattr(fn.py_func, "__module__", None) != module.__name__:
            continue   # imported, not defined here
        if STRATEGY_SIG.args in fn.overloads or declared(fn) or wrapped_of(fn) is not None:
            found.append((attr, fn))
    if not found:
        raise StrategyError(f"strategy file {path!r} defines no strategy (a function jitted with STRATEGY_SIG)")
    lines = [f"{path}:"]
    width = max(len(a) for a, _ in found)
    for attr, fn in found:
        inner = wrapped_of(fn)
        note = ""
        own = declared(fn)
        if inner is not None:
            n = len(declared(inner))
            note = (f" (wraps {_builtin_name(inner)}: its {n} parameter{'s' if n != 1 else ''} with their defaults, "
                    "as `sichuan strategies` lists them, then its own)")
            own = own[n:]
        lines.append(f"  {attr:<{width}}  {_first_line(fn)}{note}")
        for p in own:
            lines.append(f"  {'':<{width}}    [{p.describe()}]")
    lines.append(f"A seat spec names one as {path}:NAME[key=value,...]; omitted policies of a play: "
                 f"exchange={USER_POLICIES['exchange']}, void={USER_POLICIES['void']}.")
    return "\n".join(lines)


def compiled(fn):
    """A built-in strategy compiled for ``STRATEGY_SIG`` (from numba's cache when it can).
    Built-ins are compiled when first used, not on import: a first run after install compiles
    only the strategies it plays."""
    if isinstance(fn, nb.core.registry.CPUDispatcher) and STRATEGY_SIG.args not in fn.overloads:
        fn.compile(STRATEGY_SIG)
    return fn


def _declaring(kind: str, name: str):
    """The strategy whose parameters are read: a built-in as it is (it compiles when played,
    ``simcore.runs.warmup``), a user file's loaded (and so compiled)."""
    return load_user(name) if _is_user(name) else KINDS[kind][name]


def resolve(kind: str, name: str):
    return compiled(_declaring(kind, name))


@dataclass(frozen=True)
class Players:
    """What the engine needs of the four seats: the twelve functions (play for seats 0-3,
    exchange for 0-3, void for 0-3) and their setup (``simcore.contract.view.SETUP_LEN`` slots: the
    parameters each seat's strategies read from its view, and the scratch they use); for
    seats that search, their rollout players (``rfns``, laid out as ``fns``: seat s's rollout
    policy's functions) and arena templates (``arena``: ``simcore.contract.arena.AR_HEADER`` slots a
    seat, length 0 for a seat that does not search)."""

    fns: tuple
    setup: np.ndarray
    rfns: tuple = None
    arena: np.ndarray = None

    def __post_init__(self):
        if self.rfns is None:
            object.__setattr__(self, "rfns", self.fns)
        if self.arena is None:
            object.__setattr__(self, "arena", np.zeros(4 * AR_HEADER, np.int64))


def setup_of(seats: list[SeatSpec], fns: tuple) -> np.ndarray:
    out = np.zeros(SETUP_LEN, np.int64)
    for s, seat in enumerate(seats):
        use = 0
        for g, kind in enumerate(KINDS):
            name, values = seat.part(kind)
            fn = fns[g * 4 + s]
            lo = (s * 3 + g) * N_PARAMS
            out[lo:lo + N_PARAMS] = slots(declared(fn), values, declared_slots(fn))
            use = max(use, scratch_of(fn))
        out[SETUP_SCRATCH + s] = use
    return out


def _functions(seats: list[SeatSpec]) -> tuple:
    fns = [resolve("play", s.play) for s in seats]
    fns += [resolve("exchange", s.exchange) for s in seats]
    fns += [resolve("void", s.void) for s in seats]
    return tuple(fns)


def rollout_policy(seat: SeatSpec, fns: tuple, s: int) -> str | None:
    """The rollout policy of seat s's searching strategies (play's first, then exchange's, then
    void's), or None when none of them searches."""
    for g, kind in enumerate(KINDS):
        param = rollout_param(fns[g * 4 + s])
        if param is not None:
            return dict(seat.part(kind)[1])[param]
    return None


def seat_functions(seats: list[SeatSpec], rules=None) -> Players:
    """The engine's players for four seat specs; with ``rules`` (the table's RuleSet), a seat
    whose model was trained for the other blood is refused (``check_rules``; without, it cannot
    be told)."""
    if rules is not None:
        check_rules(seats, rules)
    return _players(seats, _functions(seats))


def _players(seats: list[SeatSpec], fns: tuple) -> Players:
    """Players for the seats' functions, with the rollout players and arenas of the seats that
    search."""
    rfns = list(fns)
    arena = np.zeros(4 * AR_HEADER, np.int64)
    for s, seat in enumerate(seats):
        policy = rollout_policy(seat, fns, s)
        if policy is None:
            continue
        spec = parse_seat(policy)
        pf = _functions([spec] * 4)
        if any(rollout_param(f) is not None for f in pf):
            raise ParamError(f"seat {s}: the rollout policy {policy!r} searches itself")
        for g in range(3):
            rfns[g * 4 + s] = pf[g * 4]
        a = arena[s * AR_HEADER:(s + 1) * AR_HEADER]
        a[AR_LEN] = arena_len(_search.ROLLOUT_STATE_LEN)
        a[AR_SETUP:AR_SETUP + SETUP_LEN] = setup_of([spec] * 4, pf)
        a[AR_STATE_LEN] = _search.ROLLOUT_STATE_LEN
    return Players(fns, setup_of(seats, fns), tuple(rfns), arena)


def players_of(players) -> Players:
    """``Players``, or a bare tuple of twelve functions with each declared parameter at its
    default (for code that builds the tuple itself)."""
    if isinstance(players, Players):
        return players
    fns = tuple(compiled(f) for f in players)
    seats = [SeatSpec("", "", "", *(resolve_values(declared(fns[g * 4 + s]), {}, "") for g in range(3)))
             for s in range(4)]
    return _players(seats, fns)
