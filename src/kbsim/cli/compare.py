"""``kbsim compare``: a report page from existing records files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from kbsim.cli.common import (
    ForceOpt,
    fail,
    print_report,
)


def compare(
    files: Annotated[
        list[Path],
        typer.Argument(
            help="Records files (Parquet) written by kbsim run or kbsim report, or folders of them (every .parquet "
            "in the folder, by name); the first file's arm is the baseline."
        ),
    ],
    out_path: Annotated[
        Optional[Path], typer.Option("--out", "-o", help="HTML file to write (default: reports/_build/compare-….html).")
    ] = None,
    force: ForceOpt = False,
    json_out: Annotated[bool, typer.Option("--json", help="Print the summary as JSON on stdout.")] = False,
) -> None:
    """Build a report page from existing records: arms side by side, paired on shared deals.

    Files with the same variant, options and bots form one arm. Example:
    kbsim compare runs/base.parquet runs/either-end.parquet -o compare.html
    """
    from kbsim.analysis.reading import ReportError, compare_input
    from kbsim.analysis.report import write_report
    from kbsim.cli import checks as ck
    from kbsim.records import RecordsError, records_files

    try:
        files = [f for arg in files for f in records_files(arg)]  # a folder: every records file in it
    except RecordsError as e:
        fail(str(e))
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
        fail(str(e))  # one line per problem
    head = []
    if len(files) > 1 and len(inp.conditions) == 1:  # same variant, options and bots: the files are pooled
        head.append(
            f"note: the {len(files)} files have the same variant, options and bots, so they form one arm "
            "(their games pooled): there is nothing to compare"
        )
    print_report(result, head, json_out, {"files": [str(f) for f in files]})
