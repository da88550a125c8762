"""Every flag of every script given bad values: exit code 2 and a message naming the flag and the
value, before any work (no output file, no cache entry, no run directory).

Each case calls the script's ``main(argv)`` in-process (fast); argparse's own refusals arrive as
``SystemExit(2)``. Cases are (script, argv, expected exit code, expected fragment of stderr).
"""

import importlib.util
import json
import math
import sys
from pathlib import Path

import pytest

import splitpoker  # noqa: F401  (numba's cache is chosen at this first import, before the fixture's cache dir)

ROOT = Path(__file__).resolve().parent.parent
C = "Qh Th 8h 3h Kd 5d Tc"
BIG = str(2**64)  # would alias seed 0 in a 64-bit (or 63-bit) generator
_modules = {}


def script(name):
    if name not in _modules:
        sys.path.insert(0, str(ROOT / "scripts"))  # demo.py imports evaluate.py
        spec = importlib.util.spec_from_file_location(f"_cli_{name}", ROOT / "scripts" / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _modules[name] = mod
    return _modules[name]


def call(name, argv, capsys):
    try:
        code = script(name).main([str(a) for a in argv])
    except SystemExit as e:
        code = e.code
    cap = capsys.readouterr()
    return code, cap.out, cap.err


@pytest.fixture
def files(tmp_path, monkeypatch):
    """Bad files to point flags at, and a cache directory that must stay empty."""
    monkeypatch.setenv("SPLITPOKER_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "afile").write_text("x")
    (tmp_path / "adir").mkdir()
    (tmp_path / "junk.zip").write_text("not a zip")
    (tmp_path / "bad.yaml").write_text("name: [unclosed")
    (tmp_path / "list.yaml").write_text("- 1\n- 2\n")
    (tmp_path / "field.yaml").write_text("name: t\ngame: asia\nkind: odds\nlines: []\nvig: 1\n")
    (tmp_path / "junk.csv").write_text("a,b\n1,2\n")
    return tmp_path


# (script, argv, exit code, fragment); "{t}" is replaced by the temporary folder of `files`
CASES = [
    # analyze.py
    ("analyze", ["--game", "asia"], 2, "the following arguments are required: cards"),
    ("analyze", [C], 2, "the following arguments are required: --game"),
    ("analyze", ["--game", "poker", C], 2, "argument --game: invalid choice: 'poker'"),
    ("analyze", ["--game", "asia", "--style", "nope", C], 2, "argument --style: invalid choice: 'nope'"),
    ("analyze", ["--game", "paigow", "--style", "asia-000", C], 2, "is for asia, not paigow"),
    ("analyze", ["--game", "asia", "Qh Th 8h 3h Kd 5d Tx"], 2, "unknown suit 'x'"),
    ("analyze", ["--game", "asia", "Qh Th 8h 3h Kd 5d Qh"], 2, "duplicate card"),
    ("analyze", ["--game", "asia", "Qh Th 8h 3h Kd 5d"], 2, "expected 7 cards, got 6"),
    ("analyze", ["--game", "asia", "--exact", "Qh Th 8h 3h Kd 5d"], 2, "expected 7 cards, got 6"),
    ("analyze", ["--game", "asia", "--samples", "0", C], 2, "argument --samples: 0: expected an integer 1..100,000,000"),
    ("analyze", ["--game", "asia", "--samples", "-5", C], 2, "argument --samples: -5: expected"),
    ("analyze", ["--game", "asia", "--samples", "100000001", C], 2, "argument --samples: 100000001: expected an integer 1..100,000,000 (time"),
    ("analyze", ["--game", "asia", "--samples", "1e3", C], 2, "argument --samples: '1e3' is not an integer"),
    ("analyze", ["--game", "asia", "--seed", "-1", C], 2, "argument --seed: -1: expected an integer 0..2**63-1"),
    ("analyze", ["--game", "asia", "--seed", BIG, C], 2, f"argument --seed: {BIG}: expected an integer 0..2**63-1"),
    ("analyze", ["--game", "asia", "--seed", str(2**63), C], 2, "would deal the same cards as another seed"),
    ("analyze", ["--game", "asia", "--seed", "x", C], 2, "argument --seed: 'x' is not an integer"),
    ("analyze", ["--game", "asia", "--rules", "[1]", C], 2, "must be a JSON object"),
    ("analyze", ["--game", "asia", "--rules", "{bad", C], 2, "is not a JSON object"),
    ("analyze", ["--game", "asia", "--rules", '{"vig": 1}', C], 2, "unknown AsiaRules option(s) ['vig']"),
    ("analyze", ["--game", "asia", "--top", "0", C], 2, "argument --top: 0: expected an integer 1..105"),
    ("analyze", ["--game", "asia", "--top", "106", C], 2, "argument --top: 106: expected an integer 1..105"),
    ("analyze", ["--game", "asia", "--top", "-1", C], 2, "argument --top: -1: expected"),
    ("analyze", ["--game", "asia", "--json=yes", C], 2, "argument --json: ignored explicit argument 'yes'"),
    ("analyze", ["--game", "asia", "--exact=1", C], 2, "argument --exact: ignored explicit argument '1'"),
    ("analyze", ["--game", "asia", "--include-fouled=1", C], 2, "argument --include-fouled: ignored explicit"),
    ("analyze", ["--game", "asia", "--frobnicate", C], 2, "unrecognized arguments: --frobnicate"),
    # bonus_table.py
    ("bonus_table", [], 2, "give --paytable NAME (see --list) or --paytable-file FILE"),
    ("bonus_table", ["--game", "poker", "--paytable", "seed-000"], 2, "argument --game: invalid choice: 'poker'"),
    ("bonus_table", ["--paytable", "nope"], 2, "unknown pay table 'nope'"),
    ("bonus_table", ["--game", "asia", "--paytable", "fortune"], 2, "is for game 'paigow', not 'asia'"),
    ("bonus_table", ["--paytable", "fortune", "--paytable-file", "{t}/field.yaml"], 2, "not both"),
    ("bonus_table", ["--paytable-file", "{t}/missing.yaml"], 2, "--paytable-file {t}/missing.yaml: cannot read it"),
    ("bonus_table", ["--paytable-file", "{t}/adir"], 2, "--paytable-file {t}/adir: cannot read it"),
    ("bonus_table", ["--paytable-file", "{t}/bad.yaml"], 2, "--paytable-file {t}/bad.yaml: not valid YAML"),
    ("bonus_table", ["--paytable-file", "{t}/list.yaml"], 2, "expected a mapping with name, game, kind and lines, got list"),
    ("bonus_table", ["--paytable-file", "{t}/field.yaml"], 2, "unknown pay table field(s) ['vig']"),
    ("bonus_table", ["--list=1"], 2, "argument --list: ignored explicit argument '1'"),
    ("bonus_table", ["--paytable", "seed-000", "--json=1"], 2, "argument --json: ignored explicit argument"),
    ("bonus_table", ["--paytable", "seed-000", "--no-cache=1"], 2, "argument --no-cache: ignored explicit"),
    # check_house_way.py
    ("check_house_way", [], 2, "the following arguments are required: --style"),
    ("check_house_way", ["--style", "nope"], 2, "argument --style: invalid choice: 'nope'"),
    ("check_house_way", ["--style", "asia-000", "--rules", "{bad"], 2, "--rules: "),
    ("check_house_way", ["--style", "paigow-igw", "--rules", '{"commission": 2}'], 2, "commission"),
    ("check_house_way", ["--style", "asia-000", "--max-tasks", "0"], 2, "argument --max-tasks: 0: expected"),
    ("check_house_way", ["--style", "asia-000", "--json=1"], 2, "argument --json: ignored explicit"),
    # simulate.py
    ("simulate", [], 2, "the following arguments are required: --game"),
    ("simulate", ["--game", "poker"], 2, "argument --game: invalid choice: 'poker'"),
    ("simulate", ["--game", "asia", "--style", "paigow-igw"], 2, "is for paigow, not asia"),
    ("simulate", ["--game", "asia", "--rounds", "0"], 2, "argument --rounds: 0: expected an integer 1..10,000,000,000"),
    ("simulate", ["--game", "asia", "--rounds", "-7"], 2, "argument --rounds: -7: expected"),
    ("simulate", ["--game", "asia", "--rounds", "10000000001"], 2, "argument --rounds: 10000000001: expected an integer 1..10,000,000,000 (time"),
    ("simulate", ["--game", "asia", "--rounds", "many"], 2, "argument --rounds: 'many' is not an integer"),
    ("simulate", ["--game", "asia", "--seed", "-1"], 2, "argument --seed: -1: expected an integer 0..2**63-1"),
    ("simulate", ["--game", "asia", "--seed", BIG], 2, f"argument --seed: {BIG}"),
    ("simulate", ["--game", "paigow", "--rules", "[1]"], 2, "must be a JSON object"),
    ("simulate", ["--game", "paigow", "--rules", '{"vig": 1}'], 2, "unknown PaiGowRules option(s) ['vig']"),
    ("simulate", ["--game", "paigow", "--json=1"], 2, "argument --json: ignored explicit"),
    # evaluate.py
    ("evaluate", ["--hands", "0"], 2, "argument --hands: 0: expected an integer 1..1,000,000"),
    ("evaluate", ["--hands", "1000001"], 2, "argument --hands: 1000001: expected an integer 1..1,000,000 (time and memory"),
    ("evaluate", ["--seed", "-3"], 2, "argument --seed: -3: expected an integer 0..2**63-1"),
    ("evaluate", ["--seed", BIG], 2, f"argument --seed: {BIG}"),
    ("evaluate", ["--mc-samples", "0"], 2, "argument --mc-samples: 0: expected"),
    ("evaluate", ["--mc-samples", "1000001"], 2, "argument --mc-samples: 1000001: expected"),
    ("evaluate", ["--regret-hands", "0"], 2, "argument --regret-hands: 0: expected"),
    ("evaluate", ["--env", "CartPole-v1"], 2, "unknown env id 'CartPole-v1'"),
    ("evaluate", ["--env-kwargs", "{bad"], 2, "argument --env-kwargs: '{bad' is not JSON"),
    ("evaluate", ["--env-kwargs", "[1]"], 2, "argument --env-kwargs: '[1]': expected a JSON object of config overrides"),
    ("evaluate", ["--model", "{t}/missing.zip"], 2, "--model {t}/missing.zip: no such file"),
    ("evaluate", ["--model", "{t}/junk.zip"], 2, "--model {t}/junk.zip: cannot load it as a saved model"),
    ("evaluate", ["--model", "greedy"], 2, "--model greedy: no such file, expected a saved model .zip or one of"),
    ("evaluate", ["--plot", "{t}/nofolder/p.png"], 2, "--plot {t}/nofolder/p.png: the folder {t}/nofolder does not exist"),
    ("evaluate", ["--plot", "{t}/p.jpg"], 2, "--plot {t}/p.jpg: expected a file ending in .png"),
    ("evaluate", ["--plot", "{t}/afile/p.png"], 2, "the folder {t}/afile is not a directory"),
    ("evaluate", ["--out", "{t}/nofolder/r.json"], 2, "--out {t}/nofolder/r.json: the folder {t}/nofolder does not exist"),
    ("evaluate", ["--out", "{t}/adir"], 2, "--out {t}/adir: expected a file ending in .json"),
    ("evaluate", ["--out", "{t}/r.txt"], 2, "--out {t}/r.txt: expected a file ending in .json"),
    ("evaluate", ["--json=1"], 2, "argument --json: ignored explicit"),
    ("evaluate", ["--solved", "{t}"], 2, "--solved {t}: only used with --regret or --model optimal"),
    ("evaluate", ["--solved", "{t}", "--regret"], 2, "{t} is not a solved store: manifest.json is missing"),
    ("evaluate", ["--regret=1"], 2, "argument --regret: ignored explicit"),
    # solve_sample.py
    ("solve_sample", ["--game", "asia", "--out", "{t}/s.csv"], 2, "the following arguments are required: --hands"),
    ("solve_sample", ["--game", "asia", "--hands", "2"], 2, "the following arguments are required: --out"),
    ("solve_sample", ["--hands", "2", "--out", "{t}/s.csv"], 2, "the following arguments are required: --game"),
    ("solve_sample", ["--game", "asia", "--hands", "0", "--out", "{t}/s.csv"], 2, "argument --hands: 0: expected an integer 1..1,000,000"),
    ("solve_sample", ["--game", "asia", "--hands", "1000001", "--out", "{t}/s.csv"], 2, "argument --hands: 1000001: expected an integer 1..1,000,000 (time"),
    ("solve_sample", ["--game", "asia", "--hands", "2", "--seed", "-1", "--out", "{t}/s.csv"], 2, "argument --seed: -1"),
    ("solve_sample", ["--game", "asia", "--hands", "2", "--seed", BIG, "--out", "{t}/s.csv"], 2, f"argument --seed: {BIG}"),
    ("solve_sample", ["--game", "asia", "--hands", "2", "--checkpoint", "0", "--out", "{t}/s.csv"], 2, "argument --checkpoint: 0: expected"),
    ("solve_sample", ["--game", "asia", "--hands", "2", "--max-pool-card", "13", "--out", "{t}/s.csv"], 2, "argument --max-pool-card: 13: expected an integer 14..52"),
    ("solve_sample", ["--game", "asia", "--hands", "2", "--max-pool-card", "54", "--out", "{t}/s.csv"], 2, "argument --max-pool-card: 54: expected an integer 14..52"),
    ("solve_sample", ["--game", "asia", "--hands", "2", "--max-pool-card", "53", "--out", "{t}/s.csv"], 2,
     "argument --max-pool-card: 53: expected an integer 14..52 (the dealer needs 7 unseen cards below K; "
     "leave the flag out for the real game)"),
    ("solve_sample", ["--game", "asia", "--hands", "2", "--out", "{t}/s.txt"], 2, "unknown extension '.txt'"),
    ("solve_sample", ["--game", "asia", "--hands", "2", "--out", "{t}/nofolder/s.csv"], 2, "--out {t}/nofolder/s.csv: the folder {t}/nofolder does not exist"),
    ("solve_sample", ["--game", "asia", "--hands", "2", "--out", "{t}/afile/s.csv"], 2, "the folder {t}/afile is not a directory"),
    ("solve_sample", ["--game", "asia", "--hands", "2", "--out", "{t}/junk.csv", "--max-pool-card", "20"], 2, "--out {t}/junk.csv: existing file has columns"),
    ("solve_sample", ["--game", "asia", "--style", "paigow-igw", "--hands", "2", "--out", "{t}/s.csv"], 2, "is for paigow, not asia"),
    ("solve_sample", ["--game", "asia", "--hands", "2", "--out", "{t}/s.csv", "--json=1"], 2, "argument --json: ignored explicit"),
    # benchmark.py
    ("benchmark", ["--only", "nope"], 2, "argument --only: invalid choice: 'nope'"),
    ("benchmark", ["--seconds", "0"], 2, "argument --seconds: 0: expected a number > 0 and <= 600"),
    ("benchmark", ["--seconds", "-1"], 2, "argument --seconds: -1: expected a number > 0"),
    ("benchmark", ["--seconds", "nan"], 2, "argument --seconds: nan: expected a number > 0"),
    ("benchmark", ["--seconds", "inf"], 2, "argument --seconds: inf: expected a number > 0"),
    ("benchmark", ["--seconds", "601"], 2, "argument --seconds: 601: expected a number > 0 and <= 600"),
    ("benchmark", ["--seconds", "two"], 2, "argument --seconds: 'two' is not a number"),
    ("benchmark", ["--repeats", "0"], 2, "argument --repeats: 0: expected an integer 1..100"),
    ("benchmark", ["--rounds", "5"], 2, "argument --rounds: 5: expected an integer 10,000..1,000,000,000"),
    ("benchmark", ["--exact-hands", "0"], 2, "argument --exact-hands: 0: expected an integer 1..1,000"),
    ("benchmark", ["--schedule-batches", "41"], 2, "argument --schedule-batches: 41: expected an integer 1..40"),
    ("benchmark", ["--schedule-batches", "0"], 2, "argument --schedule-batches: 0: expected an integer 1..40"),
    ("benchmark", ["--vector-envs", "0,64"], 2, "argument --vector-envs: '0,64': expected comma-separated integers 1..65,536"),
    ("benchmark", ["--vector-envs", "a,b"], 2, "argument --vector-envs: 'a,b': expected comma-separated integers"),
    ("benchmark", ["--vector-envs", "1000000"], 2, "argument --vector-envs: '1000000': expected comma-separated integers 1..65,536"),
    ("benchmark", ["--train-steps", "-1"], 2, "argument --train-steps: -1: expected an integer 0..10,000,000"),
    ("benchmark", ["--out", "{t}/nofolder/b.json"], 2, "--out {t}/nofolder/b.json: the folder {t}/nofolder does not exist"),
    ("benchmark", ["--out", "{t}/b.txt"], 2, "--out {t}/b.txt: expected a file ending in .json"),
    ("benchmark", ["--scorer-games", "blackjack"], 2,
     "argument --scorer-games: 'blackjack': expected a comma-separated list of ['paigow', 'asia']"),
    ("benchmark", ["--scorer-hands", "1"], 2, "argument --scorer-hands: 1: expected an integer 2..10,000"),
    ("benchmark", ["--only", "scorer", "--train-steps", "0"], 2, "--train-steps 0: the scorer section needs at least 1 timed step"),
    ("benchmark", ["--only", "env", "--scorer-light"], 2, "--scorer-light times rows of the scorer section, which this run leaves out"),
    ("benchmark", ["--serve-hands", "0"], 2, "argument --serve-hands: 0: expected an integer 1..10,000"),
    # serve.py (refused before any table is loaded)
    ("serve", ["--port", "70000"], 2, "argument --port: 70000: expected a port 0..65535"),
    ("serve", ["--port", "http"], 2, "argument --port: 'http' is not an integer"),
    ("serve", ["--workers", "0"], 2, "argument --workers: 0: expected an integer 1..16"),
    ("serve", ["--styles", "vegas"], 2, "argument --styles: 'vegas': expected house-way styles separated by commas"),
    ("serve", ["--host", "my laptop"], 2, "--host 'my laptop': expected an IP address such as 127.0.0.1"),
    ("serve", ["--model", "{t}/missing.zip"], 2, "--model {t}/missing.zip: no such file"),
    ("serve", ["--reports", "{t}/afile"], 2, "--reports {t}/afile: no such folder"),
    ("serve", ["--cards", "{t}/nofolder"], 2, "--cards {t}/nofolder: no such folder"),
    ("serve", ["--card", "{t}/nocard.yaml"], 2, "--card {t}/nocard.yaml: no such file"),
    # bench_card_removal.py
    ("bench_card_removal", ["--game", "blackjack"], 2, "argument --game: invalid choice: 'blackjack'"),
    ("bench_card_removal", ["--hands", "1"], 2, "argument --hands: 1: expected an integer 2..100,000"),
    ("bench_card_removal", ["--seed", "-1"], 2, "argument --seed: -1"),
    ("bench_card_removal", ["--set", "all"], 2, "argument --set: invalid choice: 'all'"),
    ("bench_card_removal", ["--margin", "0"], 2, "argument --margin: 0: expected a number > 0"),
    ("bench_card_removal", ["--policy", "oracle"], 2, "--policy oracle: no such file, expected a saved model .zip"),
    ("bench_card_removal", ["--reference", "oracle"], 2, "argument --reference: invalid choice: 'oracle'"),
    ("bench_card_removal", ["--out", "{t}/c.txt"], 2, "--out {t}/c.txt: expected a file ending in .json"),
    # demo.py
    ("bench_warm_start", ["--hands", "0"], 2, "argument --hands: 0: expected an integer 1..10,000,000"),
    ("bench_warm_start", ["--slow-hands", "x"], 2, "argument --slow-hands: 'x' is not an integer"),
    ("bench_warm_start", ["--game", "blackjack"], 2, "argument --game: invalid choice: 'blackjack'"),
    ("bench_warm_start", ["--out", "{t}/nowhere/w.json"], 2, "--out {t}/nowhere/w.json: the folder {t}/nowhere does not exist"),
    ("bench_scorer_speed", ["--steps", "0"], 2, "argument --steps: 0: expected an integer 1..10,000,000"),
    ("bench_scorer_speed", ["--game", "blackjack"], 2, "argument --game: invalid choice: 'blackjack'"),
    ("bench_scorer_speed", ["--out", "{t}/s.txt"], 2, "--out {t}/s.txt: expected a file ending in .json"),
    ("demo", ["--config", "{t}/missing.yaml"], 2, "--config {t}/missing.yaml: no such file"),
    ("demo", ["--timesteps", "0"], 2, "argument --timesteps: 0: expected an integer 1..100,000,000"),
    ("demo", ["--hands", "0"], 2, "argument --hands: 0: expected an integer 1..1,000,000"),
    ("demo", ["--seed", "-1"], 2, "argument --seed: -1: expected an integer 0..4,294,967,295"),
    ("demo", ["--seed", str(2**32)], 2, "argument --seed: 4294967296: expected an integer 0..4,294,967,295"),
    ("demo", ["--regret-hands", "-1"], 2, "argument --regret-hands: -1: expected an integer 0..10,000"),
    ("demo", ["--eval-seed", BIG], 2, f"argument --eval-seed: {BIG}"),
    ("demo", ["--log-dir", "{t}/afile"], 2, "--log-dir {t}/afile: exists and is not a directory"),
    ("demo", ["--no-progress=1"], 2, "argument --no-progress: ignored explicit"),
    # tune.py ({r}: the repository)
    ("tune", ["--algorithm", "PPO", "--timesteps", "100"], 2, "the following arguments are required: --config"),
    ("tune", ["--config", "{t}/missing.yaml", "--algorithm", "PPO", "--timesteps", "100"], 2,
     "benchmark config {t}/missing.yaml does not exist"),
    ("tune", ["--config", "{r}/configs/benchmark/smoke.yaml", "--algorithm", "SAC", "--timesteps", "100"], 2,
     "unknown algorithm name 'SAC'"),
    ("tune", ["--config", "{r}/configs/benchmark/smoke.yaml", "--algorithm", "MaskablePPO+MLP", "--timesteps", "100",
              "--env", "nope", "--out", "{t}/study"], 2, "unknown env label 'nope'"),
    ("tune", ["--config", "{r}/configs/benchmark/smoke.yaml", "--algorithm", "MaskablePPO+MLP", "--timesteps", "0"], 2,
     "argument --timesteps: 0: expected an integer 1..10,000,000,000"),
    ("tune", ["--config", "{r}/configs/benchmark/smoke.yaml", "--algorithm", "MaskablePPO+MLP", "--timesteps", str(10**12)], 2,
     "argument --timesteps: 1000000000000: expected an integer 1..10,000,000,000 (a bound against typos"),
    ("tune", ["--config", "{r}/configs/benchmark/smoke.yaml", "--algorithm", "MaskablePPO+MLP", "--timesteps", "100",
              "--trials", "0"], 2, "argument --trials: 0: expected an integer 1..10,000"),
    ("tune", ["--config", "{r}/configs/benchmark/smoke.yaml", "--algorithm", "MaskablePPO+MLP", "--timesteps", "100",
              "--eval-every", "-1"], 2, "argument --eval-every: -1: expected an integer 1.."),
    ("tune", ["--config", "{r}/configs/benchmark/smoke.yaml", "--algorithm", "MaskablePPO+MLP", "--timesteps", "100",
              "--eval-hands", "100000000"], 2, "argument --eval-hands: 100000000: expected an integer 2..100,000 (time"),
    ("tune", ["--config", "{r}/configs/benchmark/smoke.yaml", "--algorithm", "MaskablePPO+MLP", "--timesteps", "100",
              "--seed", "-1"], 2, "argument --seed: -1: expected an integer 0..4,294,967,295"),
    ("tune", ["--config", "{r}/configs/benchmark/smoke.yaml", "--algorithm", "MaskablePPO+MLP", "--timesteps", "100",
              "--seed", BIG], 2, f"argument --seed: {BIG}: expected an integer 0..4,294,967,295"),
    ("tune", ["--config", "{r}/configs/benchmark/smoke.yaml", "--algorithm", "MaskablePPO+MLP", "--timesteps", "100",
              "--out", "{t}/afile"], 2, "--out {t}/afile: is a file, expected a folder"),
    ("tune", ["--config", "{r}/configs/benchmark/smoke.yaml", "--algorithm", "MaskablePPO+MLP", "--timesteps", "100",
              "--out", "{t}/nofolder/study"], 2, "--out {t}/nofolder/study: the folder {t}/nofolder does not exist"),
    ("tune", ["--config", "{r}/configs/benchmark/smoke.yaml", "--algorithm", "MaskablePPO+MLP", "--timesteps", "100",
              "--json=1"], 2, "argument --json: ignored explicit"),
    # benchmark_rl.py
    ("benchmark_rl", [], 2, "the following arguments are required: --config"),
    ("benchmark_rl", ["--config", "{r}/configs/benchmark/smoke.yaml", "--report-only=1"], 2,
     "argument --report-only: ignored explicit argument '1'"),
    ("benchmark_rl", ["--config", "{t}/missing.yaml"], 2, "benchmark config {t}/missing.yaml does not exist"),
    ("benchmark_rl", ["--config", "{t}/bad.yaml"], 2, "is not valid YAML"),
    ("benchmark_rl", ["--config", "{r}/configs/benchmark/smoke.yaml", "--out", "{t}/afile"], 2,
     "--out {t}/afile: is a file, expected a folder"),
    ("benchmark_rl", ["--config", "{r}/configs/benchmark/smoke.yaml", "--out", "{t}/nofolder/deep/x"], 2,
     "--out {t}/nofolder/deep/x: the folder {t}/nofolder/deep does not exist (create it first)"),
    ("benchmark_rl", ["--config", "{r}/configs/benchmark/smoke.yaml", "--report", "{t}/afile/r.md"], 2,
     "--report {t}/afile/r.md: the folder {t}/afile is not a directory"),
    ("benchmark_rl", ["--config", "{r}/configs/benchmark/smoke.yaml", "--report", "{t}/r.txt"], 2,
     "--report {t}/r.txt: expected a file ending in .md"),
    ("benchmark_rl", ["--config", "{r}/configs/benchmark/smoke.yaml", "--append-report=1"], 2,
     "argument --append-report: ignored explicit"),
    ("benchmark_rl", ["--config", "{r}/configs/benchmark/smoke.yaml", "--no-ray", "--address", "ray://x:1"], 2,
     "--no-ray and --address contradict each other"),
    ("benchmark_rl", ["--config", "{r}/configs/benchmark/smoke.yaml", "--num-cpus", "2", "--address", "ray://x:1"], 2,
     "--num-cpus sizes a local Ray instance"),
    ("benchmark_rl", ["--config", "{r}/configs/benchmark/smoke.yaml", "--num-cpus", "0"], 2,
     "argument --num-cpus: 0: expected an integer 1..256"),
    ("benchmark_rl", ["--config", "{r}/configs/benchmark/smoke.yaml", "--no-ray=1"], 2, "argument --no-ray: ignored"),
    ("benchmark_rl", ["--config", "{r}/configs/benchmark/smoke.yaml", "--algorithms", "Nope"], 2,
     "unknown algorithm name 'Nope'"),
    ("benchmark_rl", ["--config", "{r}/configs/benchmark/smoke.yaml", "--envs", "nope"], 2, "unknown env label 'nope'"),
    ("benchmark_rl", ["--config", "{r}/configs/benchmark/smoke.yaml", "--references", "nope"], 2,
     "unknown reference policy 'nope'"),
    ("benchmark_rl", ["--config", "{r}/configs/benchmark/smoke.yaml", "--seeds", "a,b"], 2,
     "--seeds 'a,b': expected comma-separated integers"),
    ("benchmark_rl", ["--config", "{r}/configs/benchmark/smoke.yaml", "--seeds", str(2**32)], 2,
     "seeds=[4294967296]: expected a non-empty list of integers 0..4294967295"),
    ("benchmark_rl", ["--config", "{r}/configs/benchmark/smoke.yaml", "--total-timesteps", str(10**12)], 2,
     "argument --total-timesteps: 1000000000000: expected an integer 1..10,000,000,000"),
    ("benchmark_rl", ["--config", "{r}/configs/benchmark/smoke.yaml", "--eval-every", "0"], 2,
     "argument --eval-every: 0: expected an integer 1.."),
    ("benchmark_rl", ["--config", "{r}/configs/benchmark/smoke.yaml", "--eval-hands", "100000000"], 2,
     "argument --eval-hands: 100000000: expected an integer 2..100,000 (time and memory"),
    ("benchmark_rl", ["--config", "{r}/configs/benchmark/smoke.yaml", "--paired-hands", "1"], 2,
     "argument --paired-hands: 1: expected an integer 2..1,000,000"),
    ("benchmark_rl", ["--config", "{r}/configs/benchmark/smoke.yaml", "--check=1"], 2, "argument --check: ignored"),
    ("benchmark_rl", ["--config", "{r}/configs/benchmark/smoke.yaml", "--json=1"], 2, "argument --json: ignored"),
    # session_dp.py
    ("session_dp", ["--bankroll", "50", "--target", "100"], 2, "the following arguments are required: --game"),
    ("session_dp", ["--game", "poker", "--bankroll", "50", "--target", "100"], 2, "argument --game: invalid choice"),
    ("session_dp", ["--game", "asia", "--bankroll", "nan", "--target", "100"], 2,
     "argument --bankroll: nan: expected a number > 0"),
    ("session_dp", ["--game", "asia", "--bankroll", "50", "--target", "x"], 2, "argument --target: 'x' is not a number"),
    ("session_dp", ["--game", "asia", "--bankroll", "50", "--target", "1e9"], 2,
     "target $1e+09 on a $5 grid gives 200000000 states, more than the 6000"),
    ("session_dp", ["--game", "asia", "--bankroll", "50", "--target", "100", "--hands", "0"], 2,
     "argument --hands: 0: expected an integer 1..10,000"),
    ("session_dp", ["--game", "asia", "--bankroll", "50", "--target", "100", "--hands", "1000000000"], 2,
     "argument --hands: 1000000000: expected an integer 1..10,000 (memory"),
    ("session_dp", ["--game", "asia", "--bankroll", "50", "--target", "100", "--setter", "dealer"], 2,
     "argument --setter: invalid choice: 'dealer'"),
    ("session_dp", ["--game", "asia", "--bankroll", "50", "--target", "100", "--sample", "{t}/junk.csv"], 2,
     "--sample {t}/junk.csv: only used with --setter optimal"),
    ("session_dp", ["--game", "asia", "--bankroll", "50", "--target", "100", "--table", '{"ante_levels": []}'], 2,
     "ante_levels"),
    ("session_dp", ["--game", "asia", "--bankroll", "50", "--target", "100", "--rounds", "999"], 2,
     "argument --rounds: 999: expected an integer 1,000..10,000,000,000"),
    ("session_dp", ["--game", "asia", "--bankroll", "50", "--target", "100", "--seed", "-1"], 2,
     "argument --seed: -1: expected an integer 0..2**63-1"),
    ("session_dp", ["--game", "asia", "--bankroll", "50", "--target", "100", "--seed", str(2**64 - 1)], 2,
     f"argument --seed: {2**64 - 1}: expected an integer 0..2**63-1"),
    ("session_dp", ["--game", "asia", "--bankroll", "50", "--target", "100", "--json=1"], 2, "argument --json: ignored"),
    # evaluate_sessions.py
    ("evaluate_sessions", ["--model", "{t}/missing.zip"], 2, "model {t}/missing.zip does not exist"),
    ("evaluate_sessions", ["--env", "CartPole-v1"], 2, "--env 'CartPole-v1': expected a session env id"),
    ("evaluate_sessions", ["--env-kwargs", "[1]"], 2, "argument --env-kwargs: '[1]': expected a JSON object"),
    ("evaluate_sessions", ["--env-kwargs", '{"bankroll": 50, "target": 1000000000}'], 2,
     "target $1e+09 on a $5 grid gives 200000000 states, more than the 6000"),
    ("evaluate_sessions", ["--policies", "nope"], 2, "--policies 'nope': expected a comma-separated subset"),
    ("evaluate_sessions", ["--sessions", "0"], 2, "argument --sessions: 0: expected an integer 1..1,000,000"),
    ("evaluate_sessions", ["--sessions", "1000000000"], 2,
     "argument --sessions: 1000000000: expected an integer 1..1,000,000 (time"),
    ("evaluate_sessions", ["--seed", "-1"], 2, "argument --seed: -1: expected an integer 0..2**63-1"),
    ("evaluate_sessions", ["--rounds", "5"], 2, "argument --rounds: 5: expected an integer 1,000..10,000,000,000"),
    ("evaluate_sessions", ["--sample", "{t}/junk.csv"], 2,
     "--sample {t}/junk.csv: only used with a session env whose hands are set optimally"),
    ("evaluate_sessions", ["--json=1"], 2, "argument --json: ignored explicit"),
    ("evaluate_sessions", ["--plot", "{t}/nofolder/p.png"], 2,
     "--plot {t}/nofolder/p.png: the folder {t}/nofolder does not exist"),
    ("evaluate_sessions", ["--plot", "{t}/p.jpg"], 2, "--plot {t}/p.jpg: expected a file ending in .png"),
    ("evaluate_sessions", ["--out", "/nonexistent/dir/x.json"], 2,
     "--out /nonexistent/dir/x.json: the folder /nonexistent/dir does not exist"),
    ("evaluate_sessions", ["--out", "{t}/adir"], 2, "--out {t}/adir: expected a file ending in .json"),
    # dataset.py
    ("dataset", ["--policy", "table", "--episodes", "0", "--out", "{t}/d.parquet"], 2, "argument --episodes: 0: expected an integer 1"),
    ("dataset", ["--policy", "table", "--episodes", "2", "--seed", "-1", "--out", "{t}/d.parquet"], 2, "argument --seed: -1"),
    ("dataset", ["--policy", "table", "--episodes", "2", "--format", "hdf5", "--out", "{t}/d.parquet"], 2,
     "argument --format: invalid choice: 'hdf5'"),
    ("dataset", ["--policy", "table", "--episodes", "2", "--out", "{t}/d.csv"], 2, "--out {t}/d.csv: expected a file ending in .parquet"),
    ("dataset", ["--policy", "table", "--episodes", "2", "--out", "{t}/afile"], 2, "expected a file ending in .parquet"),
    ("dataset", ["--policy", "table", "--episodes", "2", "--reference-hands", "1", "--out", "{t}/d.parquet"], 2,
     "argument --reference-hands: 1: expected an integer 2"),
    ("dataset", ["--policy", "oracle", "--episodes", "2", "--out", "{t}/d.parquet"], 2, "--policy oracle: expected a saved model"),
    ("dataset", ["--policy", "{t}/none.zip", "--episodes", "2", "--out", "{t}/d.parquet"], 2, "the model file does not exist"),
    ("dataset", ["--env", "splitpoker/Nope-v0", "--policy", "table", "--episodes", "2", "--out", "{t}/d.parquet"], 2,
     "--env splitpoker/Nope-v0: unknown id"),
    ("dataset", ["--policy", "table", "--episodes", "2", "--env-kwargs", '{"house_way": "paigow-igw"}', "--out", "{t}/d.parquet"], 2,
     "--env-kwargs"),
    ("dataset", ["--policy", "table", "--episodes", "2", "--env-kwargs", "[1]", "--out", "{t}/d.parquet"], 2,
     "argument --env-kwargs: '[1]': expected a JSON object of env keywords"),
    ("dataset", ["--env", "splitpoker/PaiGowPokerSession-v0", "--policy", "table", "--episodes", "2", "--out", "{t}/d.parquet"], 2,
     "--policy table: expected a saved model .zip or one of dp, bold, flat, random"),
    # cache.py
    ("cache", ["--list", "--prune"], 2, "argument --prune: not allowed with argument --list"),
    ("cache", ["--prune", "--clear"], 2, "argument --clear: not allowed with argument --prune"),
    ("cache", ["--json=1"], 2, "argument --json: ignored explicit"),
]


@pytest.mark.parametrize("name,argv,code,fragment", CASES,
                         ids=[f"{c[0]}:{' '.join(c[1])[:60]}" for c in CASES])
def test_bad_input(files, capsys, name, argv, code, fragment):
    t = str(files)
    before = sorted(p.name for p in files.iterdir())
    got, out, err = call(name, [a.replace("{t}", t).replace("{r}", str(ROOT)) for a in argv], capsys)
    assert got == code, (got, err[-2000:])
    assert fragment.replace("{t}", t) in err, err[-2000:]
    assert "Traceback" not in err
    assert sorted(p.name for p in files.iterdir()) == before  # nothing created (cache dir included)


def parser_of(name, monkeypatch):
    """The argparse parser a script's main builds (caught at its parse_args call)."""
    import argparse

    class Got(Exception):
        pass

    def grab(self, *a, **kw):
        raise Got(self)

    with monkeypatch.context() as m:
        m.setattr(argparse.ArgumentParser, "parse_args", grab)
        try:
            script(name).main([])
        except Got as g:
            return g.args[0]
    raise AssertionError(f"{name}.main did not parse arguments")


# the JSON-object flags of the session scripts (one argparse type, splitpoker.scripts.support.cli.json_object); their
# other flags are tested in tests/test_session_scripts.py
JSON_FLAG_CASES = [
    ("evaluate_sessions", ["--env-kwargs", "{bad"], "argument --env-kwargs: '{bad' is not JSON"),
    ("evaluate_sessions", ["--env-kwargs", "[1]"], "argument --env-kwargs: '[1]': expected a JSON object of env keywords"),
    ("session_dp", ["--game", "asia", "--bankroll", "50", "--target", "100", "--table", "{bad"],
     "argument --table: '{bad' is not JSON"),
    ("session_dp", ["--game", "asia", "--bankroll", "50", "--target", "100", "--table", "[1]"],
     "argument --table: '[1]': expected a JSON object of table fields"),
]


@pytest.mark.parametrize("name,argv,fragment", JSON_FLAG_CASES)
def test_json_object_flags(files, capsys, name, argv, fragment):
    code, out, err = call(name, argv, capsys)
    assert code == 2 and fragment in err and not out


def test_every_flag_is_covered(monkeypatch):
    """Each option every script defines appears in at least one bad-input case."""
    missing = []
    for name in sorted({c[0] for c in CASES}):
        flags = {o for a in parser_of(name, monkeypatch)._actions for o in a.option_strings if o.startswith("--")}
        tried = {a.split("=")[0] for c in CASES if c[0] == name for a in c[1] if a.startswith("--")}
        missing += [f"{name} {f}" for f in sorted(flags - tried - {"--help"})]
    assert not missing
    assert len(CASES) >= 100


def strict_loads(text):
    def refuse(token):
        raise ValueError(f"non-standard JSON constant {token}")

    return json.loads(text, parse_constant=refuse)


def test_json_is_strict_and_undefined_is_null(files, capsys):
    """One hand: no spread, so the confidence intervals are undefined -> null, never NaN."""
    out_file = files / "r.json"
    code, out, err = call("evaluate", ["--hands", "1", "--json", "--out", out_file], capsys)
    assert code == 0, err
    rep = strict_loads(out)
    assert strict_loads(out_file.read_text()) == rep
    assert rep["policies"]["house-way"]["ci95"] is None
    assert not list(files.glob(".*tmp"))  # atomic write left nothing behind


def test_cli_helpers():
    from splitpoker.scripts.support import cli

    assert cli.dumps({"a": math.nan, "b": [math.inf, 1.5], "c": 2}) == '{\n "a": null,\n "b": [\n  null,\n  1.5\n ],\n "c": 2\n}'
    import numpy as np

    assert json.loads(cli.dumps({"x": np.float32(0.5), "y": np.int64(3), "z": np.array([1, 2])})) == \
        {"x": 0.5, "y": 3, "z": [1, 2]}
    assert cli.seed("0") == 0 and cli.seed(str(2**63 - 1)) == 2**63 - 1
    with pytest.raises(Exception, match="0..2\\*\\*63-1"):
        cli.seed(str(2**63))


def test_env_of_models_reconciles_ids_and_keywords():
    """The env of saved models (evaluate.py, evaluate_sessions.py): --env wins if every model was
    trained on it; keywords: the earlier model's win, --env-kwargs over all."""
    from types import SimpleNamespace

    from splitpoker.scripts.support.cli import env_of_models

    a = SimpleNamespace(env_id="splitpoker/AsiaPokerSetting-v0", resolved_env_kwargs={"x": 1, "y": 1})
    b = SimpleNamespace(env_id="splitpoker/AsiaPokerSetting-v0", resolved_env_kwargs={"y": 2, "z": 2})
    given = {"z": 3}
    assert env_of_models([("a", a), ("none", None), ("b", b)], None, given) == (
        "splitpoker/AsiaPokerSetting-v0", {"x": 1, "y": 1, "z": 3})
    assert given == {"z": 3}  # not modified
    assert env_of_models([], None, {}) == (None, {})
    with pytest.raises(ValueError, match="model b was trained on splitpoker/AsiaPokerSetting-v0, not X-v0"):
        env_of_models([("b", b)], "X-v0", {})


@pytest.mark.parametrize("name", ["evaluate", "evaluate_sessions"])
def test_a_model_of_another_env_is_refused_naming_both_spaces(files, capsys, name):
    """A Pai Gow model copied away from its config.yaml: evaluate.py would default to the Asia
    env and fail in torch with a shape error; it must say what the model and the env take."""
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    env_id = "splitpoker/PaiGowPokerSetting-v0" if name == "evaluate" else "splitpoker/PaiGowPokerSession-v0"
    model = MaskablePPO("MlpPolicy", gym.make(env_id), n_steps=8, batch_size=8, policy_kwargs={"net_arch": [8]})
    model.save(files / "copy.zip")
    code, out, err = call(name, ["--model", files / "copy.zip"], capsys)
    assert code == 2, err[-2000:]
    expected = "21 actions" if name == "evaluate" else "actions"
    assert f"--model {files / 'copy.zip'}: the model takes" in err and expected in err, err[-2000:]
    assert "--env" in err and "Traceback" not in err
