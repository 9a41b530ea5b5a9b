"""Model files a strategy can carry (``learned[model=FILE]``): their format, their checks, and the
jitted evaluation a strategy runs inside the kernel.

A model file is a NumPy ``.npz`` archive (no pickles: ``np.load(allow_pickle=False)`` reads it, and
so can anything that reads ``.npy``), readable without the library that trained it:

- ``header``: a JSON document as uint8 bytes: ``format`` ("sichuan-model"), ``format_version``
  (``FORMAT_VERSION``), ``kind`` ("gbdt": a sum of regression trees), ``decision`` (optional,
  default "play": the question it answers, ``DECISIONS``; a seat refuses a model of another),
  ``feature_version`` (the
  version of the features the model reads, ``strategies.features.FEATURE_VERSION``), ``n_features``,
  ``preset`` (the rule set it was trained for: a table of the other blood refuses it), ``baseline``
  (added to the trees' sum), ``margin`` (the advantage a candidate needs before a ``learned`` seat
  plays it; negative: even one predicted a little worse; ``margin_given``, optional: set by
  ``sichuan learn --margin`` rather than chosen on validation hands), ``max_shanten`` (optional,
  default 8: the seat consults the model only at decisions whose hand is at most this far from
  ready, the feature ``shanten_now``; elsewhere it plays expert's answer unscored), and what it
  was trained on and how well it did (``training``, ``metrics``: free-form);
- ``feature``, ``threshold``, ``left``, ``right``, ``value``: one entry a node, all trees' nodes in
  one array (int64, float64, int64, int64, float64). A node with ``feature`` -1 is a leaf worth
  ``value``; else its row goes ``left`` when ``x[feature] <= threshold``, else ``right`` (node
  indices within the whole array);
- ``roots``: each tree's first node (int64).

``load`` checks all of it and packs it into one float64 array (``pack``), which the registry keeps
alive for the process and hands to the strategy by address (``predict`` walks it); a bad file is one
``ModelError`` line.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numba as nb
import numpy as np

from simcore.contract.rules import PRESETS, preset as preset_rules

FORMAT = "sichuan-model"
FORMAT_VERSION = 1
DECISIONS = ("play", "exchange", "void")   # the question a model answers (its header's ``decision``)
ARRAYS = ("feature", "threshold", "left", "right", "value", "roots")
# the packed array: [0] trees, [1] features, [2] baseline, [3] the margin, [4] nodes, [5] the
# largest shanten it is consulted at, then the roots,
# then 2 slots a node: its threshold (a leaf: its value), and its code: -1 for a leaf, else
# feature + CODE_SHIFT * left child (the right child is left + 1)
P_TREES, P_FEATURES, P_BASELINE, P_MARGIN, P_NODES, P_MAX_SHANTEN, P_ROOTS = 0, 1, 2, 3, 4, 5, 6
NO_GATE = 8   # shanten_now is at most 8: a model consulted everywhere
CODE_BITS = 10
CODE_SHIFT = 1 << CODE_BITS   # more features than this and the code would mix them with the child


class ModelError(ValueError):
    """A model file that cannot be used: one line that says why."""


@dataclass(frozen=True)
class Model:
    path: str
    header: dict
    packed: np.ndarray   # float64, ``pack``'s layout
    digest: str          # blake2b of the file's bytes: a run's identity records it
    packed_digest: str   # blake2b of ``packed`` as loaded (check mode: never written)

    @property
    def n_features(self) -> int:
        return int(self.header["n_features"])


def save(path, header: dict, arrays: dict) -> Path:
    """Write a model file (``header`` gains format and format_version); returns its path."""
    path = Path(path)
    head = dict(header, format=FORMAT, format_version=FORMAT_VERSION)
    blob = np.frombuffer(json.dumps(head, sort_keys=True).encode(), np.uint8)
    data = {k: np.ascontiguousarray(arrays[k]) for k in ARRAYS}
    tmp = path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for name, arr in (("header", blob), *data.items()):
            # a fixed date: the same training writes the same bytes, so the digest a round's
            # dataset records of the models it plays holds when ``make models`` resumes
            entry = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            entry.compress_type = zipfile.ZIP_DEFLATED
            with z.open(entry, "w") as f:
                np.lib.format.write_array(f, arr, allow_pickle=False)
    tmp.replace(path)
    _check(path, *_read(path)[:2])   # never leave a file that does not load
    return path


def file_digest(path) -> str:
    """blake2b of a file's bytes, as ``Model.digest`` and a run's ``model_files`` record it."""
    return _digest(Path(path).read_bytes())


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def _read(path: Path) -> tuple[dict, dict, str]:
    """The header, the arrays and the digest of the bytes they were read from (read once, so the
    digest is of what loads)."""
    if not path.is_file():
        raise ModelError(f"model file {str(path)!r} does not exist")
    try:
        data = path.read_bytes()
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            names = set(z.files)
            missing = [k for k in ("header", *ARRAYS) if k not in names]
            if missing:
                raise ModelError(f"model file {str(path)!r} lacks {', '.join(missing)} (not a {FORMAT} file)")
            header = json.loads(z["header"].tobytes().decode())
            arrays = {k: z[k] for k in ARRAYS}
    except ModelError:
        raise
    except Exception as exc:   # truncated, not a zip, bad JSON: whatever numpy or json raised
        raise ModelError(f"model file {str(path)!r} cannot be read ({type(exc).__name__}: "
                         f"{str(exc).splitlines()[0] if str(exc) else 'corrupt'})") from None
    return header, arrays, _digest(data)


def _check(path: Path, header: dict, arrays: dict) -> None:
    name = str(path)
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise ModelError(f"model file {name!r} is not a {FORMAT} file")
    if header.get("format_version") != FORMAT_VERSION:
        raise ModelError(f"model file {name!r} has format version {header.get('format_version')}; this version "
                         f"reads {FORMAT_VERSION}")
    if header.get("decision", "play") not in DECISIONS:
        raise ModelError(f"model file {name!r} answers {header.get('decision')!r}; this version reads models of "
                         f"{', '.join(DECISIONS)}")
    if header.get("kind") != "gbdt":
        raise ModelError(f"model file {name!r} holds a {header.get('kind')!r} model; this version reads gbdt")
    n = len(arrays["feature"])
    if any(len(arrays[k]) != n for k in ("threshold", "left", "right", "value")) or n == 0:
        raise ModelError(f"model file {name!r}: its node arrays differ in length or are empty")
    f, left, right, roots = (np.asarray(arrays[k], np.int64) for k in ("feature", "left", "right", "roots"))
    gate = header.get("max_shanten", NO_GATE)
    if not isinstance(gate, int) or not -1 <= gate <= NO_GATE:
        raise ModelError(f"model file {name!r}: max_shanten {gate!r} is not a whole number in -1..{NO_GATE}")
    n_features = header.get("n_features")
    if not isinstance(n_features, int) or not 0 < n_features <= CODE_SHIFT:
        raise ModelError(f"model file {name!r}: n_features {n_features!r} is not a whole number in 1..{CODE_SHIFT}")
    inner = f >= 0
    if (f >= n_features).any() or (f < -1).any():
        raise ModelError(f"model file {name!r}: a node reads a feature outside 0..{n_features - 1}")
    if len(roots) == 0 or (roots < 0).any() or (roots >= n).any():
        raise ModelError(f"model file {name!r}: a tree's root is not a node")
    # children point forward (a tree is written root first), so every walk ends
    idx = np.arange(n)
    if ((left[inner] <= idx[inner]) | (right[inner] <= idx[inner]) | (left[inner] >= n) | (right[inner] >= n)).any():
        raise ModelError(f"model file {name!r}: a node's child is not a later node")
    if not np.isfinite(np.asarray(arrays["value"], np.float64)).all() or not np.isfinite(header.get("baseline", 0.0)):
        raise ModelError(f"model file {name!r}: a value is not finite")
    margin = header.get("margin", 0.0)
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not np.isfinite(margin):
        raise ModelError(f"model file {name!r}: margin {margin!r} is not a finite number")


def pack(header: dict, arrays: dict) -> np.ndarray:
    """The model as one float64 array (``predict``'s layout): each tree's nodes renumbered so that
    a split's two children sit side by side (its right child follows its left), which lets
    ``predict`` step without a branch on the comparison, in two slots a node (half the memory of
    the file's four arrays: the trees stay in cache)."""
    roots = np.asarray(arrays["roots"], np.int64)
    feature = np.asarray(arrays["feature"], np.int64)
    threshold, value = np.asarray(arrays["threshold"]), np.asarray(arrays["value"])
    left, right = np.asarray(arrays["left"], np.int64), np.asarray(arrays["right"], np.int64)
    n = len(feature)
    order = []                                   # new position -> old node, children adjacent
    for r in roots:
        order.append(int(r))
        k = len(order) - 1
        while k < len(order):
            i = order[k]
            if feature[i] >= 0:
                order += [int(left[i]), int(right[i])]
            k += 1
    if len(order) != n or len(set(order)) != n:
        raise ModelError("a model's trees do not cover its nodes once each")
    new = np.empty(n, np.int64)
    new[order] = np.arange(n)
    out = np.zeros(P_ROOTS + len(roots) + 2 * n, np.float64)
    out[P_TREES], out[P_FEATURES], out[P_BASELINE], out[P_NODES] = len(roots), header["n_features"], \
        header.get("baseline", 0.0), n
    out[P_MARGIN] = header.get("margin", 0.0)
    out[P_MAX_SHANTEN] = header.get("max_shanten", NO_GATE)
    out[P_ROOTS:P_ROOTS + len(roots)] = new[roots]
    nodes = out[P_ROOTS + len(roots):].reshape(n, 2)
    old = np.asarray(order)
    split = feature[old] >= 0
    nodes[:, 0] = np.where(split, threshold[old], value[old])
    nodes[:, 1] = np.where(split, feature[old] + CODE_SHIFT * new[np.where(split, left[old], 0)], -1)
    return out


def load(path, preset: str | None = None, feature_version: int | None = None, decision: str | None = None) -> Model:
    """Read and check a model file (and that it was trained for ``preset``, on features of
    ``feature_version``, and answers ``decision``, when given)."""
    path = Path(path)
    header, arrays, digest = _read(path)
    _check(path, header, arrays)
    if decision is not None and header.get("decision", "play") != decision:
        raise ModelError(f"model file {str(path)!r} answers the {header.get('decision', 'play')} question, not the "
                         f"{decision} one (train it with sichuan learn --decision {decision})")
    if feature_version is not None and header.get("feature_version") != feature_version:
        raise ModelError(f"model file {str(path)!r} reads features of version {header.get('feature_version')}; "
                         f"this version computes version {feature_version} (train it again)")
    if preset is not None and header.get("preset") != preset:
        raise ModelError(f"model file {str(path)!r} was trained for {header.get('preset')!r}, not {preset!r}")
    packed = pack(header, arrays)
    return Model(str(path), header, packed, digest, _digest(packed.tobytes()))


SHIPPED = Path(__file__).resolve().parent / "models"   # <preset>[-decision].npz, made by `make models`
SHIPPED_FOR = ("battle", "flow")   # the blood battle presets play battle's, blood flow flow's
# model text -> (model set array, its models, the digests of the files they were read from): alive
# for the process; a set whose file changed since is read again, the old one kept in _RETIRED
# (players made before may still point at it)
_KEPT: dict[str, tuple] = {}
_RETIRED: list = []


def shipped_path(preset: str, decision: str = "play") -> Path:
    """The shipped model of a preset for a question: ``<preset>.npz`` for play, else
    ``<preset>-<decision>.npz``."""
    return SHIPPED / (f"{preset}.npz" if decision == "play" else f"{preset}-{decision}.npz")


def files_of(text: str, decision: str = "play") -> list[Path]:
    """The files a model text reads: the file it names, or the shipped ones (``SHIPPED_FOR``)."""
    return [Path(text)] if text else [shipped_path(p, decision) for p in SHIPPED_FOR]


def _on_disk(text: str, decision: str) -> tuple:
    return tuple(file_digest(f) if f.is_file() else None for f in files_of(text, decision))


def model_set(text: str, decision: str = "play") -> tuple[np.ndarray, list]:
    """The models a ``learned`` seat plays, as the int64 array its view's slot points at:
    [the blood-battle model's address, the blood-flow model's] (0 where none), each a packed
    model kept for the process. ``text``: a model file (played under both), or "" for the shipped
    models. A file rewritten since it was kept is read again: a run records the digest of the
    file it plays (``models_of``), so what it plays must be what the file holds."""
    key = (text, decision)
    kept = _KEPT.get(key)
    if kept is None or kept[2] != _on_disk(text, decision):
        if kept is not None:
            _RETIRED.append(kept)
        if text:
            m = load(text, decision=decision)
            chosen, read = [m, m], (m.digest,)
        else:
            files = files_of("", decision)
            chosen = [load(f, decision=decision) if f.is_file() else None for f in files]
            read = tuple(m.digest if m is not None else None for m in chosen)
        addresses = np.array([m.packed.ctypes.data if m is not None else 0 for m in chosen], np.int64)
        _KEPT[key] = (addresses, chosen, read)
    return _KEPT[key][:2]


def model_set_address(text: str, decision: str = "play") -> int:
    """The address a seat's parameter slot holds for the model text (``model_set``)."""
    return int(model_set(text, decision)[0].ctypes.data)


def models_of(text: str, decision: str = "play") -> list:
    """The models (``Model`` or None) of a model text, battle's then flow's."""
    return model_set(text, decision)[1]


def variant_of(header: dict) -> str | None:
    """The blood ("battle" or "flow") of the rules a model was trained for (its header's preset),
    or None for a preset this version does not know."""
    name = header.get("preset")
    return preset_rules(name).variant if name in PRESETS else None


def check_variant(m: Model, variant: str) -> None:
    """Refuse a model at a table of the other blood: its trees learnt another game."""
    theirs = variant_of(m.header)
    if theirs != variant:
        trained = (f"for {m.header.get('preset')!r} (blood {theirs})" if theirs else
                   f"for {m.header.get('preset')!r}, rules this version does not know")
        raise ModelError(f"model file {m.path!r} was trained {trained}; this table plays blood {variant} "
                         f"(use a model trained for a blood {variant} preset)")


def changed_model_file(path: str, recorded: str) -> str | None:
    """What changed of a model file since a run recorded its digest (``recorded``, "missing" where
    the run found none): None if nothing, else one line naming the file."""
    file = Path(path)
    if not file.is_file():
        return None if recorded == "missing" else f"model file {path} no longer exists"
    if recorded == "missing":
        return f"model file {path} is new since the run"
    if file_digest(file) != recorded:
        return f"model file {path} changed since the run"
    return None


def changed_model_files(recorded: dict | None) -> str | None:
    """The first model file of a run's or dataset's ``model_files`` (path -> digest; None in one
    written before they were recorded) that changed since, in one line; None if none did."""
    for path, digest in (recorded or {}).items():
        changed = changed_model_file(path, digest)
        if changed:
            return changed
    return None


def check_unwritten() -> str | None:
    """Check mode: None if every model kept in this process is as it was loaded, else one line
    naming the model a strategy wrote to."""
    for text, (_, models, _) in _KEPT.items():
        for m in models:
            if m is not None and hashlib.blake2b(m.packed.tobytes(), digest_size=12).hexdigest() != m.packed_digest:
                return f"model {m.path!r} was written to while it played (a model is read-only)"
    return None


def from_sklearn(est) -> tuple[float, dict]:
    """A fitted ``sklearn.ensemble.HistGradientBoostingRegressor`` (squared error, no categorical
    features) as (baseline, arrays): each tree's nodes renumbered into one array, root first."""
    feature, threshold, left, right, value, roots = [], [], [], [], [], []
    for (tree,) in est._predictors:
        nodes = tree.nodes
        base = len(feature)
        roots.append(base)
        for nd in nodes:
            leaf = bool(nd["is_leaf"])
            feature.append(-1 if leaf else int(nd["feature_idx"]))
            threshold.append(0.0 if leaf else float(nd["num_threshold"]))
            left.append(-1 if leaf else base + int(nd["left"]))
            right.append(-1 if leaf else base + int(nd["right"]))
            value.append(float(nd["value"]))
    arrays = {"feature": np.array(feature, np.int64), "threshold": np.array(threshold, np.float64),
              "left": np.array(left, np.int64), "right": np.array(right, np.int64),
              "value": np.array(value, np.float64), "roots": np.array(roots, np.int64)}
    return float(np.ravel(est._baseline_prediction)[0]), arrays


@nb.njit(cache=True, _nrt=False, inline="always")
def _step(M, node0, x, i):
    """The node after node ``i`` for the row ``x``; a leaf gives -1 - its slot (negative)."""
    o = node0 + 2 * i
    code = np.int64(M[o + 1])
    if code < 0:
        return -1 - o
    return (code >> CODE_BITS) + np.int64(x[code & (CODE_SHIFT - 1)] > M[o])


@nb.njit(cache=True, _nrt=False)
def predict(M, x):
    """The model's value at the feature row ``x`` (float64): the baseline plus each tree's leaf
    (a row goes left when ``x[feature] <= threshold``, as scikit-learn's trees send it). Four
    trees are walked side by side: a walk is a chain of dependent loads, and four chains overlap
    (2.5 times as fast as one tree at a time); the leaves are still summed in the trees' order."""
    n_trees = np.int64(M[P_TREES])
    node0 = P_ROOTS + n_trees
    total = M[P_BASELINE]
    t = 0
    while t + 4 <= n_trees:
        a, b = np.int64(M[P_ROOTS + t]), np.int64(M[P_ROOTS + t + 1])
        c, d = np.int64(M[P_ROOTS + t + 2]), np.int64(M[P_ROOTS + t + 3])
        while a >= 0 or b >= 0 or c >= 0 or d >= 0:
            if a >= 0:
                a = _step(M, node0, x, a)
            if b >= 0:
                b = _step(M, node0, x, b)
            if c >= 0:
                c = _step(M, node0, x, c)
            if d >= 0:
                d = _step(M, node0, x, d)
        total += M[-1 - a]
        total += M[-1 - b]
        total += M[-1 - c]
        total += M[-1 - d]
        t += 4
    while t < n_trees:
        a = np.int64(M[P_ROOTS + t])
        while a >= 0:
            a = _step(M, node0, x, a)
        total += M[-1 - a]
        t += 1
    return total


@nb.njit(cache=True)
def predict_rows(M, X):
    """``predict`` at each row of ``X`` (rows of features, float64): for analysis in Python."""
    out = np.empty(X.shape[0])
    for i in range(X.shape[0]):
        out[i] = predict(M, X[i])
    return out


def main(argv=None) -> int:
    """``python -m strategies.models FILE...``: each model file's header (checked), as JSON."""
    import sys

    paths = sys.argv[1:] if argv is None else argv
    if not paths:
        print("usage: python -m strategies.models FILE...  (prints each model file's header)", file=sys.stderr)
        return 2
    for p in paths:
        try:
            m = load(p)
        except ModelError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        print(json.dumps({"path": m.path, "digest": m.digest, **m.header}, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
