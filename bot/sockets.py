"""Listening sockets for our HTTP servers (the web chat, `serve`, the world simulators).

Its own small module so that a simulator can open one without importing the whole bot.
"""

from __future__ import annotations

import socket


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket (port 0: any free port), so the URL can be printed before
    serving.

    Made with the TCP protocol number, not 0: asyncio sets TCP_NODELAY on an accepted
    socket only when its `proto` says TCP, and without it every response written in two
    parts (headers, then body) waits for the client's delayed ACK, about 40 ms on Linux.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    shown = f"[{shown}]" if ":" in shown else shown
    return f"http://{shown}:{port}/"
