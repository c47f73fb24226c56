"""``arena serve`` and ``arena export``: a read-only web face of the results database.

Rankings, tournaments (live while they run), bots and game replays as pages, each with a JSON
twin under ``/api/``; the same pages exported as static files. Never writes to the database.
"""
