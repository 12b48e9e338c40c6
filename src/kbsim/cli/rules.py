"""``kbsim rules check|show|schema|test|publish``: check, show, test, describe and publish rule files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from kbsim.cli.checks import esc
from kbsim.cli.common import (
    OptionOpt,
    VariantOpt,
    err,
    fail,
    load,
    out,
)
from kbsim.rules.files import display_path
from kbsim.strict_io import dumps_json


def rules_check(
    files: Annotated[
        Optional[list[str]], typer.Argument(help="Rule files or game names (default: every shipped rule file).")
    ] = None,
) -> None:
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
        where = display_path(loaded.source, with_path=True)
        out.print(
            f"ok: {where} ({loaded.model.title}, {len(loaded.model.options)} options, "
            f"{len(loaded.model.variants)} variants, {len(loaded.model.examples)} examples)",
            highlight=False,
            markup=False,
        )
    if bad:
        raise typer.Exit(2)


def rules_show(
    game: Annotated[str, typer.Argument(help="Game name or rule file.")] = "kingsbridge",
    variant: VariantOpt = [],  # noqa: B006
    option: OptionOpt = [],  # noqa: B006
    json_out: Annotated[bool, typer.Option("--json", help="Print the validated rules as JSON.")] = False,
) -> None:
    """Print a readable summary of a game's rules, options and variants."""
    loaded, g = load(game, variant, option)
    m = loaded.model
    if json_out:
        print(m.model_dump_json(indent=2, by_alias=True))
        return
    where = esc(display_path(loaded.source, with_path=True))
    out.print(f"[bold]{esc(m.title)}[/] ({esc(m.game)}), {m.players.min}-{m.players.max} players — {where}")
    out.print(m.summary, highlight=False, markup=False)
    sections = m.sections()
    for title, text in sections:
        out.print(f"\n[bold]{esc(title)}[/]\n{esc(text)}", highlight=False)
    t = Table(
        title="Options (value in force; * = changed from the file's default)",
        caption="confidence: R = stated by the rulebook, I = inferred from it, ? = a guess (so the option matters)",
    )
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
        t.add_row(esc(name), esc(", ".join(f"{k}={val}" for k, val in v.options.items()) or "overlay"), esc(v.summary))
    out.print(t)


def rules_schema(
    family: Annotated[
        str,
        typer.Option(help="Which rule files: rows (Kingsbridge, King's Corners), market (Continental Express) or all."),
    ] = "all",
) -> None:
    """Print the JSON Schema of rule files (for editors and validators)."""
    from kbsim.rules.families import RULE_MODELS, json_schema

    choices = [*RULE_MODELS, "all"]
    if family not in choices:
        fail(f"--family {family!r}: expected one of: {', '.join(choices)}")
    schema = json_schema(family)
    print(dumps_json(schema, indent=2))


def rules_test(
    files: Annotated[
        Optional[list[str]],
        typer.Argument(
            help="Rule files / game names to run the examples of, or extra example files "
            "(a YAML file with `rules:` and `examples:`). Default: every shipped rule file."
        ),
    ] = None,
) -> None:
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
            fail(str(e))  # one line per problem
    failed = [r for r in results if not r.ok]
    for r in failed:
        err.print(f"FAIL {display_path(r.source)} :: {r.name}: {r.message}", highlight=False, markup=False)
    print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
    if failed:
        raise typer.Exit(1)


def rules_publish(
    games: Annotated[
        list[str], typer.Argument(help="Shipped game names or rule files (several make one site).", show_default=False)
    ],
    site: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help="The site's folder: new or empty, or a site kbsim published there (with --force).",
            show_default=False,
        ),
    ],
    title: Annotated[
        Optional[str], typer.Option(help="The site's title (default: the game's title).", show_default=False)
    ] = None,
    reports: Annotated[
        list[Path],
        typer.Option(
            "--reports",
            help="A report page of kbsim report or compare to publish beside the rules, linked from each game's "
            "first page (repeatable).",
        ),
    ] = [],  # noqa: B006
    force: Annotated[
        bool, typer.Option("--force", help="Replace a site kbsim published in that folder (never any other folder).")
    ] = False,
) -> None:
    """Publish the searchable rules reference of rule files as a static site (needs: pip install "kbsim[docs]").

    The site works opened from disk and on any static host; see the guide's page "Publish your game's
    reference". The text is in the rule files' language (their language: field, default en).
    """
    try:
        from kbsim.sphinx.publish import PublishError, build_site, plan_site
    except ImportError as e:
        fail(f'kbsim rules publish needs Sphinx and its theme ({e.name} is missing): pip install "kbsim[docs]"')
    try:
        plan = plan_site(games, site, title, reports, force)
    except PublishError as e:
        for line in e.lines:
            err.print(f"kbsim: error: {line}", highlight=False, markup=False)
        raise typer.Exit(2) from None
    err.print(f"building the reference of {', '.join(plan.titles)} in {site} ...", highlight=False, markup=False)
    try:
        built = build_site(plan)
    except RuntimeError as e:
        err.print(f"kbsim: error: {e}", highlight=False, markup=False)
        raise typer.Exit(1) from None
    for line in built.warnings:
        err.print(f"kbsim: warning: {line}", highlight=False, markup=False)
    how = "updated" if built.incremental else "built"
    out.print(
        f"published: {built.index} ({built.pages} pages, {len(plan.games)} game(s), {how} in {built.seconds:.1f} s); "
        "open it in a browser, or put the folder online as it is",
        highlight=False,
        markup=False,
    )
