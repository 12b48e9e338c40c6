"""Labels that name a seat's role come from the rules, through the records (issue #28, item 4).

King's Corners starts left of the dealer (seat 1 plays first, seat 0 deals), but the terminal summary and the
report said "seat 0 plays first" and measured the first-player advantage on seat 0. The rules' seat roles now
travel in the records' metadata (``rules.seats``), and the analysis names and measures the first player from them.
"""

from __future__ import annotations

import json

import pytest

from conftest import run_cli
from kbsim.analysis.seats import first_seat, starts_text
from kbsim.analysis.summary import summarize
from kbsim.records import read_metadata

KINGS_CORNERS = {"dealer": 0, "first_after_dealer": 1, "dealer_moves": True}
KINGSBRIDGE = {"dealer": 0, "first_after_dealer": 0, "dealer_moves": False}


def test_the_first_seat_and_its_words_come_from_the_seat_roles():
    assert first_seat(KINGS_CORNERS, 2) == 1 and first_seat(KINGS_CORNERS, 4) == 1
    assert first_seat(KINGSBRIDGE, 4) == 0 and first_seat(None, 4) == 0
    assert starts_text(KINGS_CORNERS, 3) == "seat 1 plays first (seat 0 deals; the deal moves on each hand)"
    assert starts_text(KINGS_CORNERS) == "the next seat plays first (seat 0 deals; the deal moves on each hand)"
    assert starts_text(KINGSBRIDGE, 4) == "seat 0 deals and plays first"
    assert "assumed" in starts_text(None, 4)


def test_the_summary_measures_the_first_player_on_the_seat_that_starts():
    cols = {
        "game_index": list(range(6)),
        "players": [3] * 6,
        "winners": [[1], [1], [1], [1], [0], [2]],
        "end_reason": ["won"] * 6,
        "turns": [10] * 6,
    }
    r = summarize(cols, seats=KINGS_CORNERS)
    assert r["starts"].startswith("seat 1 plays first") and r["first_seat"] == 1
    assert r["seat_balance"]["verdict"]["first"]["seat"] == 1
    assert r["seat_balance"]["verdict"]["first"]["gap"] == pytest.approx(4 / 6 - 1 / 3)


@pytest.mark.parametrize(("game", "seats", "words"), [("kings-corners", KINGS_CORNERS, "seat 1 plays first")])
def test_records_carry_the_seat_roles_and_the_run_summary_names_the_first_player(tmp_path, game, seats, words):
    out = tmp_path / "r.parquet"
    r = run_cli(
        "run", "-g", game, "-p", "3", "-n", "6", "--seed", "3", "--workers", "1", "-o", str(out), "--json", cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr
    assert read_metadata(out)["rules"]["seats"] == seats
    s = json.loads(r.stdout)
    assert s["starts"].startswith(words) and s["first_seat"] == 1


def test_a_report_names_and_measures_the_first_player_from_the_records(tmp_path):
    from kbsim.analysis.arms import compute
    from kbsim.analysis.figures import build_figures
    from kbsim.analysis.reading import compare_input

    out = tmp_path / "kc.parquet"
    r = run_cli(
        "run",
        "-g",
        "kings-corners",
        "-p",
        "2",
        "-n",
        "8",
        "--seed",
        "5",
        "--workers",
        "1",
        "-o",
        str(out),
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    inp = compare_input([out])
    assert inp.seats == KINGS_CORNERS
    st = compute(inp)
    (g,) = st["groups"].values()
    assert g["first"] == 1 and g["balance"]["verdict"]["first"]["seat"] == 1
    caption = next(f["caption"] for f in build_figures(inp, st) if f["id"].endswith("-seats"))
    assert "the next seat plays first (seat 0 deals" in caption and "seat 0 deals and plays first" not in caption
