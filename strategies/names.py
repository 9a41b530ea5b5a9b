"""Seat names people can read: the shortest spec that still says which seat it is.

Runs record a seat's canonical spec (``strategies.registry``: every declared parameter, both
policies), about 400 characters for ``expert``. Outputs print :func:`short_name` instead: the
parts' names with only the parameters that differ from the built-in's default, and a policy only
where it is not the play's own (``expert``, ``expert[flush_weight=3.0]``, ``expert+void=fewest``,
``mine.py:flushfold``). Everything here works on the recorded text alone, so a run written long
ago shortens as a new one does and nothing is imported or compiled: a user file's part keeps its
recorded parameters (their defaults live in the file) and is named by its file name, or by its
recorded path where two seats of one output would otherwise share a name.
"""

from __future__ import annotations

from strategies.params import declared
from strategies.registry import DEFAULT_EXCHANGE, DEFAULT_VOID, KINDS, OWN_POLICIES, split_top

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
    parameters at their defaults are dropped, a user file's are kept (its defaults are in the
    file); a user file is named by its file name unless ``full_paths``."""
    name, params = _params(text)
    if ".py:" in name:
        return (name if full_paths else _user_short(name)) + (text[len(name):] if params else "")
    fn = KINDS[kind].get(name)
    defaults = {p.name: p.text(p.default) for p in declared(fn)} if fn is not None else {}
    kept = [(k, v) for k, v in params if defaults.get(k) != v]
    return name + ("[" + ",".join(f"{k}={v}" for k, v in kept) + "]" if kept else "")


def own_policy(play_name: str, kind: str) -> str:
    """The policy a play's spec gets where it names none (registry: ``parse_seat``)."""
    own = OWN_POLICIES.get(play_name)
    if own is not None:
        return own[kind]
    return DEFAULT_EXCHANGE if kind == "exchange" else DEFAULT_VOID


def policy_parts(canonical: str, full_paths: bool = False) -> tuple[str, str, str]:
    """The seat's play, exchange and void parts, each shortened (:func:`short_part`): the values
    of the seats table's ``play``, ``exchange_policy`` and ``void_policy`` columns."""
    parts = _parts(canonical)
    play = parts["play"]
    out = [short_part("play", play, full_paths)]
    for kind in ("exchange", "void"):
        out.append(short_part(kind, parts.get(kind, own_policy(_params(play)[0], kind)), full_paths))
    return tuple(out)


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
