"""A run's identity holds every bot parameter, defaults included: records of a bot whose defaults changed are
never reused as the new bot's (its canonical spec, ``search``, is the same text before and after)."""

from __future__ import annotations

from pydantic import BaseModel

import kbsim
import kbsim.bots as bots_module
from kbsim.bots import canonical_bot
from kbsim.bots.params import SEARCH_DEPTH, SEARCH_ITERATIONS
from kbsim.sim.runner import RunSpec, bot_parameters


def _spec(bots: tuple[str, ...]) -> RunSpec:
    return RunSpec(game=kbsim.load_game("kingsbridge", ()), players=len(bots), bots=bots, games=3, seed=5)


def test_the_identity_holds_the_search_bots_defaults():
    ident = _spec(("search", "planner")).parameters()
    assert ident["bot_parameters"]["search"]["iterations"] == SEARCH_ITERATIONS
    assert ident["bot_parameters"]["search"]["depth"] == SEARCH_DEPTH
    assert ident["bot_parameters"]["planner"] == {"budget": 3000}
    assert "bot_parameters" not in _spec(("greedy", "random")).parameters()  # bots without parameters: as before
    # the same bot written out in full is the same run (specs are canonical by then); another budget another run
    assert _spec(("search", "planner")).run_id == _spec(("search", canonical_bot("planner(budget=3000)"))).run_id
    assert _spec(("search", "planner")).run_id != _spec(("search(iterations=8)", "planner")).run_id


def test_a_changed_default_changes_the_run_id(monkeypatch):
    class Old(BaseModel):
        iterations: int = 128

    class New(BaseModel):
        iterations: int = 256

    class Before:  # the bot of one kbsim release
        Params = Old

    class After:  # the same bot (same name, same canonical spec "x") in a release with another default
        Params = New

    registry: dict[str, type] = {"x": Before}
    monkeypatch.setattr(bots_module, "bots_for", lambda family="rows": registry)
    before = bot_parameters(["x"], "rows")
    registry["x"] = After
    after = bot_parameters(["x"], "rows")
    assert before == {"x": {"iterations": 128}} and after == {"x": {"iterations": 256}}


def test_a_persons_seat_has_no_parameters_to_hold():
    """Handed case (CI): `kbsim play` records a person's seat as ``human``, which no family's bots know: the run's
    identity must still be made (every play-session test failed with "unknown bot 'human'")."""
    assert bot_parameters(["human", "planner"], "rows") == {"planner": {"budget": 3000}}
    assert bot_parameters(["human"], "market") == {}
