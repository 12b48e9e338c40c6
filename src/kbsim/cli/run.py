"""``kbsim run``: play many seeded games through :mod:`kbsim.sim.run`, print the summary."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from kbsim import __version__
from kbsim.cli.checks import esc
from kbsim.cli.common import (
    BotsOpt,
    ForceOpt,
    GameOpt,
    OptionOpt,
    VariantOpt,
    check_players,
    err,
    fail,
    load,
    out,
    run_failed,
)
from kbsim.strict_io import dumps_json


def run(
    players: Annotated[int, typer.Option("--players", "-p", help="Seats per game (Kingsbridge: 2-5).")] = 4,
    games: Annotated[
        int,
        typer.Option(
            "--games",
            "-n",
            help="Number of deals to play: one game each, or, with a mixed --bots lineup, one game per seat "
            "rotation (greedy,random,greedy: 3 x N games; see --rotate).",
        ),
    ] = 1000,
    game: GameOpt = "kingsbridge",
    variant: VariantOpt = [],  # noqa: B006 - typer reads the default
    option: OptionOpt = [],  # noqa: B006
    seed: Annotated[Optional[int], typer.Option(help="Run seed (>= 0); without it one is picked and printed.")] = None,
    bots: BotsOpt = "greedy",
    workers: Annotated[Optional[int], typer.Option(help="Worker processes (default: all cores).")] = None,
    backend: Annotated[str, typer.Option(help="Where games run: processes (default), serial, or dask.")] = "processes",
    scheduler: Annotated[
        Optional[str],
        typer.Option(
            help="Dask scheduler address (tcp://HOST:8786) for --backend dask; without it a LocalCluster starts."
        ),
    ] = None,
    chunk_size: Annotated[
        Optional[int], typer.Option(help="Games per chunk (default: about 8 chunks per worker, at most 500).")
    ] = None,
    out_path: Annotated[
        Optional[Path],
        typer.Option(
            "--out", "-o", help="Parquet file for the records (default: runs/GAME-VARIANT-Pp-seedS-nN-RUNID.parquet)."
        ),
    ] = None,
    force: ForceOpt = False,
    resume: Annotated[
        bool,
        typer.Option(help="Complete an interrupted run with the same arguments: only the missing chunks are played."),
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON on stdout.")] = False,
    check: Annotated[
        bool, typer.Option(help="Check invariants (cards conserved, rows legal) after every move.")
    ] = False,
    progress: Annotated[bool, typer.Option(help="Show a progress bar (on a terminal).")] = True,
    rotate: Annotated[
        bool,
        typer.Option(
            help="With a mixed --bots lineup, play every seat rotation of each deal "
            "(--games is then the number of deals; records hold deals x "
            "rotations games). --no-rotate keeps the lineup in its seats, which "
            "mixes seat effects with bot effects."
        ),
    ] = True,
) -> None:
    """Play many seeded games, write one record per game to Parquet, print a summary.

    Finished chunks are saved as they arrive (OUT.parts/); an interrupted run is
    completed with the same command plus --resume. Example: kbsim run --players 4 --games 10000
    """
    from kbsim.bots import UnknownBot, parse_bots
    from kbsim.cli import checks as ck
    from kbsim.engine.rows.usage import declared_optional
    from kbsim.engine.seeds import new_run_seed
    from kbsim.sim.run import OutputError, make_backend, open_run, rules_metadata, stop_on_signals
    from kbsim.sim.runner import BACKENDS, RunSpec, default_workers, seat_rotations

    ck.check_games(games)
    ck.check_seed(seed)
    ck.check_workers(workers)
    ck.check_count("--chunk-size", chunk_size, 1, 1_000_000, "a number of games per chunk")
    if backend not in BACKENDS:
        fail(f"--backend {backend!r}: expected one of: {', '.join(BACKENDS)}")
    if scheduler and backend != "dask":
        fail("--scheduler needs --backend dask")
    ck.check_scheduler(scheduler)
    loaded, g = load(game, variant, option)
    check_players(g, players, loaded)
    try:
        bot_names = parse_bots(bots, players, g.family, game=g)
    except UnknownBot as e:
        fail(str(e))
    chosen_seed = seed is None
    if seed is None:
        if resume:
            fail("--resume needs the --seed of the interrupted run")
        seed = new_run_seed()
    n_rot = len(seat_rotations(bot_names)) if rotate else 1
    deals = games
    games = games * n_rot
    spec = RunSpec(
        game=g,
        players=players,
        bots=tuple(bot_names),
        games=games,
        seed=seed,
        check=check,
        rules_hash=loaded.rules_hash,
        rotate=n_rot > 1,
    )
    out_path = _records_path(out_path, spec, deals, resume, force, loaded.source)
    with stop_on_signals(linger=True) as stop:
        try:
            run_ = open_run(
                spec,
                out_path,
                version=__version__,
                chunk_size=chunk_size,
                workers=workers,
                resume=resume,
                meta=rules_metadata(loaded, g),
            )
        except OutputError as e:
            fail(str(e))
        except OSError as e:
            fail(f"--out {out_path}: cannot write: {e.strerror}")
        again = f" with --seed {seed}" if chosen_seed else ""
        stop.note = f"finished chunks are kept in {run_.output.parts}; run the same command{again} with --resume"
        _print_start_notes(run_.output.dropped, seed if chosen_seed else None)
        # never more workers than chunks to play
        n_workers = max(1, min(workers or default_workers(), -(-games // run_.chunk_size)))
        be = make_backend(backend, n_workers, scheduler)
        played_now = run_.pending_games
        seconds = _play(run_, be, progress and bool(played_now), seed if chosen_seed else None, stop)
    result = _run_summary(out_path, g, seconds, played_now)
    result.update(
        {
            "game": g.game,
            "variant": g.variant,
            "options": loaded.changed,
            "bots": bot_names,
            "seed": seed,
            "out": str(out_path),
            "workers": be.workers,
            "backend": be.name,
            "seconds": seconds,
            "games_played_now": played_now,
            "games_reused": max(0, result["games"] - played_now),  # by an interrupted run this one resumed
            "deals": deals,
            "rotated": n_rot if n_rot > 1 else None,
            "seat_rotation": (
                "every rotation of each deal"
                if n_rot > 1
                else "off: seat and bot effects are mixed"
                if len(set(bot_names)) > 1
                else None
            ),
        }
    )
    paths = [o.path for o in loaded.model.options.values()]
    result["optional_rules"] = [r for r in result.get("rule_usage") or {} if declared_optional(r, paths)]
    if getattr(g, "provisional", None):  # rules whose data is not the published one (e.g. a card list)
        result["provisional"] = g.provisional
    if json_out:
        print(dumps_json(result, indent=2))
    else:
        _print_summary(result)


def _print_start_notes(dropped: list[str], chosen_seed: int | None) -> None:
    """On stderr: the staged chunks a resume found damaged (played again), and the seed picked for the user."""
    for problem in dropped:
        err.print(f"kbsim: note: {problem}; playing that chunk again", highlight=False, markup=False)
    if chosen_seed is not None:
        err.print(f"kbsim: no --seed given; using --seed {chosen_seed}", highlight=False, markup=False)


def _play(run_, be, bar: bool, chosen_seed: int | None, stop) -> float:
    """Play an opened run (with a progress bar on a terminal); an interrupt or failure ends the command.

    Returns:
        Seconds spent playing and writing.
    """
    from kbsim.sim.run import BackendError, RunFailed, RunInterrupted, play_run, progress_bar

    out_ = run_.output
    try:
        try:
            if bar and err.is_terminal:
                with progress_bar(err, run_.spec.games, run_.done_games) as b:
                    return play_run(run_, be, b.advance)
            return play_run(run_, be)
        except KeyboardInterrupt:  # before or after play_run's own stop
            out_.discard_if_empty()
            raise RunInterrupted(out_.games_safe(), run_.spec.games, out_.parts) from None
    except RunInterrupted as e:
        print(interrupted_message(e, chosen_seed), file=sys.stderr)
        sys.exit(stop.exit_code)
    except BackendError as e:
        fail(str(e))
    except RunFailed as e:
        run_failed(
            e,
            f"{e.safe:,} of {e.games:,} games are safe in {e.parts}",
            "run the same command with --resume to complete it",
        )
    raise AssertionError("unreachable")  # pragma: no cover


def interrupted_message(e, chosen_seed: int | None = None) -> str:
    """The line ``kbsim run`` prints when a signal stopped it: what is safe and how to go on.

    Args:
        e: the :class:`kbsim.sim.run.RunInterrupted`.
        chosen_seed: the seed kbsim picked (no ``--seed`` given), which a resume needs; None otherwise.
    """
    again = "run the same command" + (f" with --seed {chosen_seed}" if chosen_seed is not None else "")
    if not e.safe:
        return f"kbsim: interrupted; no game was finished, nothing is kept; {again} to start again"
    return (
        f"kbsim: interrupted; {e.safe:,} of {e.games:,} games are safe in {e.parts}; {again} with --resume to "
        f"complete it"
    )


def _records_path(out_path: Path | None, spec, deals: int, resume: bool, force: bool, rule_file: Path) -> Path:
    """The records file of a run: ``--out`` checked, or the default name in ``runs/`` (its folder created)."""
    from kbsim.cli import checks as ck

    explicit = out_path is not None
    if out_path is None:
        # the run id (a hash of every parameter that decides the records) keeps different runs apart;
        # names from the rule file are made safe as a file name (a variant `a/../x` stays in runs/)
        g = spec.game
        out_path = Path("runs") / (
            f"{ck.safe_name(g.game)}-{ck.safe_name(g.variant)}-{spec.players}p-"
            f"seed{spec.seed}-n{deals}-{spec.run_id}.parquet"
        )
    parts = out_path.with_name(out_path.name + ".parts")
    if resume and not out_path.exists() and not parts.exists():
        fail(
            f"--resume: nothing to resume: no unfinished run in {parts} and no records file {out_path}; "
            f"run the command without --resume"
        )
    if not (resume and out_path.is_file()):
        ck.check_out(out_path, "records", force, explicit=explicit, protected=(rule_file,))
    if not explicit:
        try:
            out_path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            fail(f"cannot create the folder {out_path.parent}: {e.strerror}")
    return out_path


def _run_summary(out_path: Path, g, seconds: float, played_now: int) -> dict:
    """The terminal summary, computed from the records file row group by row group (flat memory)."""
    from kbsim.analysis.seats import seats_of
    from kbsim.analysis.summary import SUMMARY_COLUMNS, Summary
    from kbsim.records import iter_batches, read_metadata

    win = g.score[3:5] if g.score else (1, 12)
    summary = Summary(*win, seats=seats_of(read_metadata(out_path)))
    for batch in iter_batches(out_path, SUMMARY_COLUMNS):
        summary.add(batch)
    result = summary.result(seconds if played_now else None)
    if played_now:  # the speed counts only the games played by this command (not those of a resumed run)
        result["games_per_second"] = played_now / seconds if seconds > 0 else None
    return result


def _print_summary(s: dict) -> None:
    from kbsim.analysis.metrics import fmt_pct, fmt_rate, fmt_sig

    opts = ", ".join(f"{k}={v}" for k, v in s["options"].items()) or "defaults"
    played = (
        f"; {s['deals']:,} deals x {s['rotated']} seat rotations = {s['games']:,} games" if s.get("rotated") else ""
    )
    out.print(
        f"[bold]{esc(s['game'])}[/] variant {esc(s['variant'])} ({esc(opts)}), {s['players']} players, "
        f"bots {esc(','.join(s['bots']))}, seed {s['seed']}{played}"
    )
    r = s["end_reasons"]
    if s.get("mode") != "team":
        _print_seats(s)
    for b in s.get("bot_shares") or ():
        out.print(
            f"bot {b['bot']} ({b['seats']} of {s['players']} seats, fair {fmt_pct(b['fair'])}): wins alone "
            f"{fmt_rate(b)}",
            highlight=False,
            markup=False,
        )
    if s.get("rotated"):
        out.print(
            f"seats rotated: each of {s['deals']:,} deals played in {s['rotated']} seat rotations "
            f"({s['games']:,} games; seat rates above average over the bots)",
            highlight=False,
            markup=False,
        )
    elif len(set(s["bots"])) > 1:
        out.print(
            "seats NOT rotated (--no-rotate): each bot kept its seat, so seat effects and bot effects are mixed",
            highlight=False,
            markup=False,
        )

    def rr(k: str) -> str:
        x = r[k]
        return fmt_rate(
            {"k": x["count"], "n": s["games"], "rate": x["rate"], "low": x["ci95"][0], "high": x["ci95"][1]}
        )

    if s.get("mode") == "team":
        out.print(
            f"team result: all out {rr('all_out')}; stalemate {rr('stalemate')}; turn limit {rr('turn_limit')}",
            highlight=False,
            markup=False,
        )
    else:
        out.print(
            f"ended by a win {rr('won')}; stalemate {rr('stalemate')}; turn limit {rr('turn_limit')}; "
            f"shared-win games {s['shared_win_games']}",
            highlight=False,
            markup=False,
        )
    if s.get("score"):
        _print_score(s["score"])
    if s.get("penalties"):
        pen = s["penalties"]
        out.print(
            "penalty points per game by seat: "
            + " / ".join(f"{v:.2f}" for v in pen["per_seat_per_game"])
            + (f"; blocked hands {fmt_rate(pen['blocked_hands'])}" if pen.get("blocked_hands") else ""),
            highlight=False,
            markup=False,
        )
    if s.get("points"):
        out.print(
            "points per game by seat: " + " / ".join(f"{v:.2f}" for v in s["points"]["per_seat_per_game"]),
            highlight=False,
            markup=False,
        )
    if s.get("character_plays"):
        plays = ", ".join(f"{c} {v:.2f}" for c, v in s["character_plays"].items())
        out.print(f"plays per game by character: {plays}", highlight=False, markup=False)
    tu = s["turns"]
    if s.get("hands_per_game") and s["hands_per_game"] > 1:
        out.print(f"hands per match: mean {s['hands_per_game']:.2f}", highlight=False, markup=False)
    out.print(f"turns per game: mean {tu['mean']:.1f}, median {tu['median']:.0f}, 95th percentile {tu['p95']:.0f}")
    speed = (
        f"{fmt_sig(s['games_per_second'])} games/s on {s['workers']} worker(s) ({s['backend']}), "
        f"{fmt_sig(s['seconds'])} s"
        if s["games_per_second"]
        else "nothing left to play"
    )
    if s.get("games_reused"):  # the speed counts only the games played now
        speed += f"; {s['games_reused']:,} games reused from the interrupted run"
    out.print(f"{speed}; records: {s['out']}", highlight=False, markup=False)
    if s.get("provisional"):
        out.print(f"provisional data: {s['provisional']}", highlight=False, markup=False)
    _print_unused_rules(s)


def _print_unused_rules(s: dict) -> None:
    """One line per optional rule these rules allow that no game used: the run then says nothing about that rule.

    Only rules the game's own file declares optional (``optional_rules``: its options, powers and characters);
    a rule of the base game that no game needed is no news.
    """
    bots = sorted(set(s["bots"]))
    optional = set(s.get("optional_rules") or ())
    for rule, u in (s.get("rule_usage") or {}).items():
        if u["uses"] or rule not in optional:
            continue
        legal = u.get("legal_turns")
        if legal == 0:
            why = "; such a move was never legal at the start of a turn"
        elif legal:
            why = f"; such a move was legal at the start of {legal:,} turns and the bots never chose it"
        else:
            why = ""
        fix = (
            "the planner never found that it lays more cards in a turn"
            if bots == ["planner"]
            else "compare with the planner (--bots planner) before drawing conclusions about this rule"
        )
        out.print(
            f"note: no game used `{rule}`, which these rules allow{why}. With bots {', '.join(bots)} this run plays "
            f"as if the rule were absent; {fix}.",
            style="yellow",
            highlight=False,
            markup=False,
        )


def _print_seats(s: dict) -> None:
    """The seat table of a race and the seat-equality test."""
    from kbsim.analysis.metrics import fmt_p, fmt_pct

    t = Table(title=f"{s['games']} games · {s['starts']} · fair share {fmt_pct(s['fair_share'])}")
    for c in ("seat", "bot", "sole wins", "wins alone [95%]", "shared wins"):
        t.add_column(c, justify="right")
    for seat in s["seats"]:
        lo, hi = seat["win_ci95"]
        t.add_row(
            str(seat["seat"]),
            "rotated" if s.get("rotated") else s["bots"][seat["seat"]],
            str(seat["wins"]),
            f"{fmt_pct(seat['win_rate'])} [{fmt_pct(lo)}, {fmt_pct(hi)}]",
            str(seat["shared_wins"]),
        )
    out.print(t)
    bal = s.get("seat_balance") or {}
    test = bal.get("test") or {}
    if test.get("p") is not None:
        out.print(
            f"seats equal? {test['test']} on {test['n']:,} games won alone: {fmt_p(test['p'])}; "
            f"{bal['verdict']['text']}",
            highlight=False,
            markup=False,
        )


def _print_score(sc: dict) -> None:
    """The team score of a solo/cooperative game: mean, thresholds, histogram."""
    from kbsim.analysis.metrics import fmt_rate

    def share(x: dict) -> str:
        return fmt_rate(
            {"k": x["count"], "n": sc["games"], "rate": x["rate"], "low": x["ci95"][0], "high": x["ci95"][1]}
        )

    out.print(
        f"team score: mean {sc['mean']:.2f} (min {sc['min']}, max {sc['max']}); won (>= "
        f"{sc['won']['threshold']}) {share(sc['won'])}; expert (>= {sc['expert']['threshold']}) "
        f"{share(sc['expert'])}",
        highlight=False,
        markup=False,
    )
    top = max(b["count"] for b in sc["histogram"]) or 1
    out.print("score histogram (games):", highlight=False, markup=False)
    for b in sc["histogram"]:
        label = f"{b['low']}" if b["low"] == b["high"] else f"{b['low']} to {b['high']}"
        out.print(
            f"  {label:>12} {'#' * round(30 * b['count'] / top):<30} {b['count']:,}", highlight=False, markup=False
        )
