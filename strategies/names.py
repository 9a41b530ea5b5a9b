"""Seat names people can read: the shortest spec that still says which seat it is.

Runs record a seat's canonical spec (``strategies.registry``: every declared parameter, both
policies), about 400 characters for ``expert``. Outputs print :func:`short_name` instead: the
parts' names with only the parameters that differ from their defaults, and a policy only
where it is not the play's own (``expert``, ``expert[flush_weight=3.0]``, ``expert+void=fewest``,
``mine.py:flushfold``, ``mine.py:bold[boldness=0.8]``). Everything here works on the recorded text,
so a run written long ago shortens as a new one does and nothing is imported or compiled. A
built-in's defaults are its declaration's; a user file's live in the file, so they are the ones
this process has learnt (:func:`learn_defaults`): from the file when it was loaded
(``registry.load_user``), or from a run's ``strategy_defaults`` when its run.json was read
(``shards.read_manifest``). A user part whose defaults are unknown (a run written before runs
recorded them, its file not loaded) keeps every recorded parameter. A user file's part is named by
its file name, or by its recorded path where two seats of one output would otherwise share a name.
"""

from __future__ import annotations


from strategies.params import _USER_DEFAULTS, _resolved, declared
from strategies.registry import KINDS, own_policies, split_top

def learn_recorded(recorded) -> None:
    """Remember the defaults a run recorded (run.json's ``strategy_defaults``: {part name:
    {parameter: default text}}), unless this process loaded that part's file itself."""
    if not isinstance(recorded, dict):
        return
    for name, d in recorded.items():
        if isinstance(d, dict) and name not in _USER_DEFAULTS:
            _USER_DEFAULTS[name] = {str(k): str(v) for k, v in d.items()}


def _user_defaults(name: str) -> dict[str, str] | None:
    found = _USER_DEFAULTS.get(name)
    return found if found is not None else _USER_DEFAULTS.get(_resolved(name))


def seat_defaults(names, seats) -> dict[str, dict[str, str]]:
    """{user part name as ``names`` (the seats' recorded text) give it: {parameter: default}} for
    seats (``SeatSpec``s, the same strategies, their files loaded): what a run records as
    ``strategy_defaults``, and learns, so its names shorten wherever they are read."""
    from strategies.registry import load_user

    out = {}
    for text, seat in zip(names, seats):
        parts = _parts(text)
        for kind in KINDS:
            name = getattr(seat, kind)
            if ".py:" not in name or kind not in parts:
                continue
            params = declared(load_user(name))
            if params:
                out[_params(parts[kind])[0]] = {p.name: p.text(p.default) for p in params}
    for name, d in out.items():
        _USER_DEFAULTS[name] = d
    return out

POLICY_COLUMNS = ("play", "exchange_policy", "void_policy")   # the seats table's columns of the parts


def _parts(canonical: str) -> dict[str, str]:
    """``{play, exchange, void}`` of a canonical (or any full) spec's text; a part it does not
    name is missing."""
    items = split_top(canonical.strip(), "+", "seat spec")
    out = {"play": items[0].strip()}
    for item in items[1:]:
        key, _, value = item.partition("=")
        out[key.strip()] = value.strip()
    return out


def _params(text: str) -> tuple[str, list[tuple[str, str]]]:
    """``name[a=1,b=2]`` -> (name, [(a, "1"), (b, "2")])."""
    if not text.endswith("]") or "[" not in text:
        return text, []
    name, inner = text[:-1].split("[", 1)
    pairs = [item.partition("=") for item in split_top(inner, ",", "parameters") if item.strip()]
    return name.strip(), [(k.strip(), v.strip()) for k, _, v in pairs]


def _user_short(name: str) -> str:
    """``path/to/mine.py:func`` -> ``mine.py:func``."""
    path, _, func = name.rpartition(":")
    return f"{path.replace(chr(92), '/').rsplit('/', 1)[-1]}:{func}"


def short_part(kind: str, text: str, full_paths: bool = False) -> str:
    """One part (``expert[pace=1.5,...]``) with only its non-default parameters: a built-in's
    defaults from its declaration, a user file's as learnt (:func:`learn_defaults`; unknown, every
    parameter is kept); a user file is named by its file name unless ``full_paths``."""
    name, params = _params(text)
    if ".py:" in name:
        defaults = _user_defaults(name)
        shown = name if full_paths else _user_short(name)
        if defaults is None:
            return shown + (text[len(name):] if params else "")
    else:
        shown = name
        fn = KINDS[kind].get(name)
        defaults = {p.name: p.text(p.default) for p in declared(fn)} if fn is not None else {}
    kept = [(k, v) for k, v in params if defaults.get(k) != v]
    return shown + ("[" + ",".join(f"{k}={v}" for k, v in kept) + "]" if kept else "")


def own_policy(play_name: str, kind: str) -> str:
    """The policy a play's spec gets where it names none (registry: ``own_policies``)."""
    return own_policies(play_name)[kind]


def policy_parts(canonical: str, full_paths: bool = False) -> tuple[str, str, str]:
    """The seat's play, exchange and void parts, each shortened (:func:`short_part`): the values
    of the seats table's ``play``, ``exchange_policy`` and ``void_policy`` columns."""
    parts = _parts(canonical)
    play = parts["play"]
    out = [short_part("play", play, full_paths)]
    for kind in ("exchange", "void"):
        out.append(short_part(kind, parts.get(kind, own_policy(_params(play)[0], kind)), full_paths))
    return tuple(out)


def as_written_before(canonical: str) -> str:
    """A seat's canonical text as its spec gave it before a user file's play got expert's policies
    where the spec names none: a user play's ``exchange=expert`` and ``void=expert`` at their
    defaults as ``exchange=shortest`` and ``void=fewest`` (for the hint of a refused resume)."""
    try:
        parts = _parts(canonical)
    except ValueError:
        return canonical
    if ".py:" not in _params(parts["play"])[0] or not {"exchange", "void"} <= set(parts):
        return canonical
    old = {"exchange": "shortest", "void": "fewest"}
    out = {k: old[k] if short_part(k, parts[k]) == own_policy(_params(parts["play"])[0], k) else parts[k]
           for k in ("exchange", "void")}
    return f"{parts['play']}+exchange={out['exchange']}+void={out['void']}"


def short_name(canonical: str, full_paths: bool = False) -> str:
    """The shortest spec of the seat: its play, then each policy that is not the play's own with
    its defaults (``expert+exchange=expert[...]+void=fewest`` -> ``expert+void=fewest``)."""
    play, exchange, void = policy_parts(canonical, full_paths)
    play_name = _params(_parts(canonical)["play"])[0]
    text = play
    for kind, part in (("exchange", exchange), ("void", void)):
        if part != own_policy(play_name, kind):
            text += f"+{kind}={part}"
    return text


def short_names(canonicals, full: bool = False) -> dict[str, str]:
    """{canonical: the name to print} for the seats of one output: :func:`short_name`, except
    where two different seats would print alike (user files of one name in two folders: their
    recorded paths; failing that, the canonical specs). ``full``: every canonical as it is
    (``--full-names``)."""
    uniq = list(dict.fromkeys(canonicals))
    if full:
        return {c: c for c in uniq}
    out = {}
    for c in uniq:
        try:
            out[c] = short_name(c)
        except (ValueError, KeyError):   # not a seat spec (a label of a mixed field): as it is
            out[c] = c
    for step in (lambda c: short_name(c, full_paths=True), lambda c: c):
        clash = {c for c in uniq if sum(out[d] == out[c] for d in uniq) > 1}
        for c in clash:
            out[c] = step(c)
    return out


def seat_columns(canonicals) -> dict[str, tuple[str, str, str]]:
    """{canonical: (play, exchange_policy, void_policy)} for one run's seats, a user file named by
    its path where two seats' file names are alike (as :func:`short_names` names them)."""
    names = short_names(canonicals)
    return {c: policy_parts(c, full_paths=names[c] != short_name(c)) for c in names}
