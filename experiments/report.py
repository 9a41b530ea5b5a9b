"""An experiment's report: computed from its runs as a JSON-ready dict, printed from that dict.

``build(DIR)`` reads the runs; ``format_text(report)`` renders any report dict (also one read
back from ``--json`` output or ``DIR/report.json``), so the text and the JSON never disagree.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from experiments.duplicate import RARELY
from experiments.execute import REPORT, ExperimentError, read_manifest, walls_held, write_json


def build(exp_dir, width: float | None = None, vs: str | None = None, limit: int | None = None) -> dict:
    """The report of an experiment directory; ``vs`` (duplicate only): the arm every arm is
    compared with, instead of the spec's baseline; ``limit`` (duplicate only): of its first
    ``limit`` walls only (``experiments.until`` plans from a pilot's walls so)."""
    exp_dir = Path(exp_dir)
    manifest = read_manifest(exp_dir)
    if vs is not None:
        from experiments.duplicate import reference_arm

        reference_arm(exp_dir, manifest, vs)    # a bad --vs is an error before anything is read
    if not manifest.get("complete"):
        unit = "walls" if manifest["spec"]["kind"] == "duplicate" else "hands per cell"
        plan = manifest.get("until_plan")
        if plan:
            from experiments.until import plan_text

            held = f"{plan_text(plan)}; {walls_held(exp_dir, manifest):,} of {int(manifest['hands']):,} {unit} played"
        else:
            held = f"{walls_held(exp_dir, manifest):,} of {int(manifest['hands']):,} {unit} played"
        raise ExperimentError(f"{exp_dir} is incomplete ({held}): rerun "
                              f"`{command_line(manifest, exp_dir, rerun=True)}` to finish it")
    if manifest["spec"]["kind"] == "duplicate":
        from experiments.duplicate import comparison

        rep = comparison(exp_dir, width=width, manifest=manifest, vs=vs, limit=limit)
    else:
        from experiments.cells import cells_report

        rep = cells_report(exp_dir, manifest=manifest)
    rep["directory"] = str(exp_dir)
    if manifest.get("until_plan"):
        from experiments.until import until_record

        rep["until"] = until_record(manifest["until_plan"], rep)
    elif manifest.get("until"):   # experiments before plans were kept
        rep["until"] = manifest["until"]
    rep["draw_order"] = manifest.get("draw_order", "table")   # experiments before draw orders drew in table order
    if manifest["spec"].get("rules_override"):
        rep["rules_override"] = manifest["spec"]["rules_override"]
    rep["command"] = command_line(manifest, exp_dir, vs=rep.get("reference"))
    rep["package_version"] = manifest.get("package_version")
    return rep


def command_line(manifest: dict, exp_dir, vs: str | None = None, rerun: bool = False) -> str:
    """The command that reproduces the experiment; ``rerun``: the one that finishes it in its
    directory (with a run that stops at a precision, its pilot and its precision options)."""
    spec = manifest["spec"]
    vs_opt = f" --vs {_shell_word(vs)}" if vs is not None and vs != spec.get("baseline") else ""
    src = spec.get("source", spec["name"])
    name = spec["name"] if src == f"experiments/{spec['name']}.toml" else src
    order = manifest.get("draw_order", "table")
    order_opt = f" --draw-order {order}" if order != spec.get("default_draw_order", "seat") else ""
    est = manifest.get("estimator")
    if est is not None and est != spec.get("default_estimator", "plain"):
        order_opt += f" --estimator {est}"
    hands = manifest["hands"]
    plan = manifest.get("until_plan") if rerun else None
    if plan:
        hands = plan["pilot"]
        if plan["rule"] == "width" and plan["width"] != spec.get("until_width"):
            order_opt += f" --until-width {plan['width']:g}"
        if plan.get("max_walls") is not None and plan["max_walls"] != spec.get("max_walls", spec.get("max_hands")):
            order_opt += f" --max-walls {plan['max_walls']}"
        if plan.get("max_minutes") is not None:
            order_opt += f" --max-minutes {plan['max_minutes']:g}"
    if spec.get("rules_override"):
        from experiments.execute import override_options

        order_opt += " " + override_options(spec["rules_override"])
    out_opt = f" --out {_shell_word(str(exp_dir))}"
    if spec.get("compare"):
        c = spec["compare"]
        rules = f" --rules {_shell_word(c['rules'])}" if c.get("rules") not in (None, "battle") else ""
        sets = "".join(f" --set {_shell_word(s)}" for s in c.get("sets", []))
        return (f"sichuan compare {_shell_word(c['a'])} {_shell_word(c['b'])}{rules}{sets} --hands {hands} "
                f"--seed {manifest['seed']}{order_opt}" + (out_opt if rerun else ""))
    return (f"sichuan experiment run {_shell_word(name)} --hands {hands} --seed {manifest['seed']}{order_opt}"
            f"{out_opt}{vs_opt}")


def _shell_word(text: str) -> str:
    import shlex

    return shlex.quote(text)


def save(exp_dir, report: dict) -> None:
    write_json(Path(exp_dir) / REPORT, report)


# -- text ------------------------------------------------------------------------------------

def _num(x, fmt="{:+.3f}") -> str:
    return "n/a" if x is None else fmt.format(x)


def _ci(lo, hi, fmt="{:+.3f}") -> str:
    if lo is None or hi is None:
        return "[n/a]"
    return "[" + fmt.format(lo) + ", " + fmt.format(hi) + "]"


def _mean_ci(x, lo, hi, n: int, fmt="{:+.3f}") -> str:
    """A mean with its 95% interval, or with its count where too few values make a normal
    interval meaningless (``analysis.MIN_NORMAL``)."""
    from simcore.runs.analysis import MIN_NORMAL

    if x is not None and n < MIN_NORMAL:
        return f"{fmt.format(x)} (n = {n})"
    return f"{_num(x, fmt)} {_ci(lo, hi, fmt)}"


def _rate_ci(x, lo, hi, style: str = "e", least: int = 2) -> str:
    """A rate and its 95% interval, shown down to the interval width's leading digit, so the
    bounds print differently (at a fixed precision a rate of 0.102 printed as
    ``1.02e-01 [1.0e-01, 1.0e-01]``). ``style`` is "e" (``least`` significant digits), "f"
    (``least`` decimals) or "%" (``least`` decimals of a percentage)."""
    if x is None:
        return "n/a " + _ci(lo, hi)
    if style == "f" and x and abs(x) < 10.0 ** -least:
        style, least = "e", 2   # fixed decimals would print a small nonzero figure as 0.0000
    place = None  # the decimal place of the width's leading digit
    if lo is not None and hi is not None and hi > lo:
        place = math.floor(math.log10(hi - lo))
    if style == "e":
        top = math.floor(math.log10(max(abs(v) for v in (x, lo, hi) if v is not None) or 1.0))
        fmt = "{:.%de}" % min(12, max(least, top - place + 1 if place is not None else least) - 1)
    elif style == "%":
        fmt = "{:.%d%%}" % min(12, max(least, -place - 2 if place is not None else least))
    else:
        fmt = "{:.%df}" % min(12, max(least, -place if place is not None else least))
    return f"{fmt.format(x)} {_ci(lo, hi, fmt)}"


def _table(header: list[str], rows: list[list[str]], right: set[int] | None = None) -> list[str]:
    right = right if right is not None else set(range(1, len(header)))
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    out = []
    for j, r in enumerate([header] + rows):
        cells = [str(c).rjust(w) if i in right else str(c).ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        out.append("  ".join(cells).rstrip())
        if j == 0:
            out.append("  ".join("-" * w for w in widths))
    return out


def format_text(rep: dict, full_names: bool = False) -> str:
    """The report as text, seats by their shortest specs (``strategies.names``; ``full_names``:
    the canonical specs the JSON keeps)."""
    if rep["kind"] == "duplicate":
        return _format_duplicate(rep, full_names)
    return _format_cells(rep, full_names)


def _seat_names(specs, full_names: bool) -> dict:
    from strategies.names import short_names

    return short_names([s for s in specs if s], full_names)


def _format_duplicate(rep: dict, full_names: bool = False) -> str:
    ref = rep.get("reference", rep["baseline"])     # reports written before --vs have no reference
    lines = [f"experiment {rep['name']} (duplicate): {rep['walls']:,} walls, each played by {rep['arms']} arms "
             f"in 4 rotations ({rep['hands_per_arm']:,} hands per arm; {rep['hands_played']:,} hands played, "
             "identical runs shared), seed " + str(rep["seed"]) + f", {rep.get('draw_order', 'table')} draw order"]
    if rep.get("description"):
        lines.append(rep["description"])
    lines += _override_lines(rep, [r["rules"] for r in rep["rows"]])
    name = _seat_names([rep["field"]] + [r["seat"] for r in rep["rows"]], full_names)
    if ref == rep["baseline"]:
        lines.append(f"field: {name[rep['field']]} at the other three seats; baseline: {rep['baseline']}")
    else:
        lines.append(f"field: {name[rep['field']]} at the other three seats; reference: {ref} (--vs; the spec's "
                     f"baseline is {rep['baseline']})")
    for sw in rep.get("sweeps", []):
        lines.append(f"sweep {sw['name']}: {sw['seat']} with {{}} = "
                     + ", ".join(_value(v) for v in sw["values"]) + f" (arms {', '.join(sw['arms'])})")
    lines.append("")
    luck = rep.get("estimator") == "luck"
    header = ["arm", "rules", "net/hand vs field [95% CI]",
              f"diff vs {ref} [95% CI, paired{', luck-corrected' if luck else ''}]"]
    header += ["plain diff [95% CI]", "var factor"] if luck else []
    header += ["unpaired +-", "var removed", f"walls for width {rep['width']:g}", f"hands for width {rep['width']:g}",
               "hands played", "walls differed"]
    rows = []
    for r in rep["rows"]:
        if r.get("reference", r["baseline"]):
            diff, unp, rem, walls, hands = "(baseline)" if ref == rep["baseline"] else "(reference)", "", "", "", ""
            plain = factor = ""
        else:
            diff = f"{_num(r['diff'])} {_ci(r['diff_low'], r['diff_high'])}"
            plain = f"{_num(r.get('diff_plain'))} {_ci(r.get('diff_plain_low'), r.get('diff_plain_high'))}"
            factor = _num(r.get("variance_factor"), "{:.2f}x")
            unp = _num(r["unpaired_half_width"], "{:.3f}")
            rem = _num(r["variance_removed"], "{:.1%}")
            walls = "n/a" if r["walls_needed"] is None else f"{r['walls_needed']:,}"
            hands = "n/a" if r["hands_needed"] is None else f"{r['hands_needed']:,}"
        rows.append([r["arm"], r["rules"], f"{_num(r['score'])} {_ci(r['score_low'], r['score_high'])}", diff]
                    + ([plain, factor] if luck else [])
                    + [unp, rem, walls, hands, f"{rep['hands_played']:,}", _differed(r)])
    lines += _table(header, rows, right=set(range(2, len(header))))
    cpu = rep["rows"][0] if rep["rows"] else {}
    if cpu.get("cpu_per_wall_luck") or cpu.get("cpu_per_wall_plain"):
        ms = lambda x: "n/a" if x is None else f"{1000 * x:.2f} ms"   # noqa: E731
        how = ("elapsed seconds x cores: an experiment from before CPU was measured"
               if cpu.get("cpu_measured") is False else "CPU time of its processes")
        lines.append(f"CPU per wall: {ms(cpu.get('cpu_per_wall_luck'))} with luck measured, "
                     f"{ms(cpu.get('cpu_per_wall_plain'))} plain ({how})")
    if rep.get("until"):
        u = rep["until"]
        reached = [a for a, ok in u["reached"].items() if ok]
        missed = [a for a, ok in u["reached"].items() if not ok]
        lines.append(f"until width {u['width']:g}: a pilot of {u['pilot_walls']:,} walls planned {u['planned_walls']:,}"
                     + _capped_text(u, "--max-walls", u.get("max_walls"))
                     + f"; {len(reached)} of {len(u['reached'])} arms reached it"
                     + (f" (not: {', '.join(missed)})" if missed else "") + _forecast_text(u))
    for r in rep["rows"]:
        share = r.get("walls_differed_share")
        if r["seat"] != rep["field"] and share is not None and share < RARELY:
            lines.append(f"warning: arm {r['arm']} answered differently from the field on {r['walls_differed']:,} of "
                         f"{rep['walls']:,} walls ({share:.2%}): this parameter rarely changes play")
    lines.append("")
    lines.append("seat specs: " + "; ".join(f"{r['arm']} = {name[r['seat']]}" for r in rep["rows"]))
    lines.append("'unpaired +-' is the 95% half-width the same hands would give without pairing (independent walls).")
    lines.append("'walls differed': walls on which some rotation of the arm answered a question differently from the "
                 "field (the arm plays its own hand only there; n/a: its tables were played in full).")
    lines += ["- " + d for d in rep["definitions"]]
    lines.append(f"reproduce: {rep['command']}")
    return "\n".join(lines)


def _override_lines(rep: dict, labels: list) -> list[str]:
    """The line that says an experiment was played under other rules than its spec's
    (``experiment run --rules/--set``), and which."""
    given = rep.get("rules_override")
    if not given:
        return []
    from experiments.execute import override_options

    labels = ", ".join(x for x in dict.fromkeys(labels) if x)
    if not given.get("rules"):
        return [f"rules: {labels} (the spec's, with {override_options(given)})"]
    where = f", in place of the spec's {given['spec_rules']}" if given.get("spec_rules") else ""
    return [f"rules: {labels} ({override_options(given)}{where})"]


def _capped_text(u: dict, option: str, cap) -> str:
    """What capped a run that stopped at a precision, if anything (records before --max-minutes
    say only whether the cap on walls did)."""
    if not u.get("capped"):
        return ""
    if u.get("capped_by") == "max_minutes":
        return f" (capped by --max-minutes {u['max_minutes']:g})"
    return f" (capped by {option} {cap:,})" if cap is not None else " (capped)"


def _forecast_text(u: dict) -> str:
    from experiments.until import duration

    if not u.get("forecast_seconds"):    # none recorded, or no second stage
        return ""
    return f"; its second stage was forecast at {duration(u['forecast_seconds'])}"


def _differed(r: dict) -> str:
    """Walls on which the arm's answers differed from the field's, with their share."""
    n = r.get("walls_differed")
    if n is None:
        return "n/a"
    return f"{n:,} ({r['walls_differed_share']:.1%})"


def _value(v) -> str:
    """A swept value as the spec gave it (and as it went into the seat spec)."""
    from experiments.spec import value_text

    return value_text(v)


def _labels(c: dict) -> str:
    return c["cell"]


def _format_cells(rep: dict, full_names: bool = False) -> str:
    lines = [f"experiment {rep['name']} (cells): {len(rep['cells'])} cells, {rep['hands_played']:,} hands played, "
             f"seed {rep['seed']}, {rep.get('draw_order', 'table')} draw order"]
    if rep.get("description"):
        lines.append(rep["description"])
    lines += _override_lines(rep, [c.get("rules", "") for c in rep["cells"]])
    cells = rep["cells"]
    show = rep["show"]
    name = _seat_names([s for c in cells for s in c["seats"]], full_names)
    seats = sorted({",".join(name[s] for s in dict.fromkeys(c["seats"])) for c in cells})
    if len(seats) == 1:
        lines.append(f"seats: {seats[0]} at all four seats")
    if "pigs" in show:
        lines += ["", "flower pigs (per seat-hand; Wilson 95%)"]
        header = ["cell", "hands", "pigs", "rate [95% CI]", "per checked seat-hand", "pig's net [95% CI]",
                  "cost per seat-hand [95% CI]"]
        rows = []
        for c in cells:
            p = c["pigs"]
            rows.append([_labels(c), f"{c['hands']:,}", f"{p['pigs']:,}",
                         _rate_ci(p["rate"], p["rate_low"], p["rate_high"]),
                         _rate_ci(p["rate_checked"], p["rate_checked_low"], p["rate_checked_high"]),
                         _mean_ci(p["pig_net"], p["pig_net_low"], p["pig_net_high"], p["pigs"], "{:+.1f}"),
                         _rate_ci(p["cost_per_seat_hand"], p["cost_low"], p["cost_high"], "f", 4)])
        lines += _table(header, rows)
        u = rep.get("until")
        if u:
            missed = [c for c, ok in u["reached"].items() if not ok]
            lines.append(f"until every pig rate is within {u['relative']:.0%}: a pilot of --hands {u['pilot_hands']:,} "
                         f"planned {u['planned_hands']:,}" + _capped_text(u, "the maximum", u.get("max_hands"))
                         + f"; {len(u['reached']) - len(missed)} of {len(u['reached'])} cells got there"
                         + (f" (not: {', '.join(missed)})" if missed else "") + _forecast_text(u))
    if "spread" in show:
        lines += ["", "net per seat-hand (points)"]
        header = ["cell", "hands", "mean", "SD [95% CI]", "mean |net|", "1%", "5%", "50%", "95%", "99%", "min", "max"]
        rows = []
        for c in cells:
            s = c["spread"]
            rows.append([_labels(c), f"{c['hands']:,}", _num(s["mean"]),
                         f"{_num(s['sd'], '{:.2f}')} {_ci(s['sd_low'], s['sd_high'], '{:.2f}')}",
                         _num(s["mean_abs"], "{:.2f}")] + [_num(s[k], "{:g}") for k in ("q01", "q05", "q50", "q95", "q99", "min", "max")])
        lines += _table(header, rows)
    if "matches" in show:
        thr = rep["loss_threshold"]
        lines += ["", f"a seat's total per match (match mode) or per block of {cells[0]['matches']['hands_per_match']} "
                      "independent hands (hands mode)"]
        header = ["cell", "matches", "SD [95% CI]", "1%", "5%", "50%", "95%", "99%",
                  f"P(total <= -{thr}) [95% CI]"]
        rows = []
        for c in cells:
            m = c["matches"]
            rows.append([_labels(c) + ("" if m["kind"] == "matches" else " (blocks)"), f"{m['matches']:,}",
                         f"{_num(m['sd'], '{:.2f}')} {_ci(m['sd_low'], m['sd_high'], '{:.2f}')}"]
                        + [_num(m[k], "{:g}") for k in ("q01", "q05", "q50", "q95", "q99")]
                        + [_rate_ci(m["loss_rate"], m["loss_low"], m["loss_high"], "f", 4)])
        lines += _table(header, rows)
    if "reasons" in show:
        lines += ["", "share of all points paid, by reason [95% CI]; points moved per hand"]
        reasons = [r for r in cells[0]["reasons"]["reasons"] if any(c["reasons"]["reasons"][r]["payments"] for c in cells)]
        header = ["cell", "points/hand"] + reasons
        rows = []
        for c in cells:
            rr = c["reasons"]["reasons"]
            rows.append([_labels(c), _num(c["reasons"]["points_per_hand"], "{:.2f}")]
                        + [_rate_ci(rr[r]["share"], rr[r]["share_low"], rr[r]["share_high"], "%", 1) for r in reasons])
        lines += _table(header, rows)
    if "patterns" in show:
        lines += _format_patterns(cells)
    if "ends" in show:
        lines += ["", "how hands end; points moved per hand, net (half the sum of |net| over the four seats)"]
        header = ["cell", "hands", "wall exhausted [95% CI]", "net points moved/hand [95% CI]", "SD"]
        rows = []
        for c in cells:
            e = c["ends"]
            rows.append([_labels(c), f"{c['hands']:,}", _rate_ci(e["rate"], e["rate_low"], e["rate_high"], "%", 1),
                         _rate_ci(e["net_moved"], e["net_moved_low"], e["net_moved_high"], "f", 2),
                         _num(e["net_moved_sd"], "{:.2f}")])
        lines += _table(header, rows)
    lines.append("")
    lines += [f"- {k}: {v}" for k, v in rep["definitions"].items()]
    lines.append(f"reproduce: {rep['command']}")
    return "\n".join(lines)


def _format_patterns(cells: list[dict]) -> list[str]:
    """Wins per cell, then one row per (pattern, cell) for the patterns that score in any cell."""
    lines = ["", "wins (every win, all seats)"]
    header = ["cell", "wins", "wins/hand", "mean base [95% CI]"]
    rows = [[_labels(c), f"{c['patterns']['wins']:,}", _num(c["patterns"]["wins_per_hand"], "{:.3f}"),
             _rate_ci(c["patterns"]["base"], c["patterns"]["base_low"], c["patterns"]["base_high"], "f", 2)]
            for c in cells]
    lines += _table(header, rows)
    lines += ["", "fan patterns: share of wins in which each scores (Wilson 95%) and the mean base of those wins"]
    names = [p for p in cells[0]["patterns"]["patterns"] if any(c["patterns"]["patterns"][p]["wins"] for c in cells)]
    header = ["pattern", "cell", "wins", "share of wins [95% CI]", "mean base [95% CI]"]
    rows = []
    for p in names:
        for c in cells:
            x = c["patterns"]["patterns"][p]
            rows.append([p, _labels(c), f"{x['wins']:,}", _rate_ci(x["share"], x["share_low"], x["share_high"], "%", 1),
                         _rate_ci(x["base"], x["base_low"], x["base_high"], "f", 2) if x["wins"] else "-"])
    lines += _table(header, rows, right={2, 3, 4})
    return lines


def dumps(rep: dict) -> str:
    return json.dumps(rep, indent=2, allow_nan=False)
