"""Answers with a request id that was never sent, then (too late to matter) the right one."""

from _wire import reply, serve

serve(lambda sock, turn, n: reply(sock, turn, turn["legal"][0], request=turn["request"] + 1000))
