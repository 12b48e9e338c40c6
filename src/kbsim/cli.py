"""The ``kbsim`` command line (typer). Thin: parse, validate, call the library, print.

Every user error is one line on stderr starting with ``kbsim: error:`` and
exit code 2, never a traceback; a failed run leaves existing files untouched.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table

from kbsim import __version__

app = typer.Typer(
    name="kbsim",
    help="Simulate shared-tableau card games (Kingsbridge first) from rule files, and check those rule files.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
rules_app = typer.Typer(help="Check, show, test and describe rule files.", no_args_is_help=True,
                        rich_markup_mode=None)
app.add_typer(rules_app, name="rules")

out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


class UserError(Exception):
    """A problem with the user's input: printed as one line, exit code 2."""


def fail(message: str) -> None:
    raise UserError(message)


def _version(value: bool) -> None:
    if value:
        print(f"kbsim {__version__}")
        raise typer.Exit()


@app.callback()
def _main(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                help="Print the version and exit.")] = False) -> None:
    """kbsim: rules-driven simulation and reference toolkit for shared-tableau card games."""


# ------------------------------------------------------------------ helpers
def _parse_options(pairs: list[str]) -> dict:
    from kbsim.rules.loader import parse_option_value

    opts = {}
    for p in pairs:
        if "=" not in p:
            fail(f"--option {p!r}: expected KEY=VALUE, e.g. --option hand_size=7")
        k, v = p.split("=", 1)
        opts[k.strip()] = parse_option_value(v.strip())
    return opts


def _load(game: str, variants: list[str], options: list[str]):
    from kbsim.engine.compiled import compile_rules
    from kbsim.rules.loader import RulesError, load_rules

    try:
        loaded = load_rules(game, variants, _parse_options(options))
    except RulesError as e:
        fail(str(e).replace("\n", "; "))
    return loaded, compile_rules(loaded)


def _check_players(game, players: int, loaded=None) -> None:
    if not game.min_players <= players <= game.max_players:
        hint = ""
        if loaded is not None:
            fits = [name for name, v in loaded.model.variants.items()
                    if isinstance(v.overlay.get("players"), dict)
                    and v.overlay["players"].get("min", 0) <= players <= v.overlay["players"].get("max", 99)]
            if fits:
                hint = f" (for {players} player(s) try --variant {' or '.join(fits)})"
        fail(f"--players {players}: {game.game} ({game.variant}) is played by {game.min_players} to "
             f"{game.max_players} players{hint}")


GameOpt = Annotated[str, typer.Option("--game", "-g", help="Shipped game name or path to a rule file.")]
VariantOpt = Annotated[list[str], typer.Option(
    "--variant", "-v", help="Variant declared in the rule file (repeatable, applied in order).")]
OptionOpt = Annotated[list[str], typer.Option(
    "--option", "-o", metavar="KEY=VALUE", help="Set a named rule option, e.g. rebuild_segments=either (repeatable).")]
BotsOpt = Annotated[str, typer.Option("--bots", "-b", help="One bot for all seats (greedy) or one per seat "
                                      "(greedy,random,greedy,greedy). Bots: random, greedy, planner "
                                      "(market games: random, greedy).")]


# ------------------------------------------------------------------ run
@app.command()
def run(
    players: Annotated[int, typer.Option("--players", "-p", help="Seats per game (Kingsbridge: 2-5).")] = 4,
    games: Annotated[int, typer.Option("--games", "-n", help="Number of games to play.")] = 1000,
    game: GameOpt = "kingsbridge",
    variant: VariantOpt = [],  # noqa: B006 - typer reads the default
    option: OptionOpt = [],  # noqa: B006
    seed: Annotated[Optional[int], typer.Option(help="Run seed (>= 0); without it one is picked and printed.")] = None,
    bots: BotsOpt = "greedy",
    workers: Annotated[Optional[int], typer.Option(help="Worker processes (default: all cores).")] = None,
    backend: Annotated[str, typer.Option(help="Where games run: processes (default), serial, or dask.")]
    = "processes",
    scheduler: Annotated[Optional[str], typer.Option(
        help="Dask scheduler address (tcp://HOST:8786) for --backend dask; without it a LocalCluster starts.")]
    = None,
    chunk_size: Annotated[Optional[int], typer.Option(help="Games per chunk (default: about 8 chunks per worker, "
                                                      "at most 500).")] = None,
    out_path: Annotated[Optional[Path], typer.Option("--out", help="Parquet file for the records (default: "
                                                     "runs/GAME-VARIANT-Pp-seedS-nN.parquet).")] = None,
    resume: Annotated[bool, typer.Option(help="Complete an interrupted run with the same arguments: only the "
                                         "missing chunks are played.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON on stdout.")] = False,
    check: Annotated[bool, typer.Option(help="Check invariants (cards conserved, rows legal) after every move.")]
    = False,
    progress: Annotated[bool, typer.Option(help="Show a progress bar (on a terminal).")] = True,
) -> None:
    """Play many seeded games, write one record per game to Parquet, print a summary.

    Finished chunks are saved as they arrive (OUT.parts/); an interrupted run is
    completed with the same command plus --resume. Example: kbsim run --players 4 --games 10000
    """
    import signal

    from kbsim.analysis.summary import Summary
    from kbsim.bots import UnknownBot, parse_bots
    from kbsim.sim.output import OutputError, RunOutput
    from kbsim.sim.runner import (
        BACKENDS,
        BackendError,
        DaskBackend,
        RunSpec,
        default_chunk_size,
        default_workers,
        plan_chunks,
        run_chunks,
    )
    from kbsim.sim.seeding import MAX_SEED, new_run_seed

    if games < 1:
        fail(f"--games {games}: expected a number of games >= 1")
    if seed is not None and not 0 <= seed <= MAX_SEED:
        fail(f"--seed {seed}: expected an integer from 0 to {MAX_SEED}")
    if workers is not None and workers < 1:
        fail(f"--workers {workers}: expected at least 1")
    if chunk_size is not None and chunk_size < 1:
        fail(f"--chunk-size {chunk_size}: expected at least 1")
    if backend not in BACKENDS:
        fail(f"--backend {backend!r}: expected one of: {', '.join(BACKENDS)}")
    if scheduler and backend != "dask":
        fail("--scheduler needs --backend dask")
    loaded, g = _load(game, variant, option)
    _check_players(g, players, loaded)
    try:
        bot_names = parse_bots(bots, players, g.family)
    except UnknownBot as e:
        fail(str(e))
    chosen_seed = seed is None
    if seed is None:
        if resume:
            fail("--resume needs the --seed of the interrupted run")
        seed = new_run_seed()
    n_workers = workers or default_workers()
    spec = RunSpec(game=g, players=players, bots=tuple(bot_names), games=games, seed=seed, check=check)
    if out_path is None:
        # the run id (a hash of every parameter that decides the records) keeps different runs apart
        out_path = Path("runs") / f"{g.game}-{g.variant}-{players}p-seed{seed}-n{games}-{spec.run_id}.parquet"
        out_path.parent.mkdir(parents=True, exist_ok=True)
    stored = RunOutput.stored_parameters(out_path) if resume else None
    if chunk_size is None and stored and "chunk_size" in stored:
        chunk_size = stored["chunk_size"]  # a resume keeps the chunks of the interrupted run
    size = chunk_size or default_chunk_size(games, n_workers)
    params = spec.parameters() | {"chunk_size": size}
    try:
        output = RunOutput(out_path, params, __version__, resume=resume)
    except OutputError as e:
        fail(str(e))
    if chosen_seed:
        err.print(f"kbsim: no --seed given; using --seed {seed}", highlight=False)
    if backend == "dask":
        be = DaskBackend(workers=n_workers, scheduler=scheduler)
    else:
        be = BACKENDS[backend](workers=n_workers if backend != "serial" else 1)
    done = output.done_chunks()
    todo = [c for c in plan_chunks(games, size) if (c.start, c.stop) not in done] if not output.complete else []
    summary = Summary(*(g.score[3:5] if g.score else ()))

    def on_sigterm(signum, frame):  # turn SIGTERM into the same clean stop as Ctrl-C
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    t0 = time.perf_counter()
    try:
        if todo:
            show = progress and err.is_terminal
            if show:
                from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

                with Progress(TextColumn("[bold]playing"), BarColumn(), MofNCompleteColumn(), TextColumn("games"),
                              TimeRemainingColumn(), console=err, transient=True) as bar:
                    task = bar.add_task("games", total=games, completed=games - sum(len(c) for c in todo))

                    def on_chunk(chunk, cols):
                        output.write_chunk(chunk, cols)
                        bar.advance(task, len(chunk))

                    run_chunks(spec, be, todo, on_chunk)
            else:
                run_chunks(spec, be, todo, output.write_chunk)
        seconds = time.perf_counter() - t0
        output.finalize()
    except KeyboardInterrupt:
        safe = output.games_safe()
        print(f"kbsim: interrupted; {safe} of {games} games are safe in {output.parts}; "
              f"run the same command with --resume to complete it", file=sys.stderr)
        sys.exit(130)
    except BackendError as e:
        output.discard_if_empty()
        fail(str(e))
    except Exception as e:  # a worker died, a disk filled up...
        if isinstance(e, (UserError, SystemExit)):
            raise
        output.discard_if_empty()
        safe = output.games_safe()
        print(f"kbsim: error: the run failed ({type(e).__name__}: {e}); {safe} of {games} games are safe in "
              f"{output.parts}; run the same command with --resume to complete it", file=sys.stderr)
        sys.exit(1)
    finally:
        signal.signal(signal.SIGTERM, previous)
    # the summary is computed from the file, chunk by chunk (flat memory)
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(out_path)
    for i in range(pf.num_row_groups):
        summary.add(pf.read_row_group(i, columns=["game_index", "players", "winners", "end_reason",
                                                    "turns", "score", "hands"]).to_pydict())
    result = summary.result(seconds if todo else None)
    result.update({"game": g.game, "variant": g.variant, "options": loaded.changed, "bots": bot_names,
                   "seed": seed, "out": str(out_path), "workers": be.workers, "backend": be.name,
                   "seconds": seconds, "games_played_now": sum(len(c) for c in todo)})
    if getattr(g, "provisional", None):  # rules whose data is not the published one (e.g. a card list)
        result["provisional"] = g.provisional
    if json_out:
        print(json.dumps(result, indent=2))
    else:
        _print_summary(result)


def _print_summary(s: dict) -> None:
    opts = ", ".join(f"{k}={v}" for k, v in s["options"].items()) or "defaults"
    out.print(f"[bold]{s['game']}[/] variant {s['variant']} ({opts}), {s['players']} players, "
              f"bots {','.join(s['bots'])}, seed {s['seed']}")
    t = Table(title=f"{s['games']} games")
    for c in ("seat", "sole wins", "win rate", "95% interval", "shared wins"):
        t.add_column(c, justify="right")
    for seat in s["seats"]:
        lo, hi = seat["win_ci95"]
        t.add_row(str(seat["seat"]), str(seat["wins"]), f"{seat['win_rate']:.1%}", f"{lo:.1%} - {hi:.1%}",
                  str(seat["shared_wins"]))
    out.print(t)
    r = s["end_reasons"]
    out.print(f"ended by a win {r['won']['rate']:.1%}, all out (solo/cooperative) {r['all_out']['rate']:.1%}, "
              f"stalemate {r['stalemate']['rate']:.1%} "
              f"({r['stalemate']['ci95'][0]:.1%} - {r['stalemate']['ci95'][1]:.1%}), turn limit "
              f"{r['turn_limit']['rate']:.1%}; shared-win games {s['shared_win_games']}")
    if s.get("score"):
        sc = s["score"]
        out.print(f"team score: mean {sc['mean']:.2f} (min {sc['min']}, max {sc['max']}); won (>= "
                  f"{sc['won']['threshold']}) {sc['won']['rate']:.1%} ({sc['won']['ci95'][0]:.1%} - "
                  f"{sc['won']['ci95'][1]:.1%}); expert (>= {sc['expert']['threshold']}) {sc['expert']['rate']:.1%}",
                  highlight=False)
        out.print("score distribution: " + ", ".join(f"{v}: {c}" for v, c in sc["distribution"].items()),
                  highlight=False)
    tu = s["turns"]
    if s.get("hands_per_game") and s["hands_per_game"] > 1:
        out.print(f"hands per match: mean {s['hands_per_game']:.2f}", highlight=False)
    out.print(f"turns per game: mean {tu['mean']:.1f}, median {tu['median']:.0f}, 95th percentile {tu['p95']:.0f}")
    speed = (f"{s['games_per_second']:.0f} games/s on {s['workers']} worker(s) ({s['backend']}), "
             f"{s['seconds']:.2f} s" if s["games_per_second"] else "nothing left to play")
    out.print(f"{speed}; records: {s['out']}", highlight=False)
    if s.get("provisional"):
        out.print(f"provisional data: {s['provisional']}", highlight=False)


# ------------------------------------------------------------------ replay
@app.command()
def replay(
    seed: Annotated[int, typer.Option(help="The run seed of the run the game belongs to.")],
    game_index: Annotated[int, typer.Option("--game-index", "-i", help="Index of the game in that run.")],
    players: Annotated[int, typer.Option("--players", "-p", help="Seats.")] = 4,
    game: GameOpt = "kingsbridge",
    variant: VariantOpt = [],  # noqa: B006
    option: OptionOpt = [],  # noqa: B006
    bots: BotsOpt = "greedy",
    json_out: Annotated[bool, typer.Option("--json", help="Print the log as JSON.")] = False,
) -> None:
    """Replay one game of a run (same seed, index, players, variant, bots) and print its move log."""
    from kbsim.bots import UnknownBot, make_bot, parse_bots
    from kbsim.engine.game import play_game
    from kbsim.engine.notation import format_cards, format_move
    from kbsim.sim.seeding import game_seed

    if game_index < 0:
        fail(f"--game-index {game_index}: expected an index >= 0")
    if seed < 0:
        fail(f"--seed {seed}: expected an integer >= 0")
    loaded, g = _load(game, variant, option)
    _check_players(g, players, loaded)
    try:
        names = parse_bots(bots, players, g.family)
    except UnknownBot as e:
        fail(str(e))
    gs = game_seed(seed, game_index)
    if g.family != "rows":  # a market game: its own notation (kbsim.engine.market)
        from kbsim.engine.market import replay_market_log

        res = play_game(g, [make_bot(n, g.family) for n in names], gs, check=True, log=True)
        lines = replay_market_log(g, players, gs, res.log)
        if json_out:
            print(json.dumps({"seed": gs, "winners": list(res.winners), "end_reason": res.end_reason,
                              "turns": res.turns, "scores": res.scores, "log": lines}, indent=2))
            return
        for ln in lines:
            out.print(f"{ln['turn']:>4} seat {ln['seat']}: {'; '.join(ln['moves'])}   market: "
                      f"{' | '.join(ln['market'])}", highlight=False)
        out.print(f"end: {res.end_reason}, winners {list(res.winners)}, scores {res.scores}")
        return
    from kbsim.engine.game import replay_hands, state_hash

    res = play_game(g, [make_bot(n, g.family) for n in names], gs, check=True, log=True)

    def cards(cs) -> str:
        return format_cards(cs, g) or "_"

    # render moves against a replayed board (each hand on its own deal) so rebuilds show their first card
    hands_out = []
    for ev in replay_hands(g, players, res):
        if ev[0] == "deal":
            st = ev[2]
            hands_out.append({"hand": ev[1] + 1, "deal_hash": state_hash(st),
                              "deal": {"rows": [cards(r) for r in st.rows],
                                       "hands": [cards(h) for h in st.hands],
                                       "piles": [cards(p[::-1]) for p in st.piles]},
                              "log": []})
            continue
        _, turn_no, seat, done, st = ev
        hands_out[-1]["log"].append({
            "turn": turn_no, "seat": seat, "moves": [format_move(m, rb, g) for m, rb in done],
            "rows": [cards(r) for r in st.rows], "hands": [cards(h) for h in st.hands],
            "piles": [cards(p[::-1]) for p in st.piles]})
    if json_out:
        print(json.dumps({"seed": gs, "winners": list(res.winners), "end_reason": res.end_reason,
                          "turns": res.turns, "score": res.score, "deal_hash": res.deal_hash,
                          "log": [ln for h in hands_out for ln in h["log"]], "hands": hands_out}, indent=2))
        return
    out.print(f"game {game_index} of run seed {seed}: game seed {gs}, {players} players, bots {','.join(names)}, "
              f"deal hash {res.deal_hash}")
    for h in hands_out:
        d = h["deal"]
        if len(hands_out) > 1:
            out.print(f"hand {h['hand']} (deal hash {h['deal_hash']})", highlight=False)
        out.print(f"deal: rows {' | '.join(d['rows'])}", highlight=False)
        for k in range(players):
            out.print(f"  seat {k}: hand {d['hands'][k]}; pile (top first) {d['piles'][k]}", highlight=False)
        for ln in h["log"]:
            out.print(f"{ln['turn']:>4} seat {ln['seat']}: {'; '.join(ln['moves'])}   rows: {' | '.join(ln['rows'])}",
                      highlight=False)
    score = f", score {res.score}" if res.score is not None else ""
    out.print(f"end: {res.end_reason}, winners {list(res.winners)}, cards left {res.cards_left}{score}")


# ------------------------------------------------------------------ rules
@rules_app.command("check")
def rules_check(files: Annotated[Optional[list[str]], typer.Argument(help="Rule files or game names "
                                                                      "(default: every shipped rule file).")]
                = None) -> None:
    """Validate rule files; print every problem with its field path."""
    from kbsim.rules.loader import RulesError, load_rules, shipped_games

    targets = files or shipped_games()
    bad = 0
    for f in targets:
        try:
            loaded = load_rules(f)
            for v in loaded.model.variants:
                load_rules(f, [v])
        except RulesError as e:
            bad += 1
            for line in e.lines:
                err.print(f"kbsim: error: {line}", highlight=False, markup=False)
            continue
        out.print(f"ok: {loaded.source} ({loaded.model.title}, {len(loaded.model.options)} options, "
                  f"{len(loaded.model.variants)} variants, {len(loaded.model.examples)} examples)", highlight=False)
    if bad:
        raise typer.Exit(2)


@rules_app.command("show")
def rules_show(game: Annotated[str, typer.Argument(help="Game name or rule file.")] = "kingsbridge",
               variant: VariantOpt = [],  # noqa: B006
               option: OptionOpt = [],  # noqa: B006
               json_out: Annotated[bool, typer.Option("--json", help="Print the validated rules as JSON.")] = False
               ) -> None:
    """Print a readable summary of a game's rules, options and variants."""
    loaded, g = _load(game, variant, option)
    m = loaded.model
    if json_out:
        print(m.model_dump_json(indent=2, by_alias=True))
        return
    out.print(f"[bold]{m.title}[/] ({m.game}), {m.players.min}-{m.players.max} players — {loaded.source}")
    out.print(m.summary, highlight=False)
    sections = m.sections()
    for title, text in sections:
        out.print(f"\n[bold]{title}[/]\n{text}", highlight=False)
    t = Table(title="Options (value in force; * = changed from the file's default)")
    for c in ("option", "value", "confidence", "meaning"):
        t.add_column(c)
    for name, opt in m.options.items():
        mark = "*" if name in loaded.changed else ""
        t.add_row(name, f"{loaded.options[name]}{mark}", opt.confidence, opt.summary)
    out.print(t)
    t = Table(title="Variants (--variant NAME)")
    t.add_column("variant")
    t.add_column("sets")
    t.add_column("meaning")
    for name, v in m.variants.items():
        t.add_row(name, ", ".join(f"{k}={val}" for k, val in v.options.items()) or "overlay", v.summary)
    out.print(t)


@rules_app.command("schema")
def rules_schema(family: Annotated[str, typer.Option(
        help="Which rule files: rows (Kingsbridge, King's Corners), market (Continental Express) or all.")]
        = "all") -> None:
    """Print the JSON Schema of rule files (for editors and validators)."""
    from pydantic.json_schema import models_json_schema

    from kbsim.rules.market_schema import MarketRuleFile
    from kbsim.rules.schema import RuleFile

    models = {"rows": [RuleFile], "market": [MarketRuleFile], "all": [RuleFile, MarketRuleFile]}
    if family not in models:
        fail(f"--family {family!r}: expected one of: {', '.join(models)}")
    if len(models[family]) == 1:
        schema = models[family][0].model_json_schema(by_alias=True)
    else:
        refs, schema = models_json_schema([(m, "validation") for m in models[family]], by_alias=True,
                                          title="kbsim rule file")
        schema["anyOf"] = [refs[(m, "validation")] for m in models[family]]
    print(json.dumps(schema, indent=2))


@rules_app.command("test")
def rules_test(files: Annotated[Optional[list[str]], typer.Argument(
        help="Rule files / game names to run the examples of, or extra example files "
             "(a YAML file with `rules:` and `examples:`). Default: every shipped rule file.")] = None) -> None:
    """Run the executable examples; print each failure; exit 1 if any fails."""
    from kbsim.engine.examples import load_example_file, run_example, run_examples
    from kbsim.rules.loader import RulesError, find_rule_file, read_document, shipped_games

    targets = files or shipped_games()
    results = []
    for f in targets:
        try:
            p = find_rule_file(f)
            doc = read_document(p)
            if "examples" in doc and "game" not in doc:
                exf = load_example_file(p)
                base = find_rule_file(exf.rules)
                results.extend(run_example(base, ex) for ex in exf.examples)
            else:
                results.extend(run_examples(p))
        except RulesError as e:
            fail(str(e).replace("\n", "; "))
    failed = [r for r in results if not r.ok]
    for r in failed:
        err.print(f"FAIL {r.source} :: {r.name}: {r.message}", highlight=False, markup=False)
    print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
    if failed:
        raise typer.Exit(1)


# ------------------------------------------------------------------ report / compare
def _print_report(result, head: list[str], json_out: bool, extra: dict) -> None:
    if json_out:
        print(json.dumps(result.as_json() | extra, indent=2, default=str))
        return
    print(f"report: {result.path} ({result.size / 1e6:.1f} MB, {result.figures} figures, "
          f"rendered in {result.seconds:.1f} s)")
    for line in head + result.summary:
        print(line)


@app.command()
def report(
    study: Annotated[str, typer.Argument(help="Study file (reports/NAME.toml or .yaml), or a study name.")],
    out_path: Annotated[Optional[Path], typer.Option("--out", "-o", help="HTML file to write (default: "
                                                     "_build/NAME.html beside the study file).")] = None,
    records: Annotated[Optional[Path], typer.Option(help="Folder for the records of the study's cells (default: "
                                                    "_build/records/NAME/ beside the study file).")] = None,
    games: Annotated[Optional[int], typer.Option("--games", "-n", help="Deals per cell instead of the study's "
                                                 "(for a quick look; records are kept apart).")] = None,
    workers: Annotated[Optional[int], typer.Option(help="Worker processes (default: all cores).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON on stdout.")] = False,
    progress: Annotated[bool, typer.Option(help="Show a progress bar (on a terminal).")] = True,
) -> None:
    """Play a study's missing cells (records on disk are reused), then write one self-contained HTML page.

    Example: kbsim report reports/seat-advantage
    """
    from kbsim.analysis.report import ReportError, write_report
    from kbsim.analysis.study import StudyError, load_study, plan_study, report_input, run_study

    if workers is not None and workers < 1:
        fail(f"--workers {workers}: expected at least 1")
    if games is not None and games < 1:
        fail(f"--games {games}: expected a number of games >= 1")
    try:
        plan = plan_study(load_study(study), records_dir=records, games=games)
    except StudyError as e:
        fail(e.one_line())
    try:
        if progress and err.is_terminal and not json_out:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            with Progress(TextColumn("[bold]playing"), BarColumn(), MofNCompleteColumn(), TextColumn("games"),
                          TimeRemainingColumn(), console=err, transient=True) as bar:
                task = bar.add_task("games", total=None)
                stats = run_study(plan, workers, progress=lambda done, total: bar.update(task, total=total,
                                                                                         completed=done))
        else:
            stats = run_study(plan, workers)
        result = write_report(report_input(plan), out_path or plan.source.parent / "_build" / f"{plan.study.name}.html")
    except (StudyError, ReportError) as e:
        fail(str(e).replace("\n", "; "))
    except KeyboardInterrupt:
        print(f"kbsim: interrupted; finished chunks are kept in {plan.records_dir}; run the same command again "
              f"to continue", file=sys.stderr)
        sys.exit(130)
    head = [f"games: {stats.games_played:,} played now in {stats.played} of {stats.runs} runs, {stats.reused} runs "
            f"reused from {plan.records_dir}"]
    _print_report(result, head, json_out, {"study": str(plan.source), "runs": stats.runs, "runs_reused": stats.reused,
                                           "runs_played": stats.played, "games_played": stats.games_played,
                                           "records": str(plan.records_dir)})


@app.command()
def compare(
    files: Annotated[list[Path], typer.Argument(help="Records files (Parquet) written by kbsim run or kbsim "
                                                "report; the first file's arm is the baseline.")],
    out_path: Annotated[Optional[Path], typer.Option("--out", "-o", help="HTML file to write (default: "
                                                     "reports/_build/compare-….html).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON on stdout.")] = False,
) -> None:
    """Build a report page from existing records: arms side by side, paired on shared deals.

    Files with the same variant, options and bots form one arm. Example:
    kbsim compare runs/base.parquet runs/either-end.parquet -o compare.html
    """
    from kbsim.analysis.report import ReportError, compare_input, write_report

    try:
        inp = compare_input(files)
        result = write_report(inp, out_path or Path("reports") / "_build" / f"{inp.name}.html")
    except ReportError as e:
        fail(str(e).replace("\n", "; "))
    _print_report(result, [], json_out, {"files": [str(f) for f in files]})


@app.command()
def solve(
    rows: Annotated[str, typer.Option("--rows", "-r", help="The rows, separated by |: values (3 4 5) or a run "
                                      "(3-5), _ for an empty row, E7 for the joker as 7; fewer rows than the "
                                      "table holds leave the rest empty. Example: \"3|8|9|5|1|13\".")],
    hand: Annotated[str, typer.Option("--hand", "-H", help="Your hand cards, e.g. \"1 4 6 8 11 12\".")],
    character: Annotated[Optional[str], typer.Option(
        "--character", "-c", help="A character you may play this turn (needs rules with characters, "
                                  "e.g. --variant characters).")] = None,
    discard: Annotated[str, typer.Option("--discard", help="Cards in the discard pile (they count toward the "
                                         "copies of each value; a character may take them).")] = "",
    pile: Annotated[int, typer.Option("--pile", help="Cards left in your draw pile; with 0, laying your whole "
                                      "hand wins and no minimum of cards applies.")] = 1,
    game: GameOpt = "kingsbridge",
    variant: VariantOpt = [],  # noqa: B006
    option: OptionOpt = [],  # noqa: B006
    budget: Annotated[Optional[int], typer.Option(help="Positions the search may store (default 50000); "
                                                  "past it the best turn found so far is shown.")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print {laid, moves, rows, hand} as JSON.")] = False,
    players: Annotated[Optional[int], typer.Option(
        "--players", "-p", help="Seats at the table (default: the rules' minimum for the variant); character "
        "powers that depend on it (one card per opponent) are proposed only as legal for that count.")] = None,
) -> None:
    """Find the best turn for a board and a hand: the most hand cards laid, then the best board left.

    Example: kbsim solve --rows "3|8|9|5|1|13" --hand "1 4 6 8 11 12"
    """
    from kbsim.engine.notation import format_cards
    from kbsim.solver import DEFAULT_BUDGET, BoardError, parse_board, parse_hand
    from kbsim.solver import solve as solve_board

    if pile < 0:
        fail(f"--pile {pile}: expected a number of cards >= 0")
    if budget is not None and budget < 1:
        fail(f"--budget {budget}: expected at least 1")
    _, g = _load(game, variant, option)
    if getattr(g, "family", "rows") != "rows":
        fail(f"solve works for games played on rows of cards (Kingsbridge, King's Corners), not {g.game}")
    seats = g.min_players if players is None else players
    if not g.min_players <= seats <= g.max_players:
        fail(f"--players {seats}: expected {g.min_players} to {g.max_players} for these rules")
    try:
        board = parse_board(rows, g.n_rows, g)
        held = parse_hand(hand, "--hand", g)
        gone = parse_hand(discard, "--discard", g)
        sol = solve_board(g, board, held, discard=gone, pile_size=pile, budget=budget or DEFAULT_BUDGET,
                          character=character, players=seats)
    except BoardError as e:
        fail(str(e))
    if json_out:
        print(json.dumps(sol.to_json()))
        return
    p = sol.plan
    how = "every position searched" if p.exact else f"search stopped at its budget of {p.nodes} positions"
    out.print(f"best turn: {sol.laid} of {len(held)} hand card(s) laid ({how})", highlight=False)
    if not sol.laid:
        out.print("  no card can be laid: exchange or pass instead", highlight=False)
    for i, text in enumerate(sol.texts, start=1):
        out.print(f"  {i:>2}. {text}", highlight=False)
    extra = []
    if sol.completed:
        extra.append(f"{sol.completed} row(s) completed")
    if sol.won:
        extra.append("the game is won")
    if extra:
        out.print("  " + "; ".join(extra), highlight=False)
    out.print("rows: " + " | ".join(format_cards(r, g) for r in sol.rows), highlight=False)
    out.print("hand: " + (format_cards(sol.hand, g) if sol.hand else "(empty)"), highlight=False)


def main() -> None:
    """Console-script entry point: run the app, turning every user error into one line and exit 2."""
    try:
        rc = app(standalone_mode=False)
        if isinstance(rc, int) and rc:
            sys.exit(rc)
    except UserError as e:
        print(f"kbsim: error: {e}", file=sys.stderr)
        sys.exit(2)
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except typer.Abort:
        print("kbsim: interrupted", file=sys.stderr)
        sys.exit(130)
    except Exception as e:  # click/typer usage errors (exit code 2), whichever click typer bundles
        if getattr(e, "exit_code", None) == 2 and hasattr(e, "format_message"):
            ctx = getattr(e, "ctx", None)
            where = f" (see: {ctx.command_path} --help)" if ctx is not None else ""
            print(f"kbsim: error: {e.format_message()}{where}", file=sys.stderr)
            sys.exit(2)
        if type(e).__name__ == "Abort":
            print("kbsim: interrupted", file=sys.stderr)
            sys.exit(130)
        if type(e).__name__ == "Exit":
            sys.exit(getattr(e, "exit_code", 0))
        raise
    except KeyboardInterrupt:
        print("kbsim: interrupted; nothing was written", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)


if __name__ == "__main__":
    main()
