"""Training the learned players (``sichuan learn``): from decision datasets whose recorded seat
searched (``sichuan dataset --seats "search,expert,expert,expert" --record 0``: each judged
decision keeps its candidates, their values and the seat's view) to a model file
(``strategies.models``).

Each judged decision of play (a turn, a claim, a robbing) gives one training row per candidate
other than expert's own answer (the search's first): the candidate's features
(``strategies.features``, computed from the kept view with expert's parameters in its play slots and
its scratch cleared, as a ``learned`` seat sees it) and, as the target, its judged value less that of
expert's answer on the same rollout tables (paired). A tree ensemble
(scikit-learn's ``HistGradientBoostingRegressor``) learns the advantage; a ``learned`` seat plays
the best candidate when its predicted advantage exceeds the model's margin, else expert's answer.

A dataset whose search rolled out another policy (``search[policy=learned]``: a round of expert
iteration) judged its candidates against that policy's answer; its decisions are re-based on
expert's (``_rebased_seats``).

Hands are split by index (``hand % 10``: 0 test, 1 validation, the rest training): the margin is
chosen on the validation hands (unless given: ``--margin``; the labels' scale is not the table's,
and the shipped play models take the margin duplicate play chose, README: Learned players), and
the metrics written into the model file are the test hands': the mean judged advantage of the
answers the model would change, per decision (an unbiased estimate of what it gains a decision
against expert, by the labels, since a choice never sees its row's value), with its 95% interval,
and how often it changes expert's answer.
"""

from __future__ import annotations

import json
import math
import shlex
import sys
from pathlib import Path

import click
import numpy as np

QUESTIONS_OF_PLAY = ("turn", "claim", "rob")
# the question a model answers (``strategies.models.DECISIONS``) -> the dataset questions it learns from
QUESTIONS = {"play": QUESTIONS_OF_PLAY, "exchange": ("exchange",), "void": ("void",)}
MARGINS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0)
# the model's size and where it is consulted: a prediction walks every tree, so the trees set the
# learned seat's speed (README: Learned players, what the sizes cost and gain)
MAX_ITER, LEAVES, LEARNING_RATE = 150, 31, 0.15
# (trees, leaves) by question: an exchange or void decision comes once a hand, with far fewer rows
SIZES = {"play": (MAX_ITER, LEAVES), "exchange": (60, 15), "void": (60, 15)}
MAX_SHANTEN = 0   # search's gain over expert at decisions one or more from ready hardly shows in the labels


class LearnError(ValueError):
    """A training that cannot go on: one line that says why."""


def _expert_params() -> np.ndarray:
    """expert's parameters at their defaults (play, exchange, void), as a view's three parameter
    groups hold them."""
    from simcore.contract.view import N_PARAMS
    from strategies.registry import parse_seats, seat_functions

    return np.asarray(seat_functions(parse_seats("expert")).setup)[:3 * N_PARAMS].copy()


def feature_layout(decision: str):
    """(feature function, version, names) of the features a model of ``decision`` reads."""
    if decision == "exchange":
        from strategies.deal_features import EXCHANGE_FEATURE_VERSION, EXCHANGE_NAMES, exchange_features
        return exchange_features, EXCHANGE_FEATURE_VERSION, EXCHANGE_NAMES
    if decision == "void":
        from strategies.deal_features import VOID_FEATURE_VERSION, VOID_NAMES, void_features
        return void_features, VOID_FEATURE_VERSION, VOID_NAMES
    from strategies.features import FEATURE_VERSION, NAMES, view_features
    return view_features, FEATURE_VERSION, NAMES


def _rebased_seats(manifest) -> set:
    """The seats of a dataset whose search rolled out another policy than expert
    (``search[policy=learned]``: an expert iteration round). Their candidates are judged against
    that policy's answer, while a learned seat's features and targets are relative to expert's:
    their decisions are re-based on expert's answer, computed again from the kept view (the
    scratch cleared: it matches the answer at the table at about 99% of decisions), and a
    decision whose candidates lack it is left out."""
    import re

    seats = manifest.get("config", {}).get("seats") or []
    out = set()
    for i, spec in enumerate(seats):
        play = str(spec).split("+", 1)[0]
        m = re.search(r"policy=([A-Za-z_]+)", play)
        if play.startswith("search") and m and m.group(1) != "expert":
            out.add(i)
    return out


def _manifest(directory: Path) -> dict:
    """A dataset directory's manifest, or a one-line refusal."""
    from simcore.env.dataset import MANIFEST

    try:
        return json.loads((Path(directory) / MANIFEST).read_text())
    except (OSError, ValueError):
        raise LearnError(f"{directory} holds no readable {MANIFEST}: not a dataset directory") from None


def _rules_of(manifest: dict) -> tuple:
    """(preset name, variant or None) of the rules a dataset was played under (its manifest records
    the preset and its options; an older one the preset's name only)."""
    rules = manifest["config"].get("rules")
    return (rules.get("preset"), rules.get("variant")) if isinstance(rules, dict) else (rules, None)


def decision_rows(directory, log=None, decision: str = "play", details: bool = False):
    """(features, advantages, hands, decision ids, preset) of every judged decision of
    ``decision``'s questions in a dataset directory, read a part at a time. With ``details``, a
    sixth and a seventh item: for each decision, whether the recorded seat's answer was another than
    expert's (the search left it), and the seat."""
    import pyarrow.parquet as pq

    from simcore.contract.actions import answer_of
    from simcore.contract.tables import load_tables
    from simcore.contract.view import N_PARAMS, N_SCRATCH, Q_EXCHANGE, V_PARAMS, V_QUESTION, V_SCRATCH, V_TILE, \
        upgrade_view
    from simcore.env.dataset import DatasetError
    from strategies.expert import expert

    features_of, _, _ = feature_layout(decision)
    questions = QUESTIONS[decision]

    directory = Path(directory)
    manifest = _manifest(directory)
    parts = sorted(directory.glob("part-*.parquet"))
    if not parts:
        raise LearnError(f"{directory} holds no complete chunk yet")
    preset = _rules_of(manifest)[0]
    version = int(manifest.get("contract_version", 1))
    rebase = _rebased_seats(manifest) if decision == "play" else set()
    tab = load_tables()
    params = _expert_params()
    xs, ys, hands, ids, left, seats = [], [], [], [], [], []
    n_dec = skipped = 0
    for part in parts:
        t = pq.read_table(part, columns=["hand", "seat", "question", "action", "candidates", "candidate_values",
                                         "view"])
        if "view" not in t.column_names:
            raise DatasetError(f"{directory} was written before datasets kept views; record it again")
        d = t.to_pydict()
        for h, seat, q, act, cands, vals, raw in zip(d["hand"], d["seat"], d["question"], d["action"],
                                                     d["candidates"], d["candidate_values"], d["view"]):
            if cands is None or raw is None or q not in questions or len(cands) < 2:
                continue
            view = upgrade_view(np.frombuffer(raw, "<i8"), version)   # a dataset of an older layout reads too
            view[V_PARAMS:V_PARAMS + 3 * N_PARAMS] = params
            view[V_SCRATCH:V_SCRATCH + N_SCRATCH] = 0
            qn = view[V_QUESTION]
            answers = np.array([a if qn == Q_EXCHANGE else answer_of(qn, np.int64(a), view[V_TILE]) for a in cands],
                               np.int64)   # an exchange's candidates are its packed picks
            k = 0   # the search's first candidate is its policy's answer: expert's, unless re-based
            if seat in rebase:
                own = expert(np.int64(qn), view.copy(), tab)
                hit = np.flatnonzero(answers == own)
                if len(hit) == 0:
                    skipped += 1
                    continue
                k = int(hit[0])
            f = features_of(tab, view, answers, answers[k])
            v = np.asarray(vals, np.float64)
            others = np.arange(len(cands)) != k
            xs.append(f[others])
            ys.append(v[others] - v[k])
            hands.append(np.full(len(cands) - 1, h, np.int64))
            ids.append(np.full(len(cands) - 1, n_dec, np.int64))
            left.append(act != cands[k])
            seats.append(seat)
            n_dec += 1
        if log:
            log(f"{directory.name}: {part.name}, {n_dec:,} decisions" +
                (f" ({skipped:,} skipped: expert's answer not among the candidates)" if skipped else ""))
    if not xs:
        seat = {"play": "search", "exchange": "expert+exchange=search", "void": "expert+void=search"}[decision]
        raise LearnError(f"{directory} holds no judged {decision} decision (record a searching seat: "
                         f"sichuan dataset --seats \"{seat},expert,expert,expert\" --record 0)")
    rows = np.concatenate(xs), np.concatenate(ys), np.concatenate(hands), np.concatenate(ids), preset
    return (*rows, np.array(left, bool), np.array(seats, np.int64)) if details else rows


def _picks(pred, ids):
    """Each decision's row of highest prediction (decisions in ``ids`` order)."""
    order = np.lexsort((-pred, ids))
    first = np.ones(len(order), bool)
    first[1:] = ids[order][1:] != ids[order][:-1]
    return order[first]


def _gain(pred, y, ids, margin):
    """Per decision: the judged advantage of the candidate the model plays (0 where it keeps
    expert's answer), with ``margin``."""
    best = _picks(pred, ids)
    dec = np.unique(ids)
    gain = np.where(pred[best] > margin, y[best], 0.0)
    changed = pred[best] > margin
    return gain, changed, len(dec)


def train(datasets, out, max_iter: int | None = None, leaves: int | None = None, log=None, command: str | None = None,
          max_shanten: int = MAX_SHANTEN, decision: str = "play", margin: float | None = None) -> dict:
    """Train a model of ``decision``'s question (play, exchange or void) on the datasets and write
    it to ``out``; returns its header. ``max_shanten`` (play only): the model learns, and is
    consulted at, only decisions whose hand is at most this far from ready (``models``: the
    header's ``max_shanten``); elsewhere it keeps expert's answer. ``max_iter`` and ``leaves``:
    the question's defaults (``SIZES``) where None. ``margin``: the model's margin, chosen on the
    validation hands (``MARGINS``) where None."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    from strategies.features import scored
    from strategies.models import NO_GATE, from_sklearn, save

    _, feature_version, names = feature_layout(decision)
    max_iter = max_iter or SIZES[decision][0]
    leaves = leaves or SIZES[decision][1]
    if decision != "play":
        max_shanten = NO_GATE   # an exchange or void model is consulted at every such question
    parts = [decision_rows(d, log, decision) for d in datasets]
    presets = {p[4] for p in parts}
    if len(presets) != 1:
        raise LearnError(f"the datasets were played under different rules ({', '.join(sorted(map(str, presets)))}); "
                         "a model is trained for one rule set")
    x = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    hands = np.concatenate([p[2] for p in parts])
    ids = np.concatenate([p[3] + 10_000_000 * k for k, p in enumerate(parts)])
    fold = hands % 10
    near = scored(x, max_shanten) if decision == "play" else np.ones(len(x), bool)   # the rows a seat scores
    tr, va, te = (fold >= 2) & near, fold == 1, fold == 0
    if tr.sum() < 50 or va.sum() == 0 or te.sum() == 0:
        raise LearnError(f"too few judged decisions to train and test on ({len(np.unique(ids)):,}); record more hands")
    est = HistGradientBoostingRegressor(max_iter=max_iter, max_leaf_nodes=leaves, learning_rate=LEARNING_RATE,
                                        l2_regularization=1.0, min_samples_leaf=100, random_state=0)
    est.fit(x[tr], y[tr])

    def predicted(rows):   # a candidate the seat does not score is never played
        return np.where(near[rows], est.predict(x[rows]), -np.inf)

    pv = predicted(va)
    given = margin is not None
    if given and not math.isfinite(margin):
        raise LearnError(f"--margin {margin} is not a finite number of points")
    if not given:
        margin = max(MARGINS, key=lambda m: _gain(pv, y[va], ids[va], m)[0].mean())
    pt = predicted(te)
    gain, changed, n_dec = _gain(pt, y[te], ids[te], margin)
    se = gain.std(ddof=1) / math.sqrt(max(len(gain), 1)) if len(gain) > 1 else float("nan")
    tn = te & near
    r2 = 1.0 - ((est.predict(x[tn]) - y[tn]) ** 2).mean() / max(y[tn].var(), 1e-12)
    baseline, arrays = from_sklearn(est)
    header = {
        "kind": "gbdt", "decision": decision, "feature_version": feature_version, "n_features": len(names),
        "features": list(names),
        "preset": next(iter(presets)), "baseline": baseline, "margin": margin,
        **({"margin_given": True} if given else {}), "max_shanten": int(max_shanten),
        "training": {"datasets": [str(d) for d in datasets], "rows": int(tr.sum()), "command": command,
                     "trees": int(est.n_iter_), "leaves": leaves,
                     "learning_rate": LEARNING_RATE},
        "metrics": {"test_decisions": int(n_dec), "test_rows": int(te.sum()), "r2": round(float(r2), 4),
                    "gain_per_decision": round(float(gain.mean()), 4),
                    "gain_ci95": [round(float(gain.mean() - 1.96 * se), 4), round(float(gain.mean() + 1.96 * se), 4)],
                    "changed_share": round(float(changed.mean()), 4)},
    }
    save(out, header, arrays)
    return header


def _variant_of_dataset(directory) -> str:
    """The blood ("battle" or "flow") a dataset was played under, from its manifest's rules."""
    from simcore.contract.rules import RuleError, preset as preset_rules

    name, variant = _rules_of(_manifest(directory))
    if variant:
        return str(variant)
    try:
        return preset_rules(name).variant
    except (RuleError, KeyError, TypeError):
        raise LearnError(f"{directory} was played under rules this version does not know ({name!r})") from None


def judge(model_path, datasets, log=None, margin: float | None = None) -> dict:
    """A play model's choices at the judged decisions of searched datasets it was not trained on
    (README: Learned players, where it stands against search): by question, the decisions it
    consults (within its ``max_shanten``, a candidate it scores), how often it leaves expert's
    answer and how often the search did, and the judged advantage of its changes a seat-hand
    (each change's value less expert's answer's on the same rollout tables: unbiased, since
    the model never saw the row), with its 95% interval over the seat-hands with a judged decision.
    ``margin``: the model's own where None. Give it hands it never trained on: nothing here can
    tell."""
    from strategies.features import DECISION_INDEX, FEATURE_VERSION, scored
    from strategies.models import check_variant, load, predict_rows

    model = load(model_path, feature_version=FEATURE_VERSION, decision="play")   # a bad file fails first
    for d in datasets:
        check_variant(model, _variant_of_dataset(d))
    parts = [decision_rows(d, log, "play", details=True) for d in datasets]
    presets = {p[4] for p in parts}
    if len(presets) != 1:
        raise LearnError(f"the datasets were played under different rules ({', '.join(sorted(map(str, presets)))})")
    margin = float(model.header["margin"]) if margin is None else margin
    x = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    offsets = np.cumsum([0] + [len(p[5]) for p in parts])
    ids = np.concatenate([p[3] + o for p, o in zip(parts, offsets)])
    left = np.concatenate([p[5] for p in parts])
    # a seat-hand: (dataset, hand, seat), one key a decision
    hand_of = np.zeros(len(left), np.int64)
    hand_of[ids] = np.concatenate([p[2] for p in parts])
    key = np.concatenate([(k * (1 << 40)) + hand_of[o:o + len(p[5])] * 4 + p[6]
                          for k, (p, o) in enumerate(zip(parts, offsets))])
    seat_hand = np.unique(key, return_inverse=True)[1]
    n_seat_hands = int(seat_hand.max()) + 1
    near = scored(x, int(model.header.get("max_shanten", 8)))
    pred = np.full(len(x), -np.inf)
    pred[near] = predict_rows(model.packed, np.ascontiguousarray(x[near]))
    gain, changed, _ = _gain(pred, y, ids, margin)
    best = _picks(pred, ids)                        # decision i's pick is best[i]: ids run 0..n-1
    consulted = np.isfinite(pred[best])
    question = x[best, DECISION_INDEX["question"]]
    out = {"model": str(model_path), "preset": next(iter(presets)), "margin": margin, "seat_hands": n_seat_hands,
           "decisions": int(len(best)), "questions": {}}
    for name, code in (("turn", 0), ("claim", 1), ("rob", 2), ("all", None)):
        q = consulted if code is None else consulted & (question == code)
        per = np.bincount(seat_hand, weights=np.where(q, gain, 0.0), minlength=n_seat_hands)
        half = 1.96 * per.std(ddof=1) / math.sqrt(n_seat_hands) if n_seat_hands > 1 else float("nan")
        out["questions"][name] = {
            "judged": int((question == code).sum()) if code is not None else int(len(best)),
            "consulted": int(q.sum()),
            "model_changes": float(changed[q].mean()) if q.any() else 0.0,
            "search_left_expert": float(left[q].mean()) if q.any() else 0.0,
            "gain_per_seat_hand": float(per.mean()), "gain_ci95": [float(per.mean() - half), float(per.mean() + half)]}
    return out


@click.command("learn", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("datasets", nargs=-1, required=True, metavar="DATASET...")
@click.option("--out", "out", metavar="FILE", help="The model file to write (.npz); required unless --judge.")
@click.option("--decision", type=click.Choice(list(QUESTIONS)), default="play", show_default=True,
              help="The question the model answers: play (a learned seat), exchange (exchange=learned) or "
                   "void (void=learned).")
@click.option("--max-iter", type=click.IntRange(min=1), default=None,
              help=f"Trees at most (each prediction walks them all: fewer plays faster) [default: {MAX_ITER} for "
                   f"play, {SIZES['exchange'][0]} for exchange and void].")
@click.option("--leaves", type=click.IntRange(min=2), default=None,
              help=f"Leaves a tree at most [default: {LEAVES} for play, {SIZES['exchange'][1]} for exchange and void].")
@click.option("--max-shanten", type=click.IntRange(-1, 8), default=MAX_SHANTEN, show_default=True,
              help="Play: learn and consult the model only at decisions at most this far from ready (8: everywhere).")
@click.option("--margin", type=float, default=None,
              help="The model's margin: a seat plays the best candidate when its predicted advantage over expert's "
                   "answer exceeds it (negative: even when predicted a little worse) [default: the margin of "
                   f"{', '.join(map(str, MARGINS))} that gains most on the validation hands' labels].")
@click.option("--judge", "judged", metavar="MODEL", default=None,
              help="Train nothing: judge the play model MODEL at the DATASETs' searched decisions (give it hands it "
                   "never trained on): by question, how often it leaves expert's answer against the search, and "
                   "what its changes gain a seat-hand (with --margin: at that margin instead of the file's).")
@click.option("--json", "as_json", is_flag=True, help="With --judge: print the figures as JSON.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
@click.pass_context
def learn(ctx, datasets, out, decision, max_iter, leaves, max_shanten, margin, judged, as_json, quiet):
    """Train a learned player's model from search-labelled decision datasets.

    Each DATASET is a `sichuan dataset` directory whose recorded seat searched (its judged
    decisions keep their candidates, values and views). The model learns each candidate's
    advantage over the expert's answer from features of the expert's own machinery; the file
    (README: Learned players) holds the trees, the margin (chosen on validation hands, or --margin)
    and the test hands' metrics. Seat it with `--seats "learned[model=FILE]"` (play), or as
    `+exchange=learned[model=FILE]` / `+void=learned[model=FILE]`.

    \b
    Examples:
        sichuan dataset --seats "search,expert,expert,expert" --record 0 --hands 2000 --out runs/ds
        sichuan learn runs/ds --out runs/battle.npz
        sichuan dataset --seats "expert+exchange=search+void=search,expert,expert,expert" --record 0 \\
            --hands 2000 --out runs/xv
        sichuan learn runs/xv --decision exchange --out runs/battle-exchange.npz
        sichuan dataset --seats "search,expert,expert,expert" --record 0 --hands 2000 --seed 103 --out runs/held
        sichuan learn runs/held --judge strategies/models/battle.npz
    """
    from simcore.env.dataset import DatasetError
    from strategies.models import ModelError

    log = None if quiet else (lambda m: print(m, file=sys.stderr, flush=True))
    if judged is not None:
        given = [f"--{n.replace('_', '-')}" for n in ("out", "decision", "max_iter", "leaves", "max_shanten")
                 if ctx.get_parameter_source(n) is not click.core.ParameterSource.DEFAULT]
        if given:
            raise click.UsageError(f"--judge trains nothing: it takes no {', '.join(given)} (it judges a play model "
                                   "as its file says)")
        if margin is not None and not math.isfinite(margin):
            raise click.UsageError(f"--margin {margin} is not a finite number of points")
        try:
            rep = judge(judged, list(datasets), log, margin)
        except (LearnError, DatasetError, ModelError) as exc:
            raise click.ClickException(str(exc).splitlines()[0]) from None
        click.echo(json.dumps(rep, indent=2) if as_json else _judged_table(rep))
        return
    if out is None:
        raise click.UsageError("Missing option '--out' (the model file to write).")
    if as_json:
        raise click.UsageError("--json goes with --judge (a training prints one line)")
    # the command recorded is what makes the model: without the progress switch, so a model trained by
    # hand with -q is the same file as ``make models``' (a round's dataset records the models' digests)
    command = shlex.join(["sichuan", "learn", *(a for a in sys.argv[2:] if a not in ("-q", "--quiet"))])
    try:
        header = train(list(datasets), out, max_iter, leaves, log, command, max_shanten, decision, margin)
    except (LearnError, DatasetError, ModelError) as exc:
        raise click.ClickException(str(exc).splitlines()[0]) from None
    m = header["metrics"]
    click.echo(f"{out}: {header['training']['trees']} trees on {header['training']['rows']:,} rows "
               f"({header['preset']}); test: {m['test_decisions']:,} decisions, gain "
               f"{m['gain_per_decision']:+.4f} a decision [{m['gain_ci95'][0]:+.4f}, {m['gain_ci95'][1]:+.4f}], "
               f"changes expert's answer at {m['changed_share']:.1%}, margin {header['margin']}")


def _judged_table(rep: dict) -> str:
    """``judge``'s figures as a table."""
    lines = [f"{rep['model']} (margin {rep['margin']:g}) at {rep['decisions']:,} searched decisions of play, "
             f"{rep['seat_hands']:,} seat-hands with one ({rep['preset']})",
             f"{'question':9s} {'judged':>8s} {'consulted':>10s} {'model changes':>14s} {'search left':>12s}   "
             "judged gain of its changes a seat-hand (95%)"]
    for name, r in rep["questions"].items():
        lo, hi = r["gain_ci95"]
        lines.append(f"{name:9s} {r['judged']:8,d} {r['consulted']:10,d} {r['model_changes']:14.1%} "
                     f"{r['search_left_expert']:12.1%}   {r['gain_per_seat_hand']:+.3f} [{lo:+.3f}, {hi:+.3f}]")
    lines.append("(changes and search's leaving expert's answer: shares of the decisions the model consults)")
    return "\n".join(lines)
