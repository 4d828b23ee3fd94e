"""Every `infrabot` command the README shows works as written from a clone: each `ask` of
its bash blocks answers (exit 0, a first line that is an answer, not a traceback), as do
`tools`, `tools --as admin` and `doctor` on the demo world; `demo` (a server) and `eval`
(the whole suite) are only parsed (`--help`), since other tests run them."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from bot.cli import build_parser, main
from evals.postcheck import readme_questions

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PROGRAM = ".venv/bin/infrabot"
_BASH_BLOCK = re.compile(r"^```bash\n(.*?)^```", re.MULTILINE | re.DOTALL)
_ONLY_PARSED = {"demo", "eval"}  # a server, and the whole suite


def readme_commands(readme: Path = README) -> list[list[str]]:
    """The arguments of each `.venv/bin/infrabot ...` command in the README's bash blocks,
    in order: a line ending in `\\` joined to the next, trailing `# comments` dropped, and
    each command of an `a && b` line taken on its own."""
    commands: list[list[str]] = []
    for block in _BASH_BLOCK.findall(readme.read_text(encoding="utf-8")):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            while words:
                cut = words.index("&&") if "&&" in words else len(words)
                command, words = words[:cut], words[cut + 1 :]
                if command and command[0] == PROGRAM:
                    commands.append(command[1:])
    return commands


COMMANDS = readme_commands()


def _id(argv: list[str]) -> str:
    return " ".join(argv)[:80]


def test_the_readme_shows_the_commands_a_newcomer_runs() -> None:
    """The parser finds what the README promises: the quick start's question, another
    world from inside the repository, the catalogue, doctor, the web chat and the suite;
    and every question the post checks read (evals/postcheck.py) is one of these."""
    subcommands = {argv[0] for argv in COMMANDS}
    assert {"ask", "tools", "doctor", "demo", "eval"} <= subcommands
    assert ["tools", "--as", "admin"] in COMMANDS
    asked = {argv[-1] for argv in COMMANDS if argv[0] == "ask"}
    assert "почему service-a в dc-a отдавал 502 в 14:11?" in asked
    assert set(readme_questions()) <= asked
    worlds = [argv[argv.index("--world") + 1] for argv in COMMANDS if "--world" in argv]
    assert worlds, "a question on another world"
    for world in worlds:
        assert not world.startswith(".."), f"{world}: outside the repository, a clone lacks it"
        assert (ROOT / world).is_file(), world


@pytest.fixture
def in_a_clone(monkeypatch: pytest.MonkeyPatch) -> None:
    """As the README runs them: from the repository root, with no configuration."""
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("INFRABOT_CONFIG", raising=False)


@pytest.mark.usefixtures("in_a_clone")
@pytest.mark.parametrize("argv", [a for a in COMMANDS if a[0] not in _ONLY_PARSED], ids=_id)
def test_a_readme_command_works_as_written(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(argv)
    out = capsys.readouterr().out
    assert code == 0, out[-2000:]
    first = out.lstrip().splitlines()[0] if out.strip() else ""
    assert first.strip(), f"{argv}: printed nothing"
    assert not first.startswith("Traceback"), out[-2000:]


@pytest.mark.parametrize("argv", [a for a in COMMANDS if a[0] in _ONLY_PARSED], ids=_id)
def test_a_long_readme_command_parses(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """Its flags as the README writes them are the parser's, and its help prints."""
    assert build_parser().parse_args(argv).fn is not None
    with pytest.raises(SystemExit) as stopped:
        main([argv[0], "--help"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out.startswith("usage:")
