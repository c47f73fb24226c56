"""The arena's process records: every bot process of a tournament's runs, and their audit.

A record (``ProcessRecord``) names a process's entrant, run, phase, host and pid, when it
started and when it ended; a game names the process at each of its seats (``process_games``,
written with the game by ``Store.record_game``). ``shared_deal_overlaps`` is the audit:
processes of one entrant that played rotations of one deal while both were alive (there must be
none).

``ProcessRecords`` is the part of an open ``tournaments.store.facts.Store`` that the store hands out
as ``store.processes``, over its connection and write transactions.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from tournaments.store.database import StorePart, guarded
from tournaments.store.values import ProcessRecord

__all__ = ["ProcessRecords"]


def _instant(seconds: float) -> str:
    """A process record's time (seconds since the epoch) as stored: ISO text, in UTC, to the
    microsecond (so that text order is time order)."""
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="microseconds")


def _now() -> float:
    return datetime.now(UTC).timestamp()


class ProcessRecords(StorePart):
    """The process records of a store's tournaments (``store.processes``)."""

    @guarded("recording bot processes")
    def record(self, tid: int, records: Iterable[ProcessRecord]) -> None:
        """Keep the records of bot processes of tournament ``tid`` (a record already kept is
        replaced: a process is recorded when it starts, and again when it ends)."""
        rows = [
            (
                r.token,
                tid,
                r.entrant,
                r.run,
                r.phase,
                r.host,
                r.pid,
                int(r.remote),
                _instant(r.started_at),
                None if r.ended_at is None else _instant(r.ended_at),
                int(r.confirmed),
            )
            for r in records
        ]
        if rows:
            with self.store.write() as conn:
                conn.executemany(
                    "INSERT OR REPLACE INTO processes (token, tournament_id, entrant, run, "
                    "phase, host, pid, remote, started_at, ended_at, confirmed) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    rows,
                )

    @guarded("closing the process records of a stopped run")
    def close_lost(self, tid: int) -> int:
        """Mark ended, now, the processes of tournament ``tid`` whose run was killed before it
        could record their end (they died with it, or with its workers' leases); returns how
        many. A run calls this before it starts any process."""
        with self.store.write() as conn:
            return conn.execute(
                "UPDATE processes SET ended_at = ?, confirmed = 0 "
                "WHERE tournament_id = ? AND ended_at IS NULL",
                (_instant(_now()), tid),
            ).rowcount

    @guarded("reading the process records")
    def of(self, tid: int) -> list[ProcessRecord]:
        """The process records of tournament ``tid``, by start."""
        rows = self.db.execute(
            "SELECT token, entrant, run, phase, host, pid, remote, started_at, ended_at, "
            "confirmed FROM processes WHERE tournament_id = ? ORDER BY started_at, token",
            (tid,),
        ).fetchall()
        return [
            ProcessRecord(
                token=token,
                entrant=entrant,
                run=run,
                phase=phase,
                host=host,
                pid=pid,
                remote=bool(remote),
                started_at=datetime.fromisoformat(started).timestamp(),
                ended_at=None if ended is None else datetime.fromisoformat(ended).timestamp(),
                confirmed=bool(confirmed),
            )
            for token, entrant, run, phase, host, pid, remote, started, ended, confirmed in rows
        ]

    @guarded("auditing the process records")
    def shared_deal_overlaps(self, tid: int) -> list[tuple[str, str, str, int]]:
        """The audit of the process records: every pair of processes (tokens) of one entrant
        that played games of one deal in different seat rotations while both were alive (a
        process whose end is not recorded counts as alive until now), as (entrant, token,
        token, deal seed); a process that played two rotations of one deal is such a pair with
        itself. There must be none; remote bots, one connection for every rotation (the
        documented exception), are left out."""
        now = _instant(_now())
        return [
            tuple(row)
            for row in self.db.execute(
                """
                SELECT DISTINCT a.entrant, a.token, b.token, ga.deal_seed
                FROM processes a
                JOIN process_games pa ON pa.process = a.token
                JOIN games ga ON ga.id = pa.game_id
                JOIN games gb ON gb.tournament_id = ga.tournament_id
                    AND gb.deal_seed = ga.deal_seed AND gb.rotation != ga.rotation
                JOIN process_games pb ON pb.game_id = gb.id
                JOIN processes b ON b.token = pb.process AND b.entrant = a.entrant
                WHERE a.tournament_id = ? AND a.token <= b.token AND NOT a.remote
                    AND a.started_at < COALESCE(b.ended_at, ?)
                    AND b.started_at < COALESCE(a.ended_at, ?)
                ORDER BY a.entrant, ga.deal_seed
                """,
                (tid, now, now),
            ).fetchall()
        ]
