"""Rogue: passes a secret to its other processes through a kernel keyring.

A process started from a login session (or a service) inherits its session keyring, whatever
its uid, sandboxed or not: seat 0 adds a ``user`` key named after the game to the session
keyring; another seat looks the key up (``request_key``) and reads it. See ``_channel.py`` for
the log lines.
"""

from __future__ import annotations

import ctypes

from _channel import Channel, run

KEY_SPEC_SESSION_KEYRING = -3
KEYCTL_READ = 11
NUMBERS = {"x86_64": (248, 249, 250), "aarch64": (217, 218, 219)}  # add_key, request_key, keyctl


def machine() -> str:
    import platform

    return platform.machine()


class Keys(Channel):
    def __init__(self) -> None:
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.syscall.restype = ctypes.c_long
        self.add_key, self.request_key, self.keyctl = NUMBERS[machine()]

    def call(self, *args) -> int:
        result = self.libc.syscall(*args)
        if result < 0:
            code = ctypes.get_errno()
            raise OSError(code, "keyring")
        return result

    def send(self, game: int, secret: int) -> None:
        data = str(secret).encode()
        name = f"arena-chan-{game}".encode()
        self.call(
            self.add_key, b"user", name, data, len(data), ctypes.c_long(KEY_SPEC_SESSION_KEYRING)
        )

    def listen(self, game: int) -> int | None:
        name = f"arena-chan-{game}".encode()
        try:
            key = self.call(self.request_key, b"user", name, None, ctypes.c_long(0))
        except OSError as exc:
            if exc.errno == 126:  # ENOKEY: not (yet) there
                return None
            raise
        buffer = ctypes.create_string_buffer(32)
        size = self.call(self.keyctl, KEYCTL_READ, ctypes.c_long(key), buffer, 32)
        return int(buffer.raw[:size])


if __name__ == "__main__":
    run(Keys)
