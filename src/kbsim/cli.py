"""The ``kbsim`` command line (typer). Thin: parse, validate, call the library, print.

Every user error is one line on stderr starting with ``kbsim: error:`` and
exit code 2, never a traceback; a failed run leaves existing files untouched.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table

from kbsim import __version__
from kbsim.cli_checks import ArgError, esc
from kbsim.strict_io import dumps_json

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
out.on_broken_pipe = lambda: _closed_pipe()  # type: ignore[method-assign] # rich would exit 1


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
    from kbsim.engine.rows.compiled import compile_rules
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
    "--option", metavar="KEY=VALUE", help="Set a named rule option, e.g. rebuild_segments=either (repeatable).")]
ForceOpt = Annotated[bool, typer.Option("--force", help="Replace an existing output file (only one kbsim wrote, "
                                                         "of the same kind).")]
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
    out_path: Annotated[Optional[Path], typer.Option("--out", "-o", help="Parquet file for the records (default: "
                                                     "runs/GAME-VARIANT-Pp-seedS-nN-RUNID.parquet).")] = None,
    force: ForceOpt = False,
    resume: Annotated[bool, typer.Option(help="Complete an interrupted run with the same arguments: only the "
                                         "missing chunks are played.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON on stdout.")] = False,
    check: Annotated[bool, typer.Option(help="Check invariants (cards conserved, rows legal) after every move.")]
    = False,
    progress: Annotated[bool, typer.Option(help="Show a progress bar (on a terminal).")] = True,
    rotate: Annotated[bool, typer.Option(help="With a mixed --bots lineup, play every seat rotation of each deal "
                                         "(--games is then the number of deals; records hold deals x "
                                         "rotations games). --no-rotate keeps the lineup in its seats, which "
                                         "mixes seat effects with bot effects.")] = True,
) -> None:
    """Play many seeded games, write one record per game to Parquet, print a summary.

    Finished chunks are saved as they arrive (OUT.parts/); an interrupted run is
    completed with the same command plus --resume. Example: kbsim run --players 4 --games 10000
    """
    import signal

    from kbsim import cli_checks as ck
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
        iter_chunks,
        run_chunks,
    )
    from kbsim.sim.seeding import new_run_seed

    ck.check_games(games)
    ck.check_seed(seed)
    ck.check_workers(workers)
    ck.check_count("--chunk-size", chunk_size, 1, 1_000_000, "a number of games per chunk")
    if backend not in BACKENDS:
        fail(f"--backend {backend!r}: expected one of: {', '.join(BACKENDS)}")
    if scheduler and backend != "dask":
        fail("--scheduler needs --backend dask")
    ck.check_scheduler(scheduler)
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
    from kbsim.sim.runner import seat_rotations

    n_rot = len(seat_rotations(bot_names)) if rotate else 1
    deals = games
    games = games * n_rot
    spec = RunSpec(game=g, players=players, bots=tuple(bot_names), games=games, seed=seed, check=check,
                   rules_hash=loaded.rules_hash, rotate=n_rot > 1)
    explicit = out_path is not None
    if out_path is None:
        # the run id (a hash of every parameter that decides the records) keeps different runs apart;
        # names from the rule file are made safe as a file name (a variant `a/../x` stays in runs/)
        out_path = Path("runs") / (f"{ck.safe_name(g.game)}-{ck.safe_name(g.variant)}-{players}p-seed{seed}-"
                                   f"n{deals}-{spec.run_id}.parquet")
    if not (resume and out_path.is_file()):
        ck.check_out(out_path, "records", force, explicit=explicit, protected=(loaded.source,))
    if not explicit:
        try:
            out_path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            fail(f"cannot create the folder {out_path.parent}: {e.strerror}")
    stored = RunOutput.stored_parameters(out_path) if resume else None
    if chunk_size is None and stored and "chunk_size" in stored:
        chunk_size = stored["chunk_size"]  # a resume keeps the chunks of the interrupted run
    size = chunk_size or default_chunk_size(games, workers or default_workers())
    # never more workers than chunks to play
    n_workers = max(1, min(workers or default_workers(), -(-games // size)))
    params = spec.parameters() | {"chunk_size": size}
    try:
        from kbsim.sim.runner import display_names

        output = RunOutput(out_path, params, __version__, resume=resume, names=display_names(g))
    except OutputError as e:
        fail(str(e))
    except OSError as e:
        fail(f"--out {out_path}: cannot write: {e.strerror}")
    if chosen_seed:
        err.print(f"kbsim: no --seed given; using --seed {seed}", highlight=False, markup=False)
    if backend == "dask":
        be = DaskBackend(workers=n_workers, scheduler=scheduler)
    else:
        be = BACKENDS[backend](workers=n_workers if backend != "serial" else 1)
    done = output.done_chunks()
    done_games = sum(b - a for a, b in done)
    played_now = 0 if output.complete else games - done_games
    # planned lazily: a huge --games costs no memory before the first game
    todo = (c for c in iter_chunks(games, size) if (c.start, c.stop) not in done) if not output.complete else ()
    summary = Summary(*(g.score[3:5] if g.score else ()))

    def on_sigterm(signum, frame):  # turn SIGTERM into the same clean stop as Ctrl-C
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    t0 = time.perf_counter()
    try:
        if played_now:
            show = progress and err.is_terminal
            if show:
                from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

                with Progress(TextColumn("[bold]playing"), BarColumn(), MofNCompleteColumn(), TextColumn("games"),
                              TimeRemainingColumn(), console=err, transient=True) as bar:
                    task = bar.add_task("games", total=games, completed=done_games)

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
    wanted = ["game_index", "players", "bots", "winners", "end_reason", "turns", "score", "hands", "penalties",
              "blocked_hands", "scores", "character_plays"]
    have = set(pf.schema_arrow.names)
    for i in range(pf.num_row_groups):
        summary.add(pf.read_row_group(i, columns=[c for c in wanted if c in have]).to_pydict())
    result = summary.result(seconds if played_now else None)
    if played_now:  # the speed counts only the games played by this command (not those of a resumed run)
        result["games_per_second"] = played_now / seconds if seconds > 0 else None
    result.update({"game": g.game, "variant": g.variant, "options": loaded.changed, "bots": bot_names,
                   "seed": seed, "out": str(out_path), "workers": be.workers, "backend": be.name,
                   "seconds": seconds, "games_played_now": played_now,
                   "deals": deals, "rotated": n_rot if n_rot > 1 else None,
                   "seat_rotation": ("every rotation of each deal" if n_rot > 1 else
                                     "off: seat and bot effects are mixed" if len(set(bot_names)) > 1 else None)})
    if getattr(g, "provisional", None):  # rules whose data is not the published one (e.g. a card list)
        result["provisional"] = g.provisional
    if json_out:
        print(dumps_json(result, indent=2))
    else:
        _print_summary(result)


def _print_summary(s: dict) -> None:
    from kbsim.analysis.metrics import fmt_p, fmt_pct, fmt_rate

    opts = ", ".join(f"{k}={v}" for k, v in s["options"].items()) or "defaults"
    out.print(f"[bold]{esc(s['game'])}[/] variant {esc(s['variant'])} ({esc(opts)}), {s['players']} players, "
              f"bots {esc(','.join(s['bots']))}, seed {s['seed']}")
    r = s["end_reasons"]
    if s.get("mode") != "team":
        t = Table(title=f"{s['games']} games · {s['starts']} · fair share {fmt_pct(s['fair_share'])}")
        for c in ("seat", "bot", "sole wins", "win rate [95%]", "shared wins"):
            t.add_column(c, justify="right")
        for seat in s["seats"]:
            lo, hi = seat["win_ci95"]
            t.add_row(str(seat["seat"]), "rotated" if s.get("rotated") else s["bots"][seat["seat"]],
                      str(seat["wins"]), f"{fmt_pct(seat['win_rate'])} [{fmt_pct(lo)}, {fmt_pct(hi)}]",
                      str(seat["shared_wins"]))
        out.print(t)
        bal = s.get("seat_balance") or {}
        test = bal.get("test") or {}
        if test.get("p") is not None:
            out.print(f"seats equal? {test['test']} on {test['n']:,} games won alone: {fmt_p(test['p'])}; "
                      f"{bal['verdict']['text']}", highlight=False, markup=False)
    for b in s.get("bot_shares") or ():
        out.print(f"bot {b['bot']} ({b['seats']} of {s['players']} seats, fair {fmt_pct(b['fair'])}): wins alone "
                  f"{fmt_rate(b)}", highlight=False, markup=False)
    if s.get("rotated"):
        out.print(f"seats rotated: each of {s['deals']:,} deals played in {s['rotated']} seat rotations "
                  f"({s['games']:,} games; seat rates above average over the bots)", highlight=False, markup=False)
    elif len(set(s["bots"])) > 1:
        out.print("seats NOT rotated (--no-rotate): each bot kept its seat, so seat effects and bot effects are "
                  "mixed", highlight=False, markup=False)
    def rr(k: str) -> str:
        x = r[k]
        return fmt_rate({"k": x["count"], "n": s["games"], "rate": x["rate"], "low": x["ci95"][0],
                         "high": x["ci95"][1]})

    if s.get("mode") == "team":
        out.print(f"team result: all out {rr('all_out')}; stalemate {rr('stalemate')}; turn limit "
                  f"{rr('turn_limit')}", highlight=False, markup=False)
    else:
        out.print(f"ended by a win {rr('won')}; stalemate {rr('stalemate')}; turn limit {rr('turn_limit')}; "
                  f"shared-win games {s['shared_win_games']}", highlight=False, markup=False)
    if s.get("score"):
        sc = s["score"]
        def share(x: dict) -> str:
            return fmt_rate({"k": x["count"], "n": sc["games"], "rate": x["rate"], "low": x["ci95"][0],
                             "high": x["ci95"][1]})
        out.print(f"team score: mean {sc['mean']:.2f} (min {sc['min']}, max {sc['max']}); won (>= "
                  f"{sc['won']['threshold']}) {share(sc['won'])}; expert (>= {sc['expert']['threshold']}) "
                  f"{share(sc['expert'])}", highlight=False, markup=False)
        top = max(b["count"] for b in sc["histogram"]) or 1
        out.print("score histogram (games):", highlight=False, markup=False)
        for b in sc["histogram"]:
            label = f"{b['low']}" if b["low"] == b["high"] else f"{b['low']} to {b['high']}"
            out.print(f"  {label:>12} {'#' * round(30 * b['count'] / top):<30} {b['count']:,}", highlight=False,
                      markup=False)
    if s.get("penalties"):
        pen = s["penalties"]
        out.print("penalty points per game by seat: " + " / ".join(f"{v:.2f}" for v in pen["per_seat_per_game"])
                  + (f"; blocked hands {fmt_rate(pen['blocked_hands'])}" if pen.get("blocked_hands") else ""),
                  highlight=False, markup=False)
    if s.get("points"):
        out.print("points per game by seat: " + " / ".join(f"{v:.2f}" for v in s["points"]["per_seat_per_game"]),
                  highlight=False, markup=False)
    if s.get("character_plays"):
        plays = ", ".join(f"{c} {v:.2f}" for c, v in s["character_plays"].items())
        out.print(f"plays per game by character: {plays}", highlight=False, markup=False)
    tu = s["turns"]
    if s.get("hands_per_game") and s["hands_per_game"] > 1:
        out.print(f"hands per match: mean {s['hands_per_game']:.2f}", highlight=False, markup=False)
    out.print(f"turns per game: mean {tu['mean']:.1f}, median {tu['median']:.0f}, 95th percentile {tu['p95']:.0f}")
    speed = (f"{s['games_per_second']:.3g} games/s on {s['workers']} worker(s) ({s['backend']}), "
             f"{s['seconds']:.2f} s" if s["games_per_second"] else "nothing left to play")
    out.print(f"{speed}; records: {s['out']}", highlight=False, markup=False)
    if s.get("provisional"):
        out.print(f"provisional data: {s['provisional']}", highlight=False, markup=False)


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
    from kbsim import cli_checks as ck
    from kbsim.bots import UnknownBot, make_bot, parse_bots
    from kbsim.engine.rows.game import play_game
    from kbsim.engine.rows.notation import format_cards, format_move
    from kbsim.sim.seeding import game_seed

    ck.check_count("--game-index", game_index, 0, ck.MAX_GAMES - 1, "a game index")
    ck.check_seed(seed)
    loaded, g = _load(game, variant, option)
    _check_players(g, players, loaded)
    try:
        names = parse_bots(bots, players, g.family)
    except UnknownBot as e:
        fail(str(e))
    gs = game_seed(seed, game_index)
    from kbsim.engine.families import family_of

    if family_of(g).replay:  # a family that replays its own logs (the market family)
        res = play_game(g, [make_bot(n, g.family) for n in names], gs, check=True, log=True)
        lines = family_of(g).part("replay")(g, players, gs, res.log)
        if json_out:
            print(dumps_json({"seed": gs, "winners": list(res.winners), "end_reason": res.end_reason,
                              "turns": res.turns, "scores": res.scores, "log": lines}, indent=2))
            return
        for ln in lines:
            out.print(f"{ln['turn']:>4} seat {ln['seat']}: {'; '.join(ln['moves'])}   market: "
                      f"{' | '.join(ln['market'])}", highlight=False, markup=False)
        out.print(f"end: {res.end_reason}, winners {list(res.winners)}, scores {res.scores}", markup=False)
        return
    from kbsim.engine.rows.game import replay_hands, state_hash

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
        print(dumps_json({"seed": gs, "winners": list(res.winners), "end_reason": res.end_reason,
                          "turns": res.turns, "score": res.score, "deal_hash": res.deal_hash,
                          "log": [ln for h in hands_out for ln in h["log"]], "hands": hands_out}, indent=2))
        return
    out.print(f"game {game_index} of run seed {seed}: game seed {gs}, {players} players, bots {','.join(names)}, "
              f"deal hash {res.deal_hash}", markup=False)
    for h in hands_out:
        d = h["deal"]
        if len(hands_out) > 1:
            out.print(f"hand {h['hand']} (deal hash {h['deal_hash']})", highlight=False, markup=False)
        out.print(f"deal: rows {' | '.join(d['rows'])}", highlight=False, markup=False)
        for k in range(players):
            out.print(f"  seat {k}: hand {d['hands'][k]}; pile (top first) {d['piles'][k]}", highlight=False,
                      markup=False)
        for ln in h["log"]:
            out.print(f"{ln['turn']:>4} seat {ln['seat']}: {'; '.join(ln['moves'])}   rows: {' | '.join(ln['rows'])}",
                      highlight=False, markup=False)
    score = f", score {res.score}" if res.score is not None else ""
    out.print(f"end: {res.end_reason}, winners {list(res.winners)}, cards left {res.cards_left}{score}", markup=False)


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
                  f"{len(loaded.model.variants)} variants, {len(loaded.model.examples)} examples)", highlight=False,
                  markup=False)
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
    out.print(f"[bold]{esc(m.title)}[/] ({esc(m.game)}), {m.players.min}-{m.players.max} players — "
              f"{esc(loaded.source)}")
    out.print(m.summary, highlight=False, markup=False)
    sections = m.sections()
    for title, text in sections:
        out.print(f"\n[bold]{esc(title)}[/]\n{esc(text)}", highlight=False)
    t = Table(title="Options (value in force; * = changed from the file's default)")
    for c in ("option", "value", "confidence", "meaning"):
        t.add_column(c)
    for name, opt in m.options.items():
        mark = "*" if name in loaded.changed else ""
        t.add_row(esc(name), esc(f"{loaded.options[name]}{mark}"), esc(opt.confidence), esc(opt.summary))
    out.print(t)
    t = Table(title="Variants (--variant NAME)")
    t.add_column("variant")
    t.add_column("sets")
    t.add_column("meaning")
    for name, v in m.variants.items():
        t.add_row(esc(name), esc(", ".join(f"{k}={val}" for k, val in v.options.items()) or "overlay"),
                  esc(v.summary))
    out.print(t)


@rules_app.command("schema")
def rules_schema(family: Annotated[str, typer.Option(
        help="Which rule files: rows (Kingsbridge, King's Corners), market (Continental Express) or all.")]
        = "all") -> None:
    """Print the JSON Schema of rule files (for editors and validators)."""
    from pydantic.json_schema import models_json_schema

    from kbsim.rules.families import RULE_MODELS

    models = {name: [m] for name, m in RULE_MODELS.items()} | {"all": list(RULE_MODELS.values())}
    if family not in models:
        fail(f"--family {family!r}: expected one of: {', '.join(models)}")
    if len(models[family]) == 1:
        schema = models[family][0].model_json_schema(by_alias=True)
    else:
        refs, schema = models_json_schema([(m, "validation") for m in models[family]], by_alias=True,
                                          title="kbsim rule file")
        schema["anyOf"] = [refs[(m, "validation")] for m in models[family]]
    print(dumps_json(schema, indent=2))


@rules_app.command("test")
def rules_test(files: Annotated[Optional[list[str]], typer.Argument(
        help="Rule files / game names to run the examples of, or extra example files "
             "(a YAML file with `rules:` and `examples:`). Default: every shipped rule file.")] = None) -> None:
    """Run the executable examples; print each failure; exit 1 if any fails."""
    from kbsim.engine.rows.examples import load_example_file, run_example, run_examples
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
        print(dumps_json(result.as_json() | extra, indent=2, default=str))
        return
    print(f"report: {result.path} ({result.size / 1e6:.1f} MB, {result.figures} figures, "
          f"rendered in {result.seconds:.1f} s)")
    for line in head + result.summary:
        print(line)


@app.command()
def report(
    study: Annotated[str, typer.Argument(help="Study file (reports/NAME.toml or .yaml), or a study name.")],
    out_path: Annotated[Optional[Path], typer.Option("--out", "-o", help="HTML file to write (default: "
                                                     "_build/NAME.html beside the study file; with --games N, "
                                                     "_build/NAME-nN.html).")] = None,
    force: ForceOpt = False,
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
    from kbsim import cli_checks as ck
    from kbsim.analysis.report import ReportError, write_report
    from kbsim.analysis.study import StudyError, load_study, plan_study, report_input, run_study

    ck.check_workers(workers)
    ck.check_games(games)
    try:
        plan = plan_study(load_study(study), records_dir=records, games=games)
    except StudyError as e:
        fail(e.one_line())
    explicit = out_path is not None
    if out_path is None:  # a quick look (--games) writes its own page, never the full study's
        name = ck.safe_name(plan.study.name) + (f"-n{games}" if games is not None else "")
        out_path = plan.source.parent / "_build" / f"{name}.html"
    ck.check_out(out_path, "report", force, explicit=explicit, protected=(plan.source,))
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
        result = write_report(report_input(plan), out_path)
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
    force: ForceOpt = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON on stdout.")] = False,
) -> None:
    """Build a report page from existing records: arms side by side, paired on shared deals.

    Files with the same variant, options and bots form one arm. Example:
    kbsim compare runs/base.parquet runs/either-end.parquet -o compare.html
    """
    from kbsim import cli_checks as ck
    from kbsim.analysis.report import ReportError, compare_input, write_report

    ck.check_comparable(files)
    if out_path is not None:
        ck.check_out(out_path, "report", force, protected=tuple(files))
    try:
        inp = compare_input(files)
        if out_path is None:
            out_path = Path("reports") / "_build" / f"{ck.safe_name(inp.name, 120)}.html"
            ck.check_out(out_path, "report", force, explicit=False, protected=tuple(files))
        result = write_report(inp, out_path)
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
    from kbsim.engine.rows.notation import format_cards
    from kbsim.engine.rows.search import DEFAULT_BUDGET, BoardError, parse_board, parse_hand
    from kbsim.engine.rows.search import solve as solve_board

    if pile < 0:
        fail(f"--pile {pile}: expected a number of cards >= 0")
    if budget is not None and budget < 1:
        fail(f"--budget {budget}: expected at least 1")
    _, g = _load(game, variant, option)
    from kbsim.engine.families import family_of

    if not family_of(g).solver:
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
        print(dumps_json(sol.to_json()))
        return
    p = sol.plan
    how = "every position searched" if p.exact else f"search stopped at its budget of {p.nodes} positions"
    out.print(f"best turn: {sol.laid} of {len(held)} hand card(s) laid ({how})", highlight=False, markup=False)
    if not sol.laid:
        out.print("  no card can be laid: exchange or pass instead", highlight=False, markup=False)
    for i, text in enumerate(sol.texts, start=1):
        out.print(f"  {i:>2}. {text}", highlight=False, markup=False)
    extra = []
    if sol.completed:
        extra.append(f"{sol.completed} row(s) completed")
    if sol.won:
        extra.append("the game is won")
    if extra:
        out.print("  " + "; ".join(extra), highlight=False, markup=False)
    out.print("rows: " + " | ".join(format_cards(r, g) for r in sol.rows), highlight=False, markup=False)
    out.print("hand: " + (format_cards(sol.hand, g) if sol.hand else "(empty)"), highlight=False, markup=False)


def main() -> None:
    """Console-script entry point: run the app, turning every user error into one line and exit 2."""
    try:
        rc = app(standalone_mode=False)
        sys.stdout.flush()  # a closed pipe shows here, inside the handlers below
        if isinstance(rc, int) and rc:
            sys.exit(rc)
    except (UserError, ArgError) as e:
        print(f"kbsim: error: {e}", file=sys.stderr)
        sys.exit(2)
    except typer.Exit as e:
        sys.exit(e.exit_code)
    except typer.Abort:
        print("kbsim: interrupted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        _closed_pipe()
    except SystemExit:
        # click turns a closed stdout (EPIPE) into exit 1 after wrapping stdout: a closed pipe is not a failure
        if type(sys.stdout).__name__ == "PacifyFlushWrapper":
            _closed_pipe()
        raise
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
        if isinstance(e.__context__, BrokenPipeError) or isinstance(e.__cause__, BrokenPipeError):
            _closed_pipe()
        raise
    except KeyboardInterrupt:
        print("kbsim: interrupted; nothing was written", file=sys.stderr)
        sys.exit(130)


def _closed_pipe() -> None:
    """The reader of stdout went away (``kbsim ... | head``): stop quietly with exit 0."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the interpreter's final flush cannot fail again
    except (OSError, ValueError):
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
