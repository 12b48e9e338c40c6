"""The rows family: games played on rows of cards built in sequence.

Same file roles as :mod:`kbsim.engine.market`: :mod:`~kbsim.engine.rows.compiled` (rule file -> compiled
game), :mod:`~kbsim.engine.rows.state` (the table), :mod:`~kbsim.engine.rows.moves` (move types),
:mod:`~kbsim.engine.rows.turn` (one seat's turn), :mod:`~kbsim.engine.rows.movegen` (the legal-move
listing), :mod:`~kbsim.engine.rows.powers` (character powers), :mod:`~kbsim.engine.rows.game` (the game
loop), :mod:`~kbsim.engine.rows.notation`, :mod:`~kbsim.engine.rows.examples` and
:mod:`~kbsim.engine.rows.search` (the turn planner).
"""
