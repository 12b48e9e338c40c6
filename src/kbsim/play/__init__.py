"""``kbsim play``: a person plays a game against the bots in the terminal, and the game becomes a record.

* :mod:`kbsim.play.session`: the game (the family's own game loop in a thread; the person's seat waits for
  commands), saving after every move and resuming exactly;
* :mod:`kbsim.play.app`: the terminal interface (Textual);
* :mod:`kbsim.play.rows`, :mod:`kbsim.play.market`: each engine family's part (drawing its table as one seat
  sees it, its moves and their rules), found through :attr:`kbsim.engine.families.Family.play_ui`;
* :mod:`kbsim.play.store`: the records file and the saved game;
* :mod:`kbsim.play.script`: replaying a move log (a record's ``moves``) with the family's game loop.
"""
