"""``uno-env serve``: play, watch and replay games in the browser.

A local web app (Starlette on uvicorn, websockets) bound to 127.0.0.1 by default: a page
served from the package (plain JavaScript, no build step) to set up a table (a preset,
house-rule switches with the fields and validation of rule files, 2-10 seats, each a person
or an agent), play it with the legal moves highlighted, invite other people to its seats by
link, and replay any game record step by step with every hand shown, the agents' reasons
beside their decisions and each seat's chance of winning drawn along the game.

- :mod:`training.serve.views`: what a seat may see (the one function) and the controls;
- :mod:`training.serve.protocol`: the messages a page may send, checked;
- :mod:`training.serve.tables`: tables, seats, connections, records;
- :mod:`training.serve.seats`: the agents a page may seat and how they are built;
- :mod:`training.serve.explain`: what an agent saw, the win-chance estimators;
- :mod:`training.serve.replays`: records stepped through;
- :mod:`training.serve.app`: the ASGI app; :mod:`training.serve.cli`: the command;
- :mod:`training.serve.results`: ``uno-env results``, people against agents with intervals.

The web dependencies are the ``web`` extra (``pip install 'uno-env[web]'``); the command
checks for them before it starts.
"""
