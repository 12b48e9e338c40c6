"""``kbsim tune``: search a rule file's options for the most balanced game, changing as few rules as possible.

A tune study (a study file with a ``[tune]`` section, :mod:`kbsim.sim.tune_spec`) names
the options to search and the targets to reach. The package sits above the analysis
(it plays games through :mod:`kbsim.sim` and reads their statistics with
:mod:`kbsim.analysis.metrics`):

* :mod:`kbsim.tune.space`: the search space, checked against the rule file, and the check that the targets are
  measurable;
* :mod:`kbsim.tune.measures`: per-deal statistics from records, measures, losses, the objective;
* :mod:`kbsim.tune.evaluate`: playing a setting on blocks of deals (common random numbers);
* :mod:`kbsim.tune.search`: the Optuna search with successive halving, resumable;
* :mod:`kbsim.tune.choose`: fewest changes;
* :mod:`kbsim.tune.verify`: the replay on fresh deals and the skill check;
* :mod:`kbsim.tune.tuning`: the whole run; :mod:`kbsim.tune.page`: the report page and the terminal summary.
"""

from kbsim.tune.tuning import TunePlan, TuneResult, plan_tuning, run_tuning

__all__ = ["TunePlan", "TuneResult", "plan_tuning", "run_tuning"]
