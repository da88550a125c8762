#!/usr/bin/env python
"""The strategy explorer: a local web app over the exact solver (docs/explorer/explorer.md).

Pages: the hand calculator (every legal setting ranked by exact EV, with the optimal setting, the
house way's setting, its rule and its cost, the strategy card's and each loaded agent's choice),
practice (set dealt hands, see what each cost, a tally for the session) and the house-way audits
(scripts/report.py's breakdown by rule and hand category). The JSON API answers
``/api/analyze?game=G&style=S&cards=C`` with what ``scripts/analyze.py --game G --style S C
--exact --json`` prints, plus an ``explorer`` key (the card's and the agents' choices).

The dealer tables are loaded at start (617 MB each, memory-mapped) and the solver compiled: each
game's default house way (built first where it is not cached yet, once, with a progress bar:
about a minute or two each) and every other style already cached. Another style's table is built
in the background when first asked for; meanwhile the page says so and reloads itself. No request
waits on a build or a compile without saying so. "serving on http://HOST:PORT" is printed once
requests are answered.
Binds 127.0.0.1 by default: only this machine can reach it. Ctrl-C stops it (exit 130).

Examples:
    python scripts/serve.py
    python scripts/serve.py --port 8765 --model runs/paigow_setting/model.zip
    python scripts/serve.py --card configs/strategies/paigow_simple.yaml
    python scripts/serve.py --host 0.0.0.0 --port 80   # reachable from the network: think first

Load only models you trust (--model): a saved model can run code when it is loaded.
"""

# ruff: noqa: E402  (the Ctrl-C guard runs before the slow imports)
from __future__ import annotations

import sys

if __name__ == "__main__":
    from splitpoker.scripts.support.cli import install_startup_interrupt

    install_startup_interrupt()

import ipaddress
from pathlib import Path

from splitpoker.scripts.support import cli

CHECKOUT = Path(__file__).resolve().parents[1]


def port(text: str) -> int:
    """argparse type: a TCP port 0..65535 (0: any free port)."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text}: expected a port 0..65535 (0: any free port)")
    return value


def styles_list(text: str) -> tuple[str, ...]:
    """argparse type: a comma-separated list of house-way styles."""
    import argparse

    from splitpoker.envs.rules.house_ways.registry import STYLES

    out = tuple(s.strip() for s in text.split(",") if s.strip())
    bad = [s for s in out if s not in STYLES]
    if bad or not out:
        raise argparse.ArgumentTypeError(f"{text!r}: expected house-way styles separated by commas, of {', '.join(STYLES)}")
    return out


def parse_args(argv=None):
    p = cli.parser(__doc__)
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1: this machine only; 0.0.0.0 opens it to the network)")
    p.add_argument("--port", type=port, default=8765, help="port (default 8765; 0: any free port, printed)")
    p.add_argument("--model", action="append", default=[], metavar="PATH",
                   help="a saved model (model.zip of a setting env) to compare on every hand (repeatable; load "
                        "only models you trust)")
    p.add_argument("--reports", metavar="DIR", default=None,
                   help="house-way audits to show: a folder of <style>/report.json from scripts/report.py "
                        "(default: the checkout's docs/insight)")
    p.add_argument("--cards", metavar="DIR", default=None,
                   help="fitted strategy cards, <style>.yaml each (default: the shipped configs/strategies/fitted)")
    p.add_argument("--card", action="append", default=[], metavar="FILE",
                   help="a written strategy card (YAML, docs/strategy_insight.md) whose choice and cost are shown on "
                        "every hand of its game (repeatable), e.g. configs/strategies/paigow_simple.yaml")
    p.add_argument("--styles", type=styles_list, default=None, metavar="S,S",
                   help="house ways whose dealer tables are loaded at start, built first if need be (default: "
                        "each game's default house way and every other style already cached; the others are built in "
                        "the background when first asked for, and the page says so)")
    p.add_argument("--workers", type=cli.count(1, 16, "each solve uses every core"), default=2,
                   help="solves run at once (default 2; more requests wait in a queue of 64)")
    return p.parse_args(argv)


@cli.leaves_process_as_found
def main(argv=None) -> int:
    return cli.run_interruptible(run, parse_args(argv), "server stopped")


def check(args) -> None:
    """Every check before the slow start."""
    try:
        ipaddress.ip_address(args.host)
    except ValueError:
        if args.host != "localhost":
            raise cli.CliError(f"--host {args.host!r}: expected an IP address such as 127.0.0.1 (or localhost)") from None
    for m in args.model:
        if not Path(m).is_file():
            raise cli.CliError(f"--model {m}: no such file: expected a saved model .zip")
    for c in args.card:
        if not Path(c).is_file():
            raise cli.CliError(f"--card {c}: no such file: expected a strategy card .yaml")
    for flag, value in (("--reports", args.reports), ("--cards", args.cards)):
        if value is not None and not Path(value).is_dir():
            raise cli.CliError(f"{flag} {value}: no such folder")


def loopback(host: str) -> bool:
    return host == "localhost" or ipaddress.ip_address(host).is_loopback


def run(args) -> int:
    try:
        check(args)
    except cli.CliError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not loopback(args.host):
        print(f"warning: --host {args.host}: the explorer is reachable from the network (it has no login)",
              file=sys.stderr)
    from tqdm import tqdm

    def say(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    try:
        import uvicorn
    except ImportError:
        print("error: the explorer needs the serve extra: pip install -e '.[serve]' (make install does it)",
              file=sys.stderr)
        return 2

    from splitpoker.agents.explorer.app import create_app
    from splitpoker.agents.explorer.engine import Explorer

    reports = args.reports or (CHECKOUT / "docs" / "insight")
    try:
        explorer = Explorer(models=tuple(args.model), reports=reports, cards=args.cards,
                            written_cards=tuple(args.card), log=say)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    say("loading the dealer tables and compiling the solver (once; a table not cached yet is built first)")
    bars: dict[str, tqdm] = {}

    def progress(n: int) -> None:
        bar = bars.setdefault("build", tqdm(total=154_143_080, unit="hand", unit_scale=True, desc="dealer table",
                                            file=sys.stderr, leave=False))
        bar.update(n)

    seconds = explorer.preload(args.styles, progress=progress)
    for bar in bars.values():
        bar.close()
    say(f"ready in {seconds:.1f} s")
    app = create_app(explorer, workers=args.workers)
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning", lifespan="off",
                            limit_concurrency=256, timeout_graceful_shutdown=2)
    server = make_server(config)
    server.run()
    return 0


def make_server(config):
    """uvicorn's server, printing ``serving on http://HOST:PORT`` once its socket listens (the real
    port with --port 0)."""
    import uvicorn

    class Server(uvicorn.Server):
        async def startup(self, sockets=None):
            await super().startup(sockets)
            if self.started:
                host, port_ = self.servers[0].sockets[0].getsockname()[:2]
                print(f"serving on http://{host}:{port_}", flush=True)

    return Server(config)


if __name__ == "__main__":
    sys.exit(cli.finished(main()))
