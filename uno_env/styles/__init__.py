"""Play styles: the compiled styles, their registry, the one dispatcher and what an agent sees.

- :mod:`.params`: the parameter array (one slot per parameter name) and the style records;
- :mod:`.facts`: what the player to move may read, and the ideas the styles share;
- the kernels, each module with its styles' registry entries: :mod:`.baselines` (the random
  players), :mod:`.scripted` (card-score styles), :mod:`.monte_carlo` and :mod:`.search`
  (planning), all playing on through the one :mod:`.rollout`;
- :mod:`.dispatch`: :func:`~uno_env.styles.dispatch.choose_action`, the one entry point;
- :mod:`.registry`: names, codes, parameters and their text form;
- :mod:`.view`: :class:`~uno_env.styles.view.PublicView`, what a Python agent may see.

Imports point one way: params and facts, then the kernels, then dispatch, registry and view
(``tests/test_layering.py`` checks that ``uno_env`` has no import cycle).
"""
