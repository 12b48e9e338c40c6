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
    run_failed,
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
    ladder: Annotated[
        Optional[str],
        typer.Option(
            "--ladder",
            help="Skill ladder: bot specs from the weakest to the strongest, comma-separated (greedy,planner or "
            "greedy,search(iterations=100)); every arm whose lineup is one bot is played once per rung, the rung's "
            "bot in every seat. SPEC:N plays a rung on the first N of the study's deals per cell "
            "(greedy,planner,search:300). Replaces the study's ladder.",
        ),
    ] = None,
    until_decided: Annotated[
        bool,
        typer.Option(
            "--until-decided",
            help="Play deals in batches until every comparison is resolved or within the equivalence margin, or "
            "the cap (--games, else the study's games) is reached: a group-sequential test with Lan-DeMets "
            "O'Brien-Fleming alpha spending. Batch and margins: the study's [until_decided] table.",
        ),
    ] = False,
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
    from kbsim.sim.run import BackendError, RunFailed, RunInterrupted, progress_bar, stop_on_signals
    from kbsim.sim.study import StudyError, UntilDecided, build_dir, load_study, plan_study, run_study, with_ladder

    ck.check_workers(workers)
    ck.check_games(games)
    try:
        loaded = load_study(study)
    except StudyError as e:
        fail(str(e))  # one line per problem
    if ladder is not None:
        try:
            loaded = with_ladder(loaded, _ladder(ladder))
        except StudyError as e:  # (the ladder came from the command line, not the file: say so on every line)
            fail("\n".join(f"--ladder {ladder}: {line.split(': ', 1)[-1]}" for line in e.lines))
    try:
        plan = plan_study(loaded, records_dir=records, games=games)
    except StudyError as e:
        fail(str(e))  # one line per problem
    settings = plan.study.until_decided
    if until_decided and settings is None:
        settings = UntilDecided()
    explicit = out_path is not None
    if out_path is None:  # a quick look (--games) writes its own page, never the full study's
        name = ck.safe_name(plan.study.name) + (f"-n{games}" if games is not None else "")
        out_path = build_dir(plan.source) / f"{name}.html"
    ck.check_out(out_path, "report", force, explicit=explicit, protected=(plan.source,))
    show = progress and err.is_terminal and not json_out
    with stop_on_signals(linger=True) as stop:
        stop.note = f"finished chunks are kept in {plan.records_dir}; run the same command again to continue"
        try:
            if settings is not None:
                stats, result, stopping = _until_decided(plan, settings, workers, show, out_path)
            else:
                if show:
                    with progress_bar(err, None) as bar:
                        stats = run_study(plan, workers, progress=bar.update)
                else:
                    stats = run_study(plan, workers)
                result = write_report(study_input(plan), out_path)
                stopping = None
        except (StudyError, ReportError, BackendError) as e:
            fail(str(e))  # one line per problem
        except RunFailed as e:
            run_failed(e, f"finished chunks are kept in {plan.records_dir}")
        except (KeyboardInterrupt, RunInterrupted):
            print(
                f"kbsim: interrupted; finished chunks are kept in {plan.records_dir}; run the same command again "
                f"to continue",
                file=sys.stderr,
            )
            sys.exit(stop.exit_code)
    head = [
        f"games: {stats.games_played:,} played now in {stats.played} of {stats.runs} "
        f"run{'' if stats.runs == 1 else 's'}, {stats.reused} run{'' if stats.reused == 1 else 's'} "
        f"reused from {plan.records_dir}"
    ]
    if stopping is not None:
        head.append(stopping.sentence)
    print_report(
        result,
        head,
        json_out,
        {
            "stopping": None if stopping is None else stopping.as_dict(),
            "study": str(plan.source),
            "runs": stats.runs,
            "runs_reused": stats.reused,
            "runs_played": stats.played,
            "games_played": stats.games_played,
            "records": str(plan.records_dir),
        },
    )


def _ladder(text: str) -> list:
    """The rungs of ``--ladder`` (commas inside parentheses belong to a spec; ``SPEC:N`` a rung's own deals)."""
    from kbsim.sim.ladder_spec import parse_ladder

    try:
        return list(parse_ladder(text))
    except ValueError as e:
        fail(f"--ladder {text}: {e}")
        raise  # unreachable: fail raises


def _until_decided(plan, settings, workers: int | None, show: bool, out_path: Path):
    """Play the study look by look until every comparison is decided (or the cap); write the page of the last look.

    Returns:
        ``(run statistics, report result, stopping record)``.
    """
    from kbsim.analysis.reading import study_input
    from kbsim.analysis.report import write_report
    from kbsim.analysis.sequential import run_until_decided
    from kbsim.sim.run import progress_bar
    from kbsim.sim.study import RunStats, run_study

    total = RunStats(runs=len(plan.runs), paths=[r.path for r in plan.runs])

    def look(n: int):
        if show:
            with progress_bar(err, None) as bar:
                st = run_study(plan, workers, progress=bar.update, upto=n)
        else:
            st = run_study(plan, workers, upto=n)
        total.games_played += st.games_played
        total.played = max(total.played, st.played)
        return study_input(plan, upto=n)

    def said(stopping) -> None:
        err.print(
            f"look {len(stopping.looks)}: {stopping.looks[-1]:,} deals per cell; {stopping.resolved} resolved, "
            f"{stopping.equivalent} within the margin, {stopping.open} open",
            highlight=False,
        )

    batch = settings.batch_for(plan.games)
    inp, stats, stopping = run_until_decided(
        look,
        plan.games,
        batch,
        settings.margin / 100,
        settings.turns_margin,
        settings.changes_margin,
        on_look=said if show else None,
    )
    total.reused = total.runs - total.played
    return total, write_report(inp, out_path, stats=stats), stopping
