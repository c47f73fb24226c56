"""Before saying hello, forks ARENA_BOT_CHILDREN children (default 5) that each allocate and
touch ARENA_BOT_CHILD_MB (default 150) MB and hold it until all have allocated or died, then
logs ``forkhog: held=N killed=N`` and plays legal[0]. Every process stays under RLIMIT_AS; only
a limit on the whole tree stops them."""
import os
import select

children, size = int(os.environ.get("ARENA_BOT_CHILDREN", "5")), \
    int(os.environ.get("ARENA_BOT_CHILD_MB", "150")) << 20
ready_r, ready_w = os.pipe()
release_r, release_w = os.pipe()
pids = []
for _ in range(children):
    pid = os.fork()
    if pid == 0:
        os.close(ready_r)
        os.close(release_w)
        hoard = bytearray(b"\1") * size           # every page touched
        os.write(ready_w, b"+")
        os.read(release_r, 1)                     # hold until released (EOF)
        os._exit(0)
    pids.append(pid)
os.close(ready_w)
os.close(release_r)
held = killed = 0
alive = set(pids)
while held + killed < children:
    if select.select([ready_r], [], [], 0.05)[0]:
        held += len(os.read(ready_r, 64))
    for pid in list(alive):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            alive.discard(pid)
            killed += 1
os.close(release_w)
for pid in alive:
    os.waitpid(pid, 0)

from _wire import reply, say, serve  # noqa: E402 - ZeroMQ starts after the children

say(f"forkhog: held={held} killed={killed}")
serve(lambda sock, turn, n: reply(sock, turn, turn["legal"][0]))
