"""What a stdio MCP server writes on stderr, kept only as a short tail for a failure's reason.

The server writes into a pipe that a thread drains as fast as it comes, keeping the last
`TAIL_BYTES`: a server that floods stderr costs neither memory nor disk (nothing is
written to a file, so a read-only root filesystem is fine), and one that writes nothing
costs one idle thread until it exits. The tail is untrusted text: the values of the
secrets the bot gave the server are cut out of it before it becomes a reason.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterable
from typing import TextIO

TAIL_BYTES = 4096
LINE_CHARS = 200
_SECRET_MIN = 4  # shorter values would cut ordinary words out of the line
_HIDDEN = "[redacted]"


class StderrTail:
    """A pipe for a child's stderr and the last bytes that came through it."""

    def __init__(self) -> None:
        read_fd, write_fd = os.pipe()
        self.writer: TextIO = os.fdopen(write_fd, "w", encoding="utf-8", errors="replace")
        self._read_fd = read_fd
        self._tail = bytearray()
        self._closed = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, name="mcp-stderr", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        try:
            while chunk := os.read(self._read_fd, 65_536):
                with self._lock:
                    self._tail += chunk
                    del self._tail[:-TAIL_BYTES]
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                os.close(self._read_fd)

    def close(self, wait_s: float = 0.5) -> None:
        """Close our end of the pipe; the drain ends once the child's end is closed too
        (waited for up to `wait_s`: a child that outlives its session is not waited for).
        Closing again does nothing."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(OSError, ValueError):
            self.writer.close()
        self._thread.join(wait_s)

    def last_line(self, secrets: Iterable[str] = ()) -> str:
        """The last non-empty line, at most `LINE_CHARS`, with each secret's value cut out."""
        with self._lock:
            text = bytes(self._tail).decode("utf-8", errors="replace")
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        if not lines:
            return ""
        line = lines[-1]
        for value in sorted(secrets, key=len, reverse=True):
            if len(value) >= _SECRET_MIN:
                line = line.replace(value, _HIDDEN)
        return line[:LINE_CHARS]
