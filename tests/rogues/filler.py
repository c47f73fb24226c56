"""Tries to fill every place it can write to, logs what happened, then plays legal[0].

In each of its TMPDIR, /tmp, /var/tmp and /dev/shm it writes one file as big as it can (up to
ARENA_BOT_MB, default 200) and ARENA_BOT_FILES (default 2000) empty files, all named after
ARENA_BOT_MARKER. Logs ``filler: PLACE=MB/FILES ...`` (MB written to the big file and files made,
or the exception's class name where nothing could be written).
"""
import os
import tempfile

from _wire import env, reply, say, serve

marker, mb, files = env("MARKER", "filler"), int(env("MB", "200")), int(env("FILES", "2000"))
chunk = b"x" * (1 << 20)


def fill(place):
    written = made = 0
    try:
        with open(os.path.join(place, f"{marker}-big"), "wb") as handle:
            for _ in range(mb):
                handle.write(chunk)
                handle.flush()
                written += 1
    except OSError as exc:
        if not written:
            return exc.__class__.__name__
    try:
        folder = os.path.join(place, f"{marker}-many")
        os.mkdir(folder)
        for n in range(files):
            open(os.path.join(folder, str(n)), "w").close()
            made += 1
    except OSError:
        pass
    return f"{written}/{made}"


places = {"tmpdir": tempfile.gettempdir(), "tmp": "/tmp", "var_tmp": "/var/tmp",
          "shm": "/dev/shm"}
say("filler:", " ".join(f"{key}={fill(path)}" for key, path in places.items()))
serve(lambda sock, turn, n: reply(sock, turn, turn["legal"][0]))
