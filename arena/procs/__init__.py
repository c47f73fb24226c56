"""Bot processes: starting, confining, reaching and stopping the programs that play.

``botproc`` spawns one bot process and stops it, ``pool`` keeps one per pool key across games
(warm starts: ``warm``); ``hub`` and ``doors`` are the arena's end of the wire (one private door
per process, tokens, peers); ``remote`` lets bots started elsewhere join over TCP; ``sandbox``
(bubblewrap), ``limits`` (the ``Limits`` value, rlimits, cgroups, killing a process tree),
``identity`` (a uid of its own per bot as root), ``reach`` (folders a bot user may enter),
``lifetime``, ``procfs``, ``seccomp`` (the system-call filter), ``ipc_namespaces``, ``specials``
and ``janitor`` confine a bot and clean up after it (``probe`` tests once whether a way of
confining works here); ``logs`` keeps its output. Nothing here knows a game's rules or a
tournament.
"""
