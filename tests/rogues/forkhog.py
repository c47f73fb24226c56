"""Before saying hello, forks ARENA_BOT_CHILDREN children (default 5) that each allocate and
touch ARENA_BOT_CHILD_MB (default 150) MB and hold it until all have allocated or died, then
logs ``forkhog: held=N killed=N`` (the most children holding their memory at once, and how
many were killed) and plays legal[0]. Every process stays under RLIMIT_AS; only a limit on the
whole tree stops them."""

import os
import select

children, size = (
    int(os.environ.get("ARENA_BOT_CHILDREN", "5")),
    int(os.environ.get("ARENA_BOT_CHILD_MB", "150")) << 20,
)
ready_r, ready_w = os.pipe()
release_r, release_w = os.pipe()
pids = []
for _ in range(children):
    pid = os.fork()
    if pid == 0:
        os.close(ready_r)
        os.close(release_w)
        hoard = bytearray(b"\1") * size  # every page touched
        os.write(ready_w, f"{os.getpid()}\n".encode())
        os.read(release_r, 1)  # hold until released (EOF)
        os._exit(0)
    pids.append(pid)
os.close(ready_w)
os.close(release_r)
held = killed = 0
alive, holding, said = set(pids), set(), b""


def reap():
    global killed
    for pid in list(alive):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            alive.discard(pid)
            holding.discard(pid)
            killed += 1


while alive - holding:
    ready = select.select([ready_r], [], [], 0.05)[0]
    said += os.read(ready_r, 4096) if ready else b""
    reap()  # a child killed to make room for another is gone before it says so
    *lines, said = said.split(b"\n")
    holding.update(int(line) for line in lines if int(line) in alive)
    held = max(held, len(holding))
os.close(release_w)
for pid in alive:
    os.waitpid(pid, 0)

from _wire import reply, say, serve  # noqa: E402 - ZeroMQ starts after the children

say(f"forkhog: held={held} killed={killed}")
serve(lambda sock, turn, n: reply(sock, turn, turn["legal"][0]))
