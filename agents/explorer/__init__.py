"""The strategy explorer in the browser (``scripts/serve.py``, ``make serve``): the web app
(:mod:`~splitpoker.agents.explorer.app`) over the exact solver and the house ways
(:mod:`~splitpoker.agents.explorer.engine`), the cards as the pages draw them
(:mod:`~splitpoker.agents.explorer.cards`) and the trained agents it compares
(:mod:`~splitpoker.agents.explorer.agents`)."""
