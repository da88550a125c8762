"""The strategy explorer's web app (Starlette, Jinja2 templates, one vendored script): the
calculator (``/``), its JSON (``/api/analyze``), practice (``/practice``, ``/api/practice``) and
the house-way audits (``/audit``). ``scripts/serve.py`` runs it with uvicorn; docs/explorer/explorer.md is
its manual.

Every request is checked by :func:`splitpoker.agents.explorer.engine.parse_query`; what a user can
type never gives a 500: a bad value answers 400 with ``{"error": ..., "field": ...}`` (a page shows
the message beside the field). At most ``workers`` solves run at once (a bounded pool), at most
``queue`` more wait; beyond that a request is answered 503 at once, so memory stays flat under
load. Nothing in a request names a file, a model or a pickle: models come from the command line.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from urllib.parse import urlencode

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from splitpoker.agents.explorer.engine import (
    DEFAULT_STYLE,
    GAMES,
    Explorer,
    RequestError,
    TableNotReady,
    deal,
    parse_query,
    rule_options,
    setting_of_hands,
)
from splitpoker.envs.rules.cards import format_card
from splitpoker.envs.rules.games.spec import get_spec
from splitpoker.envs.rules.house_ways.registry import HouseWayStyle, styles_of

HERE = Path(__file__).resolve().parent
SUITS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
# the page's own script and style sheet only; no inline script, nothing from another origin
CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'"


class Busy(RuntimeError):
    """More requests wait than the queue holds."""


class SecurityHeaders:
    """Every response: the content policy (this origin's script and style sheet only), no MIME
    sniffing, no referrer sent elsewhere."""

    HEADERS = [(b"content-security-policy", CSP.encode()), (b"x-content-type-options", b"nosniff"),
               (b"referrer-policy", b"no-referrer")]

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def with_headers(message):
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + self.HEADERS
            await send(message)

        await self.app(scope, receive, with_headers)


def card_view(text: str) -> dict:
    """A card for the templates: its text, rank, suit symbol and colour."""
    if text == "JK":
        return {"text": "JK", "rank": "JK", "suit": "★", "color": "joker"}
    return {"text": text, "rank": text[0], "suit": SUITS[text[1]], "color": "red" if text[1] in "hd" else "black"}


def all_cards() -> list[dict]:
    """The 53 cards for the picker grid: a row per suit (spades, hearts, diamonds, clubs), ranks 2 to
    A across, then the joker."""
    return [card_view(format_card(rank * 4 + suit)) for suit in range(4) for rank in range(13)] + [card_view("JK")]


def create_app(explorer: Explorer, *, workers: int = 2, queue: int = 64) -> Starlette:
    """The ASGI app over ``explorer`` (solves run ``workers`` at a time, ``queue`` more wait)."""
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.globals.update(games=GAMES, styles_of=styles_of, card_view=card_view,
                                 rule_options=rule_options, default_style=DEFAULT_STYLE,
                                 HouseWayStyle=HouseWayStyle, fmt_ev=lambda x: f"{x:+.5f}")
    limiter = anyio.CapacityLimiter(max(1, int(workers)))
    waiting = {"n": 0}

    async def run(fn, *args):
        if waiting["n"] >= queue + workers:
            raise Busy(f"{waiting['n']} requests are being answered: ask again in a moment")
        waiting["n"] += 1
        try:
            return await anyio.to_thread.run_sync(fn, *args, limiter=limiter)
        finally:
            waiting["n"] -= 1

    def error_json(e: Exception) -> JSONResponse:
        if isinstance(e, RequestError):
            return JSONResponse({"error": str(e), "field": e.field}, status_code=400)
        if isinstance(e, TableNotReady):
            return JSONResponse({"error": str(e), "field": "style", "progress": e.progress}, status_code=503,
                                headers={"Retry-After": "10"})
        return JSONResponse({"error": str(e)}, status_code=503, headers={"Retry-After": "1"})

    async def api_analyze(request: Request) -> Response:
        try:
            q = parse_query(request.query_params)
            return JSONResponse(await run(explorer.analyze, q))
        except (RequestError, TableNotReady, Busy, RuntimeError) as e:
            return error_json(e)

    async def api_practice(request: Request) -> Response:
        try:
            q = parse_query(request.query_params, extra=("hands", *(s for g in GAMES for s in _slots(g))))
            hands = {s: request.query_params.get(s, "") for s in q.game.slots}
            setting = setting_of_hands(q.game, q.cards, hands)
            return JSONResponse(await run(explorer.practice, q, setting))
        except (RequestError, TableNotReady, Busy, RuntimeError) as e:
            return error_json(e)

    def form_state(request: Request, need_cards: bool):
        """The checked query of a page, or the error to show beside its field."""
        params = dict(request.query_params)
        params.pop("deal", None)
        try:
            return parse_query(params, need_cards=need_cards), None
        except RequestError as e:
            return None, e

    async def calculator(request: Request) -> Response:
        params = request.query_params
        if "deal" in params:  # a random hand: its own URL, so it can be shared
            q, err = form_state(request, need_cards=False)
            if q is not None:
                cards = " ".join(format_card(int(c)) for c in deal(secrets.randbits(63)))
                return RedirectResponse("/?" + urlencode({**q.params, "cards": cards}), status_code=303)
        q, err = form_state(request, need_cards=False)
        report = notice = refresh = None
        status = 200
        if q is not None and q.cards is not None:
            try:
                report = await run(explorer.analyze, q)
            except TableNotReady as e:
                notice, status, refresh = str(e) + " (this page reloads itself)", 503, 10
            except (Busy, RuntimeError) as e:  # a full queue; a table build that failed (its error)
                notice, status = str(e), 503
        elif err is not None:
            status = 400
        game = q.game.game if q is not None else _game_param(params)
        ctx = {"q": q, "error": err, "report": report, "notice": notice, "refresh": refresh, "game": game,
               "style": q.game.style.value if q is not None else DEFAULT_STYLE[game],
               "values": dict(params), "deck": all_cards(),
               "options": q.options if q is not None else {},
               "share": ("/?" + urlencode(q.params)) if q is not None and q.cards is not None else None,
               "audits": explorer.audit_styles()}
        return templates.TemplateResponse(request, "index.html", ctx, status_code=status)

    async def practice(request: Request) -> Response:
        params = request.query_params
        q, err = form_state(request, need_cards=False)
        if q is not None and q.cards is None:
            cards = " ".join(format_card(int(c)) for c in deal(secrets.randbits(63)))
            return RedirectResponse("/practice?" + urlencode({**q.params, "cards": cards}), status_code=303)
        game = q.game.game if q is not None else _game_param(params)
        ctx = {"q": q, "error": err, "game": game, "values": dict(params),
               "style": q.game.style.value if q is not None else DEFAULT_STYLE[game],
               "cards": [card_view(format_card(int(c))) for c in q.cards] if q is not None else [],
               "slots": q.game.slots if q is not None else _slots(game),
               "sizes": _sizes(q.game) if q is not None else {}, "audits": explorer.audit_styles()}
        return templates.TemplateResponse(request, "practice.html", ctx, status_code=400 if err else 200)

    async def audits(request: Request) -> Response:
        items = []
        for style in explorer.audit_styles():
            rep = explorer.audit(style)
            items.append({"style": style, "game": rep.get("game"), "hands": rep.get("hands"),
                          "regret": rep.get("house_way_mean_regret"), "ci": rep.get("house_way_regret_ci95"),
                          "optimal_rate": rep.get("optimal_rate")})
        return templates.TemplateResponse(request, "audits.html", {"items": items, "audits": explorer.audit_styles()})

    async def audit(request: Request) -> Response:
        style = request.path_params["style"]
        try:
            rep = explorer.audit(style)
        except RequestError as e:
            return templates.TemplateResponse(request, "audits.html", {"items": [], "error": e,
                                                                       "audits": explorer.audit_styles()},
                                              status_code=404)
        for w in rep.get("worst", []):
            w["link"] = "/?" + urlencode({"game": rep["game"], "style": style, "cards": w["cards"]})
        return templates.TemplateResponse(request, "audit.html", {"r": rep, "style": style,
                                                                  "audits": explorer.audit_styles()})

    async def audit_plot(request: Request) -> Response:
        style, name = request.path_params["style"], request.path_params["name"]
        if style not in explorer.audit_styles() or name not in explorer.audit(style)["plots"]:
            raise HTTPException(404, f"no plot {name!r} of {style!r}")
        return FileResponse(explorer.audit(style)["folder"] / name, media_type="image/png")

    async def not_found(request: Request, exc: HTTPException) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": f"{exc.detail}: {request.url.path!r}"}, status_code=exc.status_code)
        return Response(f"{exc.status_code}: {exc.detail}", status_code=exc.status_code, media_type="text/plain")

    routes = [
        Route("/", calculator),
        Route("/api/analyze", api_analyze),
        Route("/api/practice", api_practice),
        Route("/practice", practice),
        Route("/audit", audits),
        Route("/audit/{style}", audit),
        Route("/audit/{style}/{name}", audit_plot),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: not_found},
                    middleware=[Middleware(SecurityHeaders)])
    app.state.explorer = explorer
    return app


def _game_param(params) -> str:
    g = str(params.get("game", "asia")).strip().lower()
    return g if g in GAMES else "asia"


def _slots(game: str) -> tuple[str, ...]:
    return get_spec(game).slots


def _sizes(game) -> dict[str, int]:
    return dict(zip(game.spec.slots, game.spec.hand_sizes, strict=True))
