"""``kbsim report``: play a study's missing cells, then write its report page."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from kbsim.cli.common import (
    ForceOpt,
    err,
    fail,
    print_report,
)


def report(
    study: Annotated[str, typer.Argument(help="Study file (reports/NAME.toml or .yaml), or a study name.")],
    out_path: Annotated[
        Optional[Path],
        typer.Option(
            "--out",
            "-o",
            help="HTML file to write (default: "
            "_build/NAME.html beside the study file, or reports/_build/ here for a shipped study; with --games N, "
            "_build/NAME-nN.html).",
        ),
    ] = None,
    force: ForceOpt = False,
    records: Annotated[
        Optional[Path],
        typer.Option(
            help="Folder for the records of the study's cells (default: _build/records/NAME/ beside the study file)."
        ),
    ] = None,
    games: Annotated[
        Optional[int],
        typer.Option(
            "--games", "-n", help="Deals per cell instead of the study's (for a quick look; records are kept apart)."
        ),
    ] = None,
    workers: Annotated[Optional[int], typer.Option(help="Worker processes (default: all cores).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON on stdout.")] = False,
    progress: Annotated[bool, typer.Option(help="Show a progress bar (on a terminal).")] = True,
) -> None:
    """Play a study's missing cells (records on disk are reused), then write one self-contained HTML page.

    Example: kbsim report reports/seat-advantage
    """
    from kbsim.analysis.reading import ReportError, study_input
    from kbsim.analysis.report import write_report
    from kbsim.cli import checks as ck
    from kbsim.sim.run import RunInterrupted, progress_bar, stop_on_signals
    from kbsim.sim.study import StudyError, build_dir, load_study, plan_study, run_study

    ck.check_workers(workers)
    ck.check_games(games)
    try:
        plan = plan_study(load_study(study), records_dir=records, games=games)
    except StudyError as e:
        fail(str(e))  # one line per problem
    explicit = out_path is not None
    if out_path is None:  # a quick look (--games) writes its own page, never the full study's
        name = ck.safe_name(plan.study.name) + (f"-n{games}" if games is not None else "")
        out_path = build_dir(plan.source) / f"{name}.html"
    ck.check_out(out_path, "report", force, explicit=explicit, protected=(plan.source,))
    with stop_on_signals(linger=True) as stop:
        stop.note = f"finished chunks are kept in {plan.records_dir}; run the same command again to continue"
        try:
            if progress and err.is_terminal and not json_out:
                with progress_bar(err, None) as bar:
                    stats = run_study(plan, workers, progress=bar.update)
            else:
                stats = run_study(plan, workers)
            result = write_report(study_input(plan), out_path)
        except (StudyError, ReportError) as e:
            fail(str(e))  # one line per problem
        except (KeyboardInterrupt, RunInterrupted):
            print(
                f"kbsim: interrupted; finished chunks are kept in {plan.records_dir}; run the same command again "
                f"to continue",
                file=sys.stderr,
            )
            sys.exit(stop.exit_code)
    head = [
        f"games: {stats.games_played:,} played now in {stats.played} of {stats.runs} runs, {stats.reused} runs "
        f"reused from {plan.records_dir}"
    ]
    print_report(
        result,
        head,
        json_out,
        {
            "study": str(plan.source),
            "runs": stats.runs,
            "runs_reused": stats.reused,
            "runs_played": stats.played,
            "games_played": stats.games_played,
            "records": str(plan.records_dir),
        },
    )
