"""Opens thousands of connections to the arena before saying hello, then tries to play.

ARENA_BOT_CONNECTIONS (default 3000) raw unix-socket connections from each of ARENA_BOT_PROCS
(default 4) processes, then 100 ZeroMQ DEALERs; with ARENA_BOT_OTHERS=1 it first looks for the
other bots' endpoints next to its own and floods those. Logs what it managed, then says hello
and plays legal[0] if it is welcomed.
"""

import os
import socket
import sys
import time

path = os.environ["ARENA_ENDPOINT"][len("ipc://") :]
COUNT = int(os.environ.get("ARENA_BOT_CONNECTIONS", "3000"))
PROCS = int(os.environ.get("ARENA_BOT_PROCS", "4"))


def flood(target, count):
    """Connect ``count`` times to ``target`` (kept open); the number made and what stopped it."""
    held, stopped = [], "nothing"
    for _ in range(count):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(0.5)
        try:
            sock.connect(target)
        except OSError as exc:
            sock.close()
            stopped = exc.__class__.__name__
            break
        held.append(sock)
    return held, stopped


def others():
    """Socket files of other bots' endpoints, if any can be seen."""
    own = os.path.dirname(path)
    try:
        names = os.listdir(os.path.dirname(own))
    except OSError:
        return []
    found = [os.path.join(os.path.dirname(own), name, os.path.basename(path)) for name in names]
    return [p for p in found if os.path.dirname(p) != own and os.path.exists(p)]


targets = others() if os.environ.get("ARENA_BOT_OTHERS") == "1" else []
reached = sum(len(flood(target, 200)[0]) for target in targets)
print(f"connect_flood: others={len(targets)} reached={reached}", flush=True)
children = []
for _ in range(PROCS - 1):  # before ZeroMQ starts any thread
    pid = os.fork()
    if pid == 0:
        held, _ = flood(path, COUNT)
        time.sleep(1)
        os._exit(0)
    children.append(pid)
held, stopped = flood(path, COUNT)
for pid in children:
    os.waitpid(pid, 0)

import msgpack  # noqa: E402
import zmq  # noqa: E402

from _wire import connect, reply, say, serve  # noqa: E402

dealers = [zmq.Context.instance().socket(zmq.DEALER) for _ in range(100)]
for dealer in dealers:
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.connect(os.environ["ARENA_ENDPOINT"])
say(f"connect_flood: made {len(held)} connections, then {stopped}")
sock = connect()
if not sock.poll(3000):
    say("connect_flood: no welcome")
    sys.exit(2)
assert msgpack.unpackb(sock.recv())["type"] == "welcome"
serve(lambda sock, turn, n: reply(sock, turn, turn["legal"][0]), sock=sock)
