"""Uptown for the game-AI ecosystem: an OpenSpiel game, OpenSpiel bots as arena bots, a PettingZoo environment.

Each module needs its optional libraries (``pip install 'uptown-arena[openspiel]'`` or ``[rl]``) and imports
them only when it is imported itself: :mod:`.openspiel_game` registers ``python_uptown`` with
``pyspiel``; :mod:`.openspiel_bot` turns an OpenSpiel bot into an arena bot; :mod:`.pettingzoo_env` is the
AEC environment ``uptown_v0`` and :mod:`.opponents` seats arena bots inside it.  :mod:`.extras` says which
of them can be used here, without importing any.  All of them speak :mod:`arena.spaces`.
"""
