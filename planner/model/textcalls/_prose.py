"""The prose around recovered calls: their blocks removed together with the wrappers,
fences and end-of-turn tokens around them."""

from __future__ import annotations

from planner.model.textcalls._scan import skip_ws

# (opening, closing) around a call; "" where the format has no closing marker
_WRAPPERS: tuple[tuple[str, str], ...] = (
    ("<tool_call>", "</tool_call>"),
    ("<function_call>", "</function_call>"),
    ("<tool_calls>", "</tool_calls>"),
    ("<tools>", "</tools>"),
    ("<tool>", "</tool>"),
    ("<response>", "</response>"),
    ("<json>", "</json>"),
    ("<JSON>", "</JSON>"),
    ("<xml>", "</xml>"),
    ("<TOOLCALL>", "</TOOLCALL>"),
    ("<|tool_call_start|>", "<|tool_call_end|>"),
    ("<|START_ACTION|>", "<|END_ACTION|>"),
    ("<|python_start|>", "<|python_end|>"),
    ("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"),
    ("[TOOL_CALLS]", ""),
    ("functools", ""),
    ("<|python_tag|>", ""),
    ("<|tool_call|>", ""),
)
# end-of-turn tokens a server may leave after a call
_TRAILERS = ("<|eom_id|>", "<|eot_id|>", "<|im_end|>", "<|call|>", "<|end|>", "</s>")


def _over_wrapper(text: str, left: int, right: int, end: int) -> tuple[int, int] | None:
    """The range grown over a wrapper's opening just before it (and its closing after)."""
    for opening, closing in _WRAPPERS:
        at = left - len(opening)
        if at >= 0 and text.startswith(opening, at):
            if closing and text.startswith(closing, right):
                end = right + len(closing)
            return at, end
    return None


def _over_fence(text: str, left: int, right: int, end: int) -> tuple[int, int] | None:
    """The range grown over a Markdown fence (```` ```json ````) around it."""
    lang = left
    while lang > 0 and left - lang < 16 and (text[lang - 1].isalnum() or text[lang - 1] in "_-"):
        lang -= 1
    if lang >= 3 and text.startswith("```", lang - 3):
        return lang - 3, right + 3 if text.startswith("```", right) else end
    return None


def _over_closing(text: str, right: int) -> int | None:
    """The range's new end over a wrapper's closing or an end-of-turn token after it."""
    for closing in [c for _, c in _WRAPPERS if c] + list(_TRAILERS):
        if text.startswith(closing, right):
            return right + len(closing)
    return None


def _widen(text: str, start: int, end: int) -> tuple[int, int]:
    """Grow a removed range over the wrappers, fences and end tokens around it."""
    for _ in range(8):
        left = start
        while left > 0 and text[left - 1].isspace():
            left -= 1
        right = skip_ws(text, end)
        grown = _over_wrapper(text, left, right, end) or _over_fence(text, left, right, end)
        if grown is not None:
            start, end = grown
            continue
        closed = _over_closing(text, right)
        if closed is None:
            break
        end = closed
    return start, end


def _merge(ranges: list[tuple[int, int]], text: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if out and (start <= out[-1][1] or not text[out[-1][1] : start].strip(" \t\r\n;,")):
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def without_calls(text: str, removed: list[tuple[int, int]]) -> str:
    ranges = _merge([_widen(text, s, e) for s, e in _merge(removed, text)], text)
    pieces: list[str] = []
    pos = 0
    for start, end in ranges:
        pieces.append(text[pos:start])
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces).strip()
