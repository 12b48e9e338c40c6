"""``kbsim tune``: search a study's options for the most balanced game, then write its page."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from kbsim.cli.common import ForceOpt, err, fail, run_failed
from kbsim.strict_io import dumps_json


def tune(
    study: Annotated[str, typer.Argument(help="Study file with a [tune] section (reports/NAME.toml), or its name.")],
    games: Annotated[
        Optional[int],
        typer.Option(
            "--games",
            "-n",
            help="Deals per setting at the search's last rung, instead of the study's games (the earlier rungs play a "
            "fraction of them).",
        ),
    ] = None,
    trials: Annotated[
        Optional[int], typer.Option(help="Settings to try, instead of the study's tune.trials (the defaults first).")
    ] = None,
    out_path: Annotated[
        Optional[Path],
        typer.Option(
            "--out",
            "-o",
            help="HTML page to write (default: _build/NAME.html beside the study file, or reports/_build/ here for "
            "a shipped study).",
        ),
    ] = None,
    force: ForceOpt = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON on stdout.")] = False,
    workers: Annotated[Optional[int], typer.Option(help="Worker processes (default: all cores).")] = None,
    backend: Annotated[str, typer.Option(help="Where games run: processes (default), serial, or dask.")] = "processes",
    scheduler: Annotated[
        Optional[str],
        typer.Option(help="Dask scheduler address (tcp://HOST:8786) for --backend dask; without it a LocalCluster."),
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar (on a terminal).")] = True,
) -> None:
    """Search the options of a study's [tune] section toward its targets; recommend the setting with the fewest changes.

    The recommendation, the rule file's defaults and the runner-up are replayed on fresh deals and written to one
    self-contained HTML page. Running the same command again continues an interrupted search.

    Example: kbsim tune reports/tune-first-seat
    """
    from kbsim.cli import checks as ck
    from kbsim.sim.run import RunFailed, RunInterrupted, make_backend, stop_on_signals
    from kbsim.sim.runner import BACKENDS, BackendError, default_workers
    from kbsim.sim.study import StudyError, build_dir
    from kbsim.tune import plan_tuning, run_tuning
    from kbsim.tune.page import as_json, summary_lines, write_page

    ck.check_workers(workers)
    ck.check_count("--games", games, 2, ck.MAX_GAMES, "a number of deals")
    ck.check_count("--trials", trials, 1, 100_000, "a number of trials")
    if backend not in BACKENDS:
        fail(f"--backend {backend!r}: expected one of: {', '.join(BACKENDS)}")
    if scheduler and backend != "dask":
        fail("--scheduler needs --backend dask")
    ck.check_scheduler(scheduler)
    try:
        plan = plan_tuning(study, games=games, trials=trials)
    except StudyError as e:
        fail(str(e))  # one line per problem
    except RunFailed as e:  # a probe game failed
        run_failed(e, "nothing was kept (the probe games are not stored)")
    explicit = out_path is not None
    if out_path is None:
        name = ck.safe_name(plan.study.name) + (f"-n{games}" if games is not None else "")
        out_path = build_dir(plan.source) / f"{name}.html"
    ck.check_out(out_path, "report", force, explicit=explicit, protected=(plan.source,))
    n_workers = workers or default_workers()
    be = make_backend("serial" if backend == "processes" and n_workers <= 1 else backend, n_workers, scheduler)
    show = progress and err.is_terminal and not json_out
    kept = f"the search so far is kept in {plan.storage} and its games in {plan.folder / 'records'}"
    with stop_on_signals(linger=True) as stop:  # Ctrl-C / SIGTERM: stop the workers, keep the search, exit 130/143
        stop.note = f"{kept}; run the same command again to continue"
        try:
            if show:
                result = _with_progress(plan, be, run_tuning)
            else:
                result = run_tuning(plan, be)
            page = write_page(result, out_path)
        except (StudyError, BackendError) as e:
            fail(str(e))  # one line per problem
        except RunFailed as e:
            run_failed(e, f"{kept} ({e.safe:,} games of its last run)")
        except (KeyboardInterrupt, RunInterrupted):
            print(f"kbsim: interrupted; {kept}; run the same command again to continue", file=sys.stderr)
            sys.exit(stop.exit_code)
        except Exception as e:  # a page that cannot be written (ReportError)
            if type(e).__name__ == "ReportError":
                fail(str(e))
            raise
    if json_out:
        print(dumps_json(as_json(result, page), indent=2, default=str))
        return
    for line in summary_lines(result, page):
        print(line)


def _with_progress(plan, be, run):
    """Run the tuning with a progress bar of trials (and of the replays' games)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[best]}"),
        TimeElapsedColumn(),
        console=err,
        transient=True,
    ) as bar:
        task = bar.add_task("trials", total=plan.search.trials, best="")
        state = {"best": float("inf"), "games": 0, "trials": 0}

        def show() -> None:
            best = f"best objective {state['best']:.2f}, " if state["best"] < float("inf") else ""
            done = state["trials"] >= plan.search.trials
            bar.update(
                task,
                description="replaying" if done else "trials",
                completed=min(state["trials"], plan.search.trials),
                best=f"{best}{state['games']:,} games played",
            )

        def on_trial(row, finished):
            if row.state == "complete" and row.value < state["best"]:
                state["best"] = row.value
            state["trials"] = finished
            show()

        def on_games(n):
            state["games"] += n
            show()

        return run(plan, be, on_trial=on_trial, on_games=on_games)
