"""The hand viewer in a real browser: headless Debian Chromium driven by Selenium through
/usr/bin/chromedriver (`make test` installs both: scripts/ensure-chromium). Never skipped.

At every event of three hands (blood flow with several wins, a robbed kong, a drawn hand with a
flower pig) the table the page draws (each seat's tiles by kind, sets, discards, score and net,
dealer, wall, the event as that view saw it) must equal the replayer's, in the whole-table view
and in every seat's view; the keys, the
slider, the event list, the hand selector and the seat-view switch must work; the page must be
offline, small, and the command line and Python entry points must write it."""

from __future__ import annotations

import json
import math
import re
from collections import Counter

import pytest
from click.testing import CliRunner
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

import simcore
from simcore.cli import main as cli
from simcore.inspection.replayer import event_seen, replay_events, seat_view, settlement
from simcore.inspection.page import (MAX_HAND_BYTES, MAX_HANDS, HandViewer, decision_event, event_text, hand_bytes, page,
                                    review_payload)
from tests.support.viewer_hands import showcase, traced

pytestmark = pytest.mark.slow  # every test here takes seconds (see conftest.py)

CHROMEDRIVER = "/usr/bin/chromedriver"

# Reads what the page draws, from its DOM (each drawn tile carries data-tile; "?" is a tile's back).
EXTRACT = """
function extract() {
  const tiles = (root, sel) => [...root.querySelectorAll(sel)].map((t) => t.dataset.tile);
  const seats = {};
  for (const el of document.querySelectorAll('#table .seat')) {
    seats[el.dataset.seat] = {
      hand: tiles(el, '.hand .tile'),
      melds: [...el.querySelectorAll('.melds .meld')].map((m) => [m.dataset.kind, m.dataset.tile]),
      discards: [...el.querySelectorAll('.discards .tile')].map((t) => [t.dataset.tile, t.dataset.claim || null]),
      score: +el.querySelector('.score-value').textContent,
      net: parseInt(el.querySelector('.net').textContent, 10),
      void: el.dataset.void || null,
      wins: +el.dataset.wins,
      won_on: tiles(el, '.aside .tile'),
      locked: el.dataset.locked === '1',
      waits: tiles(el, '.waits .tile'),
      passed: tiles(el, '.passed .tile'),
      dealer: !!el.querySelector('.badge.dealer'),
    };
  }
  const cur = document.querySelector('#events li.current');
  const unseen = cur.classList.contains('unseen');
  return {step: +document.body.dataset.step, left: +document.getElementById('wall-left').textContent,
          current: cur ? +cur.dataset.i : null, seats,
          now: unseen ? null : tiles(document, '#now .tile'), listed: unseen ? null : tiles(cur, '.tile')};
}
"""
WALK = EXTRACT + """
const n = window.handViewer.length, out = [];
document.getElementById('first').click();
for (let i = 0; i < n; i++) { out.push(extract()); document.getElementById('next').click(); }
return out;
"""


TILE_IN_TEXT = re.compile(r"\{(\d[mps]|\?)\}")


def expected(table, view):
    """What the page must draw for a replayer table, as EXTRACT reads it."""
    t = seat_view(table, view) if view is not None else table
    text = event_text(event_seen(table.event, view, table.direction))
    now = None if text is None else TILE_IN_TEXT.findall(text)
    out = {}
    for s in t.seats:
        out[str(s.seat)] = {
            "hand": Counter(s.tiles),
            "melds": [[m.kind, m.tile or "?"] for m in s.melds],
            "discards": [[d.tile, d.claim] for d in s.discards],
            "score": s.score, "net": s.net, "void": s.void, "wins": len(s.wins),
            "won_on": [w["tile"] for w in s.wins],
            "locked": s.locked, "waits": list(s.waits) if s.locked else [],
            "passed": list(s.passed), "dealer": s.seat == t.dealer,
        }
    return {"step": t.index, "left": t.wall_left, "current": t.index, "seats": out, "now": now, "listed": now}


def drawn(page_state):
    out = dict(page_state)
    out["seats"] = {k: dict(v, hand=Counter(v["hand"])) for k, v in page_state["seats"].items()}
    return out


@pytest.fixture(scope="module")
def hands():
    return showcase()


@pytest.fixture(scope="module")
def page_file(hands, tmp_path_factory):
    path = tmp_path_factory.mktemp("viewer") / "hands.html"
    HandViewer(list(hands)).save(path)
    return path


@pytest.fixture(scope="module")
def browser(page_file):
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1480,1000"):
        opts.add_argument(arg)
    d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    d.get(page_file.as_uri())
    yield d
    d.quit()


def show(d, hand: int, view: int | None = None):
    Select(d.find_element(By.ID, "hand-select")).select_by_value(str(hand))
    Select(d.find_element(By.ID, "view-select")).select_by_value(str(-1 if view is None else view))


def walk_and_compare(d, events, view):
    tables = replay_events(events)
    states = d.execute_script(WALK)
    assert len(states) == len(tables) == len(events)
    for i, (page, table) in enumerate(zip(states, tables)):
        want = expected(table, view)
        got = drawn(page)
        assert got == want, f"event {i} ({events[i]['event']}), view {view}: the page differs from the replayer"


def test_the_page_loads_without_script_errors(browser, hands):
    assert browser.execute_script("return window.handViewer.length") == len(hands[0])
    errors = [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
    assert not errors, errors


@pytest.mark.parametrize("view", [None, 0, 1, 2, 3], ids=["table", "seat0", "seat1", "seat2", "seat3"])
@pytest.mark.parametrize("which", [0, 1, 2], ids=["flow-wins", "robbed-kong", "pig"])
def test_every_event_shows_the_replayers_table(browser, hands, which, view):
    show(browser, which, view)
    walk_and_compare(browser, hands[which], view)


def test_a_seat_view_hides_the_others_tiles_kongs_and_pass_wins(browser, hands):
    events = hands[0]
    passed = next(e for e in events if e["event"] == "pass_win")
    kong = next(i for i, e in enumerate(events) if e["event"] == "kong" and e["kind"] == "concealed")
    owner = events[kong]["seat"]
    v = next(s for s in range(4) if s not in (passed["seat"], owner))
    show(browser, 0, v)
    assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-view") == str(v)
    bottom = browser.find_element(By.CSS_SELECTOR, "#table .pos-bottom")
    assert bottom.get_attribute("data-seat") == str(v)     # the viewing seat sits at the bottom
    browser.execute_script("window.handViewer.go(arguments[0])", 3)   # after the exchange, before a win
    for el in browser.find_elements(By.CSS_SELECTOR, "#table .seat"):
        hand = [t.get_attribute("data-tile") for t in el.find_elements(By.CSS_SELECTOR, ".hand .tile")]
        if el.get_attribute("data-seat") == str(v):
            assert "?" not in hand and hand
        else:
            assert set(hand) == {"?"}
    browser.execute_script("window.handViewer.go(arguments[0])", kong)
    melds = browser.find_elements(By.CSS_SELECTOR, f'#table .seat[data-seat="{owner}"] .meld[data-kind="kong_concealed"]')
    if not replay_events(events)[kong].seats[owner].won:    # a winner's hand (and kongs) are revealed
        assert melds and all(m.get_attribute("data-tile") == "?" for m in melds)
    assert "concealed kong" in browser.find_element(By.ID, "now").text
    assert not browser.find_elements(By.CSS_SELECTOR, "#now .tile")    # not which tile
    items = browser.find_elements(By.CSS_SELECTOR, "#events li")
    assert len(items) == len(events)
    for e, li in zip(events, items):
        unseen = "unseen" in li.get_attribute("class")
        assert unseen == (e["event"] == "pass_win" and e["seat"] != v)
        if e["event"] == "draw" and e["seat"] != v:
            assert "a tile" in li.text
        if e["event"] == "kong" and e["kind"] == "concealed" and e["seat"] != v:
            assert not li.find_elements(By.CSS_SELECTOR, ".tile")
    show(browser, 0, None)
    assert not browser.find_elements(By.CSS_SELECTOR, "#events li.unseen")


def test_keys_slider_buttons_and_event_list(browser, hands):
    show(browser, 1)
    n = len(hands[1])
    body = browser.find_element(By.TAG_NAME, "body")
    step = lambda: int(body.get_attribute("data-step"))  # noqa: E731
    ActionChains(browser).send_keys(Keys.END).perform()
    assert step() == n - 1
    ActionChains(browser).send_keys(Keys.HOME).perform()
    assert step() == 0
    ActionChains(browser).send_keys(Keys.ARROW_RIGHT * 3).perform()
    assert step() == 3
    ActionChains(browser).send_keys(Keys.ARROW_LEFT).perform()
    assert step() == 2
    browser.find_element(By.ID, "next").click()
    assert step() == 3
    browser.find_element(By.ID, "prev").click()
    browser.find_element(By.ID, "prev").click()
    assert step() == 1
    browser.find_element(By.ID, "last").click()
    assert step() == n - 1
    browser.find_element(By.ID, "first").click()
    assert step() == 0
    slider = browser.find_element(By.ID, "slider")
    slider.send_keys(Keys.ARROW_RIGHT)                     # the slider's own keys move it one event
    assert step() == 1
    li = browser.find_element(By.CSS_SELECTOR, f'#events li[data-i="{n // 2}"]')
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", li)
    li.click()
    assert step() == n // 2
    assert "current" in li.get_attribute("class")
    assert browser.find_element(By.ID, "counter").text == f"{n // 2 + 1} / {n}"


def test_payments_show_when_they_happen(browser, hands):
    events = hands[0]
    show(browser, 0)
    i = next(i for i, e in enumerate(events) if e["event"] == "payment")
    browser.execute_script("window.handViewer.go(arguments[0])", i)
    p = events[i]
    shown = browser.find_element(By.CSS_SELECTOR, "#payments div.this").text
    assert shown == f"seat {p['payer']} → seat {p['payee']}: {p['amount']} ({p['reason']})"
    payee = browser.find_element(By.CSS_SELECTOR, f'#table .seat[data-seat="{p["payee"]}"] .delta.pos')
    assert payee.text == f"+{p['amount']}"


@pytest.mark.parametrize("which", [0, 1, 2], ids=["flow-wins", "robbed-kong", "pig"])
def test_the_settlement_at_the_end(browser, hands, which):
    events = hands[which]
    show(browser, which)
    box = browser.find_element(By.ID, "settlement")
    browser.execute_script("window.handViewer.go(arguments[0])", len(events) - 2)
    assert not box.is_displayed()
    ActionChains(browser).send_keys(Keys.END).perform()
    assert box.is_displayed()
    st = settlement(replay_events(events)[-1])
    for reason, nets in st["by_reason"].items():
        row = box.find_element(By.CSS_SELECTOR, f'tr[data-reason="{reason}"]')
        assert [int(c.text) for c in row.find_elements(By.CSS_SELECTOR, "td")] == nets
    net = box.find_element(By.CSS_SELECTOR, "tr.net-row")
    assert [int(c.text) for c in net.find_elements(By.CSS_SELECTOR, "td")] == events[-1]["net"]
    wins = box.find_elements(By.CSS_SELECTOR, "tr.win-row")
    assert len(wins) == len(st["wins"])
    for row, w in zip(wins, st["wins"]):
        cells = row.find_elements(By.CSS_SELECTOR, "td")
        assert [int(cells[-3].text), int(cells[-2].text)] == [w["fan"], w["base"]]
        hand = [t.get_attribute("data-tile") for t in cells[4].find_elements(By.CSS_SELECTOR, ":scope > .tile")]
        assert Counter(hand) == Counter(w["tiles"])
        for p in w["patterns"]:
            assert p in cells[5].text
    checks = box.find_elements(By.CSS_SELECTOR, "tr.check-row")
    assert len(checks) == len(st["checks"])
    for row, c in zip(checks, st["checks"]):
        cells = row.find_elements(By.CSS_SELECTOR, "td")
        assert cells[1].text == ("flower pig" if c["pig"] else "ready" if c["ready"] else "not ready")
        hand = [t.get_attribute("data-tile") for t in cells[4].find_elements(By.CSS_SELECTOR, ":scope > .tile")]
        assert Counter(hand) == Counter(c["tiles"])
    if which == 2:
        assert any(c["pig"] for c in st["checks"])


def test_hands_load_lazily_from_inert_json(page_file, hands):
    text = page_file.read_text()
    blobs = re.findall(r'<script type="application/json" id="hand-(\d+)">', text)
    assert blobs == [str(i) for i in range(len(hands))]


def test_the_page_is_offline_and_small(page_file, hands):
    text = page_file.read_text()
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", text))
    assert urls <= {"http://www.w3.org/2000/svg"}, urls    # the SVG namespace is a name, never fetched
    assert not re.search(r"<(link|img|iframe)\b|@import|@font-face|\bsrc=", text)
    for h in hands:
        assert hand_bytes(h) <= MAX_HAND_BYTES


def test_even_a_long_flow_hand_fits_the_budget():
    longest = max((traced("flow", g, seats="random") for g in range(40)), key=len)
    assert hand_bytes(longest) <= MAX_HAND_BYTES
    assert len(page([longest]).encode()) <= MAX_HAND_BYTES    # its page as a whole, too


def test_trace_writes_the_page(tmp_path):
    out = tmp_path / "hand.html"
    r = CliRunner().invoke(cli, ["trace", "--rules", "flow", "--seed", "1", "--hand", "0-1", "--format", "html",
                                 "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert len(re.findall(r'<script type="application/json" id="hand-\d+">', out.read_text())) == 2
    r = CliRunner().invoke(cli, ["trace", "--seed", "1", "--hand", "0", "--format", "json", "-o", str(tmp_path / "h.jsonl")])
    assert r.exit_code == 0
    events = [json.loads(x) for x in (tmp_path / "h.jsonl").read_text().splitlines()]
    assert events[0]["event"] == "start" and events[-1]["event"] == "end"


@pytest.mark.parametrize("args, message", [
    (["--hand", f"0-{MAX_HANDS}", "--format", "html", "-o", "x.html"], f"at most {MAX_HANDS}"),
    (["--hand", "0", "--format", "html"], "add -o FILE.html"),
    (["--hand", "0", "--format", "html", "-o", "/nonexistent-dir/x.html"], "cannot write"),
])
def test_trace_html_errors_are_one_line(args, message):
    r = CliRunner().invoke(cli, ["trace", *args])
    assert r.exit_code == 2
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert len(lines) == 1 and message in lines[0] and lines[0].startswith("Error:")


def test_trace_states_the_limit_of_hands_a_page():
    r = CliRunner().invoke(cli, ["trace", "--help"], terminal_width=1000)
    assert f"at most {MAX_HANDS} hands a page" in r.output


def test_python_replay_displays_inline_and_saves(tmp_path):
    v = simcore.replay(0, rules="flow", seed=1)
    html = v._repr_html_()
    assert html.startswith("<iframe srcdoc=") and "hand-index" in html
    path = v.save(tmp_path / "hand.html")
    assert path.read_text() == v.html()
    trace = tmp_path / "hand.jsonl"
    trace.write_text("\n".join(json.dumps(e) for e in v.events))
    assert simcore.replay(events=trace).hands == v.hands
    two = simcore.replay("0-1", rules="kawu", seed=2)
    assert len(two.hands) == 2 and [h[0]["hand"] for h in two.hands] == [0, 1]
    with pytest.raises(ValueError, match="at most"):
        simcore.replay(range(MAX_HANDS + 1))


CHEATER = '''
import numba as nb
from strategies.api import C_PASS, Q_TURN, STRATEGY_SIG, V_HAND


@nb.njit(STRATEGY_SIG, cache=True)
def cheater(q, view, tab):
    """Discards a tile it does not hold at its first turn."""
    if q == Q_TURN:
        for t in range(27):
            if view[V_HAND + t] == 0:
                return t
    return C_PASS
'''


def test_a_hand_stopped_by_an_illegal_answer_still_shows_up_to_it(tmp_path, browser, page_file):
    bot = tmp_path / "cheater_bot.py"
    bot.write_text(CHEATER)
    out = tmp_path / "stopped.html"
    r = CliRunner().invoke(cli, ["trace", "--seats", f"{bot}:cheater,greedy,greedy,greedy", "--hand", "0",
                                 "--format", "html", "-o", str(out)])
    assert r.exit_code == 2 and "illegal answer" in r.output
    text = out.read_text()
    assert "illegal_answer" in text and '"error":"ERROR (illegal_answer)' in text
    try:
        browser.get(out.as_uri())
        ActionChains(browser).send_keys(Keys.END).perform()
        error = browser.find_element(By.CSS_SELECTOR, "#settlement .error")
        assert "ERROR (illegal_answer): seat 0" in error.text
        assert not [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
    finally:
        browser.get(page_file.as_uri())


def test_an_agents_episode_traced_through_the_viewer(tmp_path, browser, page_file):
    """A hand an agent played in the Gymnasium env (random legal actions, seat 2, blood flow) is
    written as the project's trace, replayed from the agent's answers and checked against the
    rows it played (``Tables.trace``); ``sichuan trace --from`` prints it and puts it on a page
    that shows, event by event, the replayer's table."""
    import warnings

    import gymnasium as gym
    import numpy as np

    import simcore.env as senv

    env = gym.make(senv.ENV_ID, rules="flow", seat=2, record_trace=True).unwrapped
    obs, _ = env.reset(seed=12)
    rng = np.random.default_rng(3)
    term = False
    while not term:
        obs, _, term, _, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    traced = env.trace()
    assert traced.events[0]["strategies"][2] == "agent"
    assert traced.events[-1]["net"] == [int(x) for x in info["result"].nets]
    assert any(e["event"] == "discard" and e["seat"] == 2 for e in traced.events)
    path = tmp_path / "episode.jsonl"
    env.write_trace(path)
    text = CliRunner().invoke(cli, ["trace", "--from", str(path), "--format", "text"])
    assert text.exit_code == 0 and "seat 2: agent" in text.output
    out = tmp_path / "episode.html"
    r = CliRunner().invoke(cli, ["trace", "--from", str(path), "--format", "html", "-o", str(out)])
    assert r.exit_code == 0, r.output
    bad = CliRunner().invoke(cli, ["trace", "--from", str(path), "--hand", "0"])
    assert bad.exit_code == 2 and "--from prints a trace file as it is" in bad.output
    try:
        browser.get(out.as_uri())
        show(browser, 0)
        walk_and_compare(browser, traced.events, None)
        assert not [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
    finally:
        browser.get(page_file.as_uri())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="record_trace|record=True"):
            gym.make(senv.ENV_ID).unwrapped.trace()


# -- the reviewer ------------------------------------------------------------------------------------
# Seat 0 of hand 3 (seed 7, expert) decides the exchange, its void, discards, a kong and a win.

REVIEWED = dict(hand=3, seed=7, seat=0, rollouts=24)


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory):
    from simcore.inspection.review import hand_setup, review
    from simcore.inspection.trace import trace_hand

    h = hand_setup(None, REVIEWED["hand"], "battle", None, "expert", REVIEWED["seed"])
    events = trace_hand(h.rules, h.players, h.seats, h.seed, h.g, h.dealer, h.scores).events
    r = review(h, REVIEWED["seat"], rollouts=REVIEWED["rollouts"])
    path = tmp_path_factory.mktemp("review") / "review.html"
    HandViewer([events], reviews=[r]).save(path)
    return events, r, path


def test_each_decision_comes_before_the_event_of_its_choice(reviewed):
    """The event a decision is placed before is the one its choice made (checked against the trace,
    not the reviewer's own bookkeeping); what it gave up is its option's gap (unbiased, so near 0
    for the best, either side of it), inside that gap's interval."""
    events, r, _ = reviewed
    seat = REVIEWED["seat"]
    kinds = {d["question"] for d in r["decisions"]}
    assert {"exchange", "void", "turn", "claim"} <= kinds, kinds
    for d in r["decisions"]:
        e = events[d["event"]]
        verb, _, what = d["chosen"].partition(" ")
        if d["question"] == "exchange":
            assert e["event"] == "exchange" and sorted(e["passed"][seat]) == sorted(what.split())
        elif d["question"] == "void":
            assert e["event"] == "void" and e["suits"][seat] == what
        elif verb in ("discard", "kong"):
            assert (e["event"], e["seat"], e["tile"]) == (verb, seat, what)
        elif verb in ("win", "pung"):
            assert (e["event"], e["seat"]) == (verb, seat)
        own = next(o for o in d["options"] if o["chosen"])
        assert d["lost"] == own["gap"] and d["lost_lo"] <= d["lost"] <= d["lost_hi"]
        assert d["options"][0]["candidate"] == d["best"] and sum(o["chosen"] for o in d["options"]) == 1
    assert r["lost"] == pytest.approx(sum(d["lost"] for d in r["decisions"]))
    se = math.sqrt(sum(d["lost_se"] ** 2 for d in r["decisions"]))
    assert r["lost_lo"] == pytest.approx(r["lost"] - 1.959964 * se) and r["lost_hi"] > r["lost"]


def test_each_decision_is_shown_at_its_own_event(reviewed):
    """A decision's mark and options sit on the event its choice made (the exchange on the
    exchange's line, not the deal's; a discard on that discard's), or, for a pung or kong it let go
    by, on the discard that offered it; they were judged at the table before ``event``."""
    events, r, _ = reviewed
    seat = REVIEWED["seat"]
    payload = review_payload(r, events)
    assert [d["at"] for d in payload["d"]] == [decision_event(events, seat, d["event"]) for d in r["decisions"]]
    for d, p in zip(r["decisions"], payload["d"]):
        e = events[p["at"]]
        assert p["table"] == d["event"] - 1 and p["at"] in (d["event"], d["event"] - 1)
        if d["question"] in ("exchange", "void"):
            assert e["event"] == d["question"] and p["at"] == d["event"]
        elif d["chosen"] == "pass" and events[d["event"]]["event"] != "pass_win":
            assert e["event"] == "discard" and e["tile"] == d["tile"]
        else:
            assert e["seat"] == seat and e["event"] in ("discard", "kong", "pung", "win", "pass_win"), (d, e)
    assert events[payload["d"][0]["at"]]["event"] == "exchange"
    # a pung passed shows at the discard it let go by (no event of its own), a win passed at its pass_win
    fake = [{"event": "discard", "seat": 2, "tile": "5m"}, {"event": "draw", "seat": 3}]
    assert decision_event(fake, 0, 1) == 0
    fake = [{"event": "discard", "seat": 2, "tile": "5m"}, {"event": "pass_win", "seat": 0}]
    assert decision_event(fake, 0, 1) == 1


def test_a_shown_gap_is_a_shortfall_from_the_best():
    """An option not marked best shows what it falls short of the best by, never more than the
    best; the total given up carries its interval; the decision a choice of the best is 'best'."""
    def option(name, gap, lo, hi, best=False, chosen=False):
        return {"candidate": name, "mean": 1.0 - gap, "lo": 0.0, "hi": 2.0, "gap": gap, "gap_lo": lo, "gap_hi": hi,
                "best": best, "chosen": chosen}

    opts = [option("discard 1m", -0.8, -1.5, -0.1, best=True), option("discard 2m", -0.3, -1.0, 0.4),
            option("discard 3m", 0.9, 0.2, 1.6, chosen=True)]
    r = {"seat": 0, "strategy": "expert", "rollouts": 24, "policy": "expert at every seat",
         "lost": -0.1, "lost_lo": -1.2, "lost_hi": 1.0,
         "decisions": [{"decision": 0, "event": 6, "question": "turn", "tile": "", "options": opts,
                        "chosen": "discard 3m", "best": "discard 1m", "chose_best": False,
                        "lost": 0.9, "lost_lo": 0.2, "lost_hi": 1.6, "lost_se": 0.36}]}
    p = review_payload(r)
    got = [o[4:] for o in p["d"][0]["o"]]
    assert got == [[0.0, 0.0, 0.0, 0, 1], [0.0, 0.0, 0.4, 0, 0], [0.9, 0.2, 1.6, 1, 0]]
    assert (p["d"][0]["lost"], p["d"][0]["lost_lo"], p["d"][0]["lost_hi"], p["d"][0]["cb"]) == (0.9, 0.2, 1.6, 0)
    assert (p["lost"], p["lost_lo"], p["lost_hi"]) == (0.0, 0.0, 1.0)


def test_the_page_shows_every_option_at_each_decision_and_the_costliest(browser, page_file, reviewed):
    events, r, path = reviewed
    payload = review_payload(r, events)
    try:
        browser.get(path.as_uri())
        marked = browser.execute_script(
            "return [...document.querySelectorAll('#events li.decision')].map((l) => +l.dataset.i)")
        assert marked == sorted({d["at"] for d in payload["d"]})
        for d in payload["d"]:
            browser.execute_script(f"window.handViewer.go({d['at']})")
            rows = browser.execute_script(
                "return [...document.querySelectorAll('#decision table.options tr[data-answer]')].map((tr) =>"
                " [tr.dataset.answer, tr.classList.contains('chosen'), tr.cells[2].textContent])")
            assert [x[:2] for x in rows] == [[o[0], bool(o[7])] for o in d["o"]], d["k"]
            for (_, _, shown), o in zip(rows, d["o"]):   # two decimals, rounded as the browser rounds
                assert float(shown.replace("−", "-")) == pytest.approx(o[1], abs=0.0051), (d["k"], o)
            caption = browser.find_element(By.CSS_SELECTOR, "#decision caption").text
            assert f"(decision {d['k']})" in caption and d["q"] in caption
            # a gap is a shortfall from the best: "best", or 0.00 and below, never above
            gaps = browser.execute_script(
                "return [...document.querySelectorAll('#decision table.options tr[data-answer]')].map((tr) =>"
                " [tr.classList.contains('best'), tr.cells[4].textContent, tr.cells[5].textContent])")
            for (best, gap, paired), o in zip(gaps, d["o"]):
                assert best == bool(o[8]) and (gap == "best") == best, (d["k"], o, gap)
                if not best:
                    assert "+" not in gap + paired and float(gap.replace("−", "-")) <= 0, (d["k"], o, gap, paired)
                    assert float(gap.replace("−", "-")) == pytest.approx(-o[4], abs=0.0051)
        marks = browser.execute_script("return [...document.querySelectorAll('#events li.decision .cost')]"
                                       ".map((m) => m.textContent)")
        assert marks and all("+" not in m for m in marks), marks
        first = browser.find_element(By.CSS_SELECTOR, "#events li.decision")
        assert first.get_attribute("data-kind") == "exchange", first.text   # not the deal's line
        worst = sorted((d for d in payload["d"] if d["lost"] > 0), key=lambda d: (-d["lost"], d["k"]))[:5]
        items = browser.find_elements(By.CSS_SELECTOR, "#costliest li")
        assert [int(li.get_attribute("data-k")) for li in items] == [d["k"] for d in worst]
        if items:
            browser.execute_script("window.handViewer.go(0)")
            items[0].click()
            assert browser.execute_script("return window.handViewer.step") == worst[0]["at"]
        lost = browser.find_element(By.ID, "review-lost").text
        assert float(lost) == pytest.approx(payload["lost"], abs=0.0051)
        lo, hi = browser.find_element(By.ID, "review-lost-ci").text.split(" to ")
        assert (float(lo), float(hi)) == pytest.approx((payload["lost_lo"], payload["lost_hi"]), abs=0.0051)
        assert 0 <= float(lo) <= float(lost) <= float(hi)
        assert not [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
        browser.get(page_file.as_uri())        # a page without a review shows none
        assert not browser.find_element(By.ID, "review").is_displayed()
    finally:
        browser.get(page_file.as_uri())


def test_trace_review_writes_the_judged_page_and_needs_html(tmp_path):
    out = tmp_path / "review.html"
    args = ["trace", "--seed", "7", "--hand", "3", "--review", "0", "--rollouts", "8"]
    r = CliRunner().invoke(cli, [*args, "--format", "html", "-o", str(out)])
    assert r.exit_code == 0, r.output
    data = json.loads(re.search(r'id="hand-0">(.*?)</script>', out.read_text()).group(1))
    assert data["review"]["seat"] == 0 and data["review"]["rollouts"] == 8 and data["review"]["d"]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 2 and "--review draws its judgements on the page" in r.output


def test_python_replay_with_a_review(tmp_path):
    v = simcore.replay(3, seed=7, review=0, rollouts=8)
    data = json.loads(re.search(r'id="hand-0">(.*?)</script>', v.html()).group(1))
    assert data["review"]["seat"] == 0 and data["review"]["rollouts"] == 8 and data["review"]["d"]


LONG = ("expert[pace=1.25,flush_weight=6.5,pairs_weight=1.5,decay=0.15,stay_cost=1.5,pass_margin=0.5,kong_slack=2,"
        "pung_slack=1,flush_min=8,flow_flush_weight=9.0,flow_kong_slack=1,flow_decay=0.25,triplets_weight=0.5]"
        "+exchange=expert[void_cost=5,flush_bonus=3,pair_bonus=2]+void=expert[void_cost=5,pair_bonus=4]")


def test_a_long_seat_name_wraps_inside_the_page(browser, page_file, reviewed, tmp_path):
    """A seat's name is one long word (a part with many parameters, a user file's long name): it wraps
    inside its seat and the review, and the page never scrolls sideways, wherever the seat sits."""
    from strategies.registry import parse_seat

    events, r, _ = reviewed
    long = parse_seat(LONG).canonical
    events = [dict(events[0], strategies=[long] + list(events[0]["strategies"][1:]))] + list(events[1:])
    path = tmp_path / "long.html"
    HandViewer([events], reviews=[dict(r, strategy=long, policy=f"{LONG} at every seat")]).save(path)
    try:
        browser.get(path.as_uri())
        assert len(browser.find_element(By.CSS_SELECTOR, '#table .seat[data-seat="0"] .strategy').text) > 200
        for view in (-1, 1, 2, 3):      # seat 0 at the bottom, left, top and right
            Select(browser.find_element(By.ID, "view-select")).select_by_value(str(view))
            wide, inner = browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
            assert wide <= inner, (view, wide, inner)
            inside = browser.execute_script(
                "return [...document.querySelectorAll('#table .seat')].map((el) => {"
                " const s = el.querySelector('.strategy').getBoundingClientRect(), b = el.getBoundingClientRect();"
                " return [+el.dataset.seat, s.left >= b.left - 1 && s.right <= b.right + 1]; })")
            assert all(ok for _, ok in inside), (view, inside)
        box = browser.execute_script("const r = document.getElementById('review').getBoundingClientRect();"
                                     " return [r.right, window.innerWidth]")
        assert box[0] <= box[1], box
    finally:
        browser.get(page_file.as_uri())
