"""The strategy explorer's API and pages (agents/explorer, scripts/serve.py) through Starlette's
test client: the JSON equals ``scripts/analyze.py --exact --json``'s, the page's top row is the
exact solver's optimum, practice scores a setting as the solver does, a model sees the observation
its env gives, and nothing a user can type answers a 500."""

from __future__ import annotations

import asyncio
import html
import json
import re
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

with warnings.catch_warnings():  # Starlette 1.x suggests httpx2; its TestClient runs on httpx as well
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    from starlette.testclient import TestClient  # noqa: E402

from splitpoker.agents.explorer.app import create_app  # noqa: E402
from splitpoker.agents.explorer.engine import Explorer, parse_query, setting_of_hands  # noqa: E402
from splitpoker.envs.rules.cards import format_card  # noqa: E402
from splitpoker.envs.rules.game import Game  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ASIA_HAND = "Qh Th 8h 3h Kd 5d Tc"
PAIGOW_HAND = "As Ah Kd Kc 9s 5h JK"


@pytest.fixture(scope="module")
def explorer():
    return Explorer(reports=ROOT / "docs" / "insight", log=lambda m: None)


@pytest.fixture(scope="module")
def client(explorer):
    with TestClient(create_app(explorer)) as c:
        yield c


def cli_json(*args: str) -> dict:
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "analyze.py"), *args, "--exact", "--json"],
                         capture_output=True, text=True, timeout=600, check=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize("game,style,cards,rules,params", [
    ("asia", "asia-000", ASIA_HAND, '{"flush_beats_straight": true}', {"flush_beats_straight": "true"}),
    ("paigow", "paigow-igw", PAIGOW_HAND, '{"commission": 0}', {"commission": "0"}),
])
def test_api_answers_what_the_cli_prints(client, game, style, cards, rules, params):
    want = cli_json("--game", game, "--style", style, "--rules", rules, cards)
    r = client.get("/api/analyze", params={"game": game, "style": style, "cards": cards, **params})
    assert r.status_code == 200, r.text
    got = r.json()
    extra = got.pop("explorer")
    assert got == want  # same keys, same values
    assert set(extra) == {"house_way_source", "strategy_card", "written_cards", "agents"}


def test_page_top_row_is_the_solvers_optimum_and_every_row_its_ev(client, exact_solver):
    # the tables the suite builds anyway (asia-000, paigow-igw): another style's would cost minutes in CI
    res = exact_solver("paigow", "paigow-igw").solve(Game("paigow", "paigow-igw").hand(PAIGOW_HAND))
    r = client.get("/", params={"game": "paigow", "style": "paigow-igw", "cards": PAIGOW_HAND.lower()})
    assert r.status_code == 200
    table = r.text[r.text.index('id="settings"'):]
    rows = re.findall(r'<tr data-ev="([^"]+)" data-setting="(\d+)"', table)
    _, fouled = Game("paigow").settings(Game("paigow").hand(PAIGOW_HAND))
    assert len(rows) == int((~fouled).sum())  # one row per legal setting
    assert float(rows[0][0]) == float(res.ev.max())
    for ev, s in rows:
        assert float(ev) == float(res.ev[int(s)])
    hw = Game("paigow", "paigow-igw").house_way(Game("paigow").hand(PAIGOW_HAND))
    assert html.escape(hw.rule, quote=False) in r.text
    assert 'href="/?game=paigow&amp;style=paigow-igw&amp;cards=' in r.text  # the shareable URL


@pytest.mark.parametrize("params,field,words", [
    ({"game": "asia", "cards": "Qh Th 8h 3h Kd 5d Zz"}, "cards", "'Zz'"),
    ({"game": "asia", "cards": "Qh Qh 8h 3h Kd 5d Tc"}, "cards", "Qh"),
    ({"game": "asia", "cards": "Qh Th 8h 3h Kd 5d"}, "cards", "6"),
    ({"game": "asia", "cards": "Qh Th 8h 3h Kd 5d Tc 2c"}, "cards", "8"),
    ({"game": "asia"}, "cards", "missing"),
    ({"game": "chess", "cards": ASIA_HAND}, "game", "chess"),
    ({"game": "asia", "style": "paigow-igw", "cards": ASIA_HAND}, "style", "paigow-igw"),
    ({"game": "asia", "style": "vegas", "cards": ASIA_HAND}, "style", "vegas"),
    ({"game": "asia", "cards": ASIA_HAND, "commission": "0"}, "query", "commission"),
    ({"game": "paigow", "cards": PAIGOW_HAND, "commission": "abc"}, "commission", "abc"),
    ({"game": "paigow", "cards": PAIGOW_HAND, "commission": "1.5"}, "commission", "1.5"),
    ({"game": "paigow", "cards": PAIGOW_HAND, "commission": "nan"}, "commission", "nan"),
    ({"game": "asia", "cards": ASIA_HAND, "flush_beats_straight": "maybe"}, "flush_beats_straight", "maybe"),
    ({"game": "asia", "cards": ASIA_HAND, "ace_low_straight": "middle"}, "ace_low_straight", "middle"),
    ({"game": "asia", "cards": ASIA_HAND, "path": "/etc/passwd"}, "query", "path"),
    ({"game": "asia", "cards": "x" * 5000}, "query", "2,000"),
])
def test_bad_input_answers_400_naming_it(client, params, field, words):
    r = client.get("/api/analyze", params=params)
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["field"] == field and words in body["error"], body
    if "cards" not in params:
        assert client.get("/", params=params).status_code == 200  # the page without a hand: the empty form
        return
    page = client.get("/", params=params)
    assert page.status_code == 400
    assert f'id="{"cards" if field in ("query", "hands") else field}-error"' in page.text  # beside its field
    assert body["error"] in html.unescape(page.text)


def test_typed_script_shows_as_text(client):
    evil = "<script>alert(1)</script>"
    r = client.get("/", params={"game": "asia", "cards": evil})
    assert r.status_code == 400
    assert "<script>alert" not in r.text and "&lt;script&gt;alert(1)" in r.text
    assert "script-src 'self'" in r.headers["content-security-policy"] and r.headers["x-content-type-options"] == "nosniff"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(["game", "style", "cards", "commission", "ace_low_straight",
                                        "flush_beats_straight", "x"]),
                       st.text(max_size=40), max_size=5))
def test_fuzz_never_a_500(client, params):
    params = {k: v.replace("\x00", "") for k, v in params.items()}
    for path in ("/api/analyze", "/api/practice", "/", "/practice"):
        r = client.get(path, params=params, follow_redirects=False)
        assert r.status_code in (200, 303, 400), (path, params, r.status_code, r.text[:300])
        if path.startswith("/api/") and r.status_code == 400:
            assert r.json()["error"]


def test_sixteen_requests_at_once_are_all_answered(explorer):
    import httpx

    hands = [" ".join(format_card(int(c)) for c in np.sort(np.random.default_rng(i).choice(53, 7, replace=False)))
             for i in range(16)]

    async def go():
        transport = httpx.ASGITransport(app=create_app(explorer, workers=2))
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            return await asyncio.gather(*[c.get("/api/analyze", params={"game": "paigow", "cards": h}) for h in hands])

    answers = asyncio.run(go())
    assert [a.status_code for a in answers] == [200] * 16
    assert sorted(a.json()["cards"] == h.split() for a, h in zip(answers, hands, strict=True)) == [True] * 16


def test_a_full_queue_answers_503_at_once(explorer, monkeypatch):
    import httpx

    release = threading.Event()
    real = explorer.analyze
    monkeypatch.setattr(explorer, "analyze", lambda q: (release.wait(30), real(q))[1])

    async def go():
        app = create_app(explorer, workers=1, queue=1)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            first = [asyncio.create_task(c.get("/api/analyze", params={"game": "paigow", "cards": PAIGOW_HAND}))
                     for _ in range(2)]
            await asyncio.sleep(0.3)
            third = await c.get("/api/analyze", params={"game": "paigow", "cards": PAIGOW_HAND})
            release.set()
            return third, await asyncio.gather(*first)

    third, first = asyncio.run(go())
    assert third.status_code == 503 and "ask again" in third.json()["error"]
    assert [r.status_code for r in first] == [200, 200]


def test_practice_scores_the_setting_as_the_solver_does(client, exact_solver):
    game = Game("asia", "asia-000")
    hand = game.hand(ASIA_HAND)
    res = exact_solver("asia", "asia-000").solve(hand)
    _, fouled = game.settings(hand)
    for s in (int(np.argmin(np.where(fouled, np.inf, res.ev))), int(res.ev.argmax())):
        hands = {k: " ".join(format_card(int(c)) for c in v) for k, v in game.describe(hand, s).hands().items()}
        r = client.get("/api/practice", params={"game": "asia", "style": "asia-000", "cards": ASIA_HAND, **hands})
        assert r.status_code == 200, r.text
        d = r.json()
        assert d["played"]["setting"] == s and d["played"]["ev"] == float(res.ev[s])
        assert d["gives_up"] == pytest.approx(float(res.ev.max() - res.ev[s]), abs=1e-15)
        assert d["optimal"]["ev"] == float(res.ev.max())
    bad = client.get("/api/practice", params={"game": "asia", "cards": ASIA_HAND, "high": "Qh Th 8h 2c",
                                              "medium": "Kd 5d", "low": "Tc"})
    assert bad.status_code == 400 and "not a split" in bad.json()["error"]
    worse = client.get("/api/practice", params={"game": "asia", "cards": ASIA_HAND, "high": "Qh Th 8h",
                                                "medium": "3h Kd 5d", "low": "Tc"})
    assert worse.status_code == 400 and "4, medium 2, low 1" in worse.json()["error"]


@pytest.mark.parametrize("game_name", ["asia", "paigow"])
def test_setting_of_hands_finds_every_setting(game_name):
    game = Game(game_name)
    hand = game.hand(ASIA_HAND if game_name == "asia" else PAIGOW_HAND)
    for s in range(game.n_settings):
        hands = {k: " ".join(format_card(int(c)) for c in v) for k, v in game.describe(hand, s).hands().items()}
        assert setting_of_hands(game, hand, hands) == s


@pytest.mark.parametrize("env_id,kwargs", [
    ("splitpoker/AsiaPokerSetting-v0", {}),
    ("splitpoker/AsiaPokerSetting-v0", {"observe_settings": True, "setting_features": True, "mask_fouls": False}),
    ("splitpoker/PaiGowPokerSetting-v0", {"observe_settings": True, "allow_house_way_action": True}),
    ("splitpoker/PaiGowPokerSetting-v0", {"setting_features": True, "house_way": "paigow-foxwoods"}),
])
def test_a_model_sees_what_its_env_gives(env_id, kwargs):
    import gymnasium as gym

    import splitpoker  # noqa: F401
    from splitpoker.agents.explorer.agents import setting_observation

    env = gym.make(env_id, **kwargs)
    for seed in range(25):
        want, info = env.reset(seed=seed)
        cards = env.unwrapped.player.copy()
        got, mask = setting_observation(env, cards)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(mask, info["action_mask"])


def test_the_cards_choices_are_shown_with_their_rules(tmp_path):
    """The style's fitted card (configs/strategies/fitted/) and a written --card: the setting each
    makes, its rule, its EV and cost as the exact solver gives them."""
    from splitpoker.agents.evaluation.card_file import card_choice, fitted_card_choice, load_card

    written = ROOT / "configs" / "strategies" / "paigow_simple.yaml"
    ex = Explorer(written_cards=(str(written),), log=lambda m: None)
    game = Game("paigow", "paigow-igw")
    hand = game.hand(PAIGOW_HAND)
    with TestClient(create_app(ex)) as c:
        r = c.get("/api/analyze", params={"game": "paigow", "cards": PAIGOW_HAND}).json()
        page = c.get("/", params={"game": "paigow", "cards": PAIGOW_HAND}).text
    evs = {e["setting"]: e["ev"] for e in r["settings"]}
    fitted = fitted_card_choice("paigow-igw", hand)
    sc = r["explorer"]["strategy_card"]
    assert (sc["setting"], sc["rule"], sc["text"]) == (fitted.setting, fitted.rule + 1, fitted.rule_text)
    assert sc["ev"] == evs.get(sc["setting"], -1.0) and sc["cost"] == pytest.approx(r["optimal_ev"] - sc["ev"])
    [wc] = r["explorer"]["written_cards"]
    mine = card_choice(load_card(written), game, hand)
    assert (wc["setting"], wc["text"]) == (mine.setting, mine.rule_text)
    assert 'id="strategy-card"' in page and html.escape(wc["name"], quote=False) in page
    with pytest.raises(ValueError, match="nope.yaml"):
        Explorer(written_cards=(str(tmp_path / "nope.yaml"),), log=lambda m: None)


def test_audit_pages_link_the_costliest_hands_into_the_calculator(client, explorer):
    styles = explorer.audit_styles()
    if not styles:
        pytest.skip("no audits in docs/insight")
    assert client.get("/audit").status_code == 200
    style = styles[0]
    folder = explorer.audit(style)["folder"]
    rep = json.loads((folder / "report.json").read_text())
    assert rep["policy"] == "house-way" and rep["style"] == style
    assert rep["hands"] == max(json.loads(p.read_text())["hands"] for p in (ROOT / "docs" / "insight").glob("*/report.json")
                               if json.loads(p.read_text()).get("style") == style
                               and json.loads(p.read_text()).get("policy") == "house-way")  # the largest
    page = client.get(f"/audit/{style}")
    assert page.status_code == 200
    for rule in rep["rules"]:
        assert html.escape(rule["rule"], quote=False) in page.text
    w = rep["worst"][0]
    assert "/?game=" + rep["game"] in html.unescape(page.text) and w["cards"] in page.text
    for png in sorted(p.name for p in folder.glob("*.png"))[:1]:
        img = client.get(f"/audit/{style}/{png}")
        assert img.status_code == 200 and img.content[:4] == b"\x89PNG"
    assert client.get("/audit/nope").status_code == 404
    assert client.get(f"/audit/{style}/report.json").status_code == 404
    assert client.get(f"/audit/{style}/..%2F..%2Fpyproject.toml").status_code == 404


def test_a_table_being_built_is_said_not_waited_on(monkeypatch, exact_solver):
    """A table not cached: the request is answered 503 at once (the page too, reloading itself)
    while a background thread builds it; once built, the answer comes. The build is stood in for by
    handing over the default table (loaded already) after a wait, so nothing is written."""
    import splitpoker.envs.solver.dealer_table as dt

    started, release = threading.Event(), threading.Event()
    table = exact_solver("paigow", "paigow-igw").table

    def slow(game, *a, **kw):
        started.set()
        release.wait(60)
        return table

    ex = Explorer(log=lambda m: None)
    monkeypatch.setattr(Explorer, "is_cached", staticmethod(lambda game: False))
    monkeypatch.setattr(dt, "dealer_table", slow)
    with TestClient(create_app(ex)) as c:
        q = {"game": "paigow", "cards": PAIGOW_HAND, "ace_low_straight": "lowest"}
        r = c.get("/api/analyze", params=q)
        assert r.status_code == 503 and "being built" in r.json()["error"] and r.headers["retry-after"]
        assert started.wait(10)
        page = c.get("/", params=q)
        assert page.status_code == 503 and "being built" in page.text and 'http-equiv="refresh"' in page.text
        release.set()
        for _ in range(600):
            if ex._tables:
                break
            threading.Event().wait(0.1)
        r = c.get("/api/analyze", params=q)
        assert r.status_code == 200, r.text


def test_query_params_round_trip():
    q = parse_query({"game": "PaiGow", "style": "paigow-foxwoods", "cards": "as ah kd kc 9s 5h joker",
                     "commission": "0.0"})
    assert q.params == {"game": "paigow", "style": "paigow-foxwoods", "commission": "0.0",
                        "cards": "5h 9s Kd Kc As Ah JK"}  # deck order: suits s h d c
    assert parse_query(q.params).params == q.params
    assert parse_query({"game": "paigow", "cards": PAIGOW_HAND, "commission": "0.05"}).options == {}  # the default


def test_a_loaded_agent_plays_as_the_model_plays_in_its_env(tmp_path):
    """A model trained by scripts/train.py (a tiny run), loaded with --model: its choice on a dealt
    hand is what the model predicts on that deal in its own env."""
    import gymnasium as gym
    import yaml

    from splitpoker.agents.training.models import load_model

    cfg = {"env": {"id": "splitpoker/PaiGowPokerSetting-v0", "kwargs": {"observe_settings": True}},
           "algo": "maskable_ppo", "policy": "MlpPolicy",
           "algo_kwargs": {"n_steps": 64, "batch_size": 64, "n_epochs": 1}, "policy_kwargs": {"net_arch": [32]},
           "n_envs": 1, "total_timesteps": 64, "seed": 0, "log_dir": str(tmp_path)}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(cfg))
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "train.py"), "--config", str(tmp_path / "c.yaml"),
                          "--run-name", "m", "--no-progress"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    path = tmp_path / "m" / "model.zip"
    ex = Explorer(models=(str(path),), log=lambda m: None)
    model, _ = load_model(path)
    env = gym.make("splitpoker/PaiGowPokerSetting-v0", observe_settings=True)
    with TestClient(create_app(ex)) as c:
        for seed in range(3):
            obs, info = env.reset(seed=seed)
            a, _ = model.predict(obs, deterministic=True, action_masks=info["action_mask"])
            cards = " ".join(format_card(int(x)) for x in env.unwrapped.player)
            r = c.get("/api/analyze", params={"game": "paigow", "cards": cards})
            agents = r.json()["explorer"]["agents"]
            assert [x["setting"] for x in agents] == [int(a) - env.unwrapped.setting_offset]
            assert agents[0]["cost"] == pytest.approx(r.json()["optimal_ev"] - agents[0]["ev"])
        assert "Agent m" in c.get("/", params={"game": "paigow", "cards": cards}).text
        assert c.get("/api/analyze", params={"game": "asia", "cards": ASIA_HAND}).json()["explorer"]["agents"] == []
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="bad.zip"):
        Explorer(models=(str(bad),), log=lambda m: None)
