"""Every command of the README, as written, in a fresh virtual environment on a copy of
the checkout: ``python3 -m venv .venv && .venv/bin/pip install .`` and the hub started
exactly as the README says (default ports, ``./gamehub-data``), then each ``sh`` block's
lines in order, run by ``bash`` with a plain ``PATH`` (no virtualenv on it), as a reader
in a second terminal runs them.

What a reader fills in is filled in the same way: ``<id>`` is the ``id`` the last
``POST /api/games`` printed, ``N`` the table the first poker bot printed, ``HANDID`` a
``hand_id`` of ``/api/hands``, ``$TOKEN`` what the ``export`` line set, ``PORT1`` and
``PORT2`` the ports ``gamehub acpc-match`` printed.  Commands the
README says to run in the first terminal (a hub) or that wait for a second one (the
first poker bot) run in the background.  Each must exit 0 without a traceback and print
what the README promises.

The README's test command is the suite itself: CI runs it as written (``.ci/run``, which
this test checks), and ``GAMEHUB_SOAK=full`` also runs it here, in the fresh
environment (with this test switched off inside, so it does not recurse).  Marked slow:
CI runs it whole, every command of the README being bounded already (small counts, a
few seconds each); pip's cache is reused.

Every code block counts, whatever its fence or indentation (:func:`code_blocks`): a
``sh`` block runs; a ``toml`` block must be a valid config file; a ``text`` block holds
no command; an indented code block or a fence without one of those languages fails.
A ``sh`` block right after ``<!-- not run: REASON -->`` is not run, for the reason
given, but its lines must still be right: ``bash -n`` reads them, they call the
programs of ``.venv/bin/``, and a ``pytest`` line collects its tests without an error.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from hub.tap import read_config

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
INNER = "GAMEHUB_README_INNER"
DEFAULT_PORTS = (4000, 1357, 7000, 8080, 18791)
#: the README's install-and-run line and its test command
INSTALL = "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/twistd -n gamehub"
TEST_COMMAND = (
    "python3 -m venv .venv && .venv/bin/pip install -q '.[test]' && .venv/bin/python -m pytest"
)
#: what a command's output must contain (by a word of the command)
PROMISES = {
    "/api/health": '"status"',
    "account create alice": "created alice",
    "account list": "alice",
    "ledger check": "ledger OK",
    "ledger hubs": " live ",
    "gamehub doctor": "reserved names OK",
    "admin bans": "0 ban(s)",
    "bots.morris": "over: player",
    "morris_strength.py": "morris vs depth-2:",
    "xml-client": "connected to",
    "--game N": "left after",
    "verify-hand": "OK",
    "hand-history": "Gamehub Hand #",  # the heading of every stored hand
    "gamehub match": "plot written to run.svg",
    "evaluator.py": "evaluations/s",
    "gamehub fetch": "installed hello",
    "bots.kingdomino": "GAME OVER RESULTS",
    "domino-match": "win share",
    "bots.vandal": "domino",
    "acpc-match": "hands; log at",
    "bots.acpc": " hands, ",
    "gamehub ladder": "nmmorris ladder",
    "/api/ratings/nmmorris": '"players"',
    "ratings rebuild": "the recomputed values equal",
    "tournament create": "created: nmmorris round-robin",
    "tournament list": "registering",
}

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.environ.get(INNER) == "1", reason="inside the README test's own run"),
]


#: the languages a code block of the README may have
LANGUAGES = ("sh", "toml", "text")
_NOT_RUN = re.compile(r"^<!-- not run: (.+?) -->$")
#: what a line of a command starts with (a ``text`` block holds none)
_COMMAND = re.compile(r"^\s*(\$ |\.venv/|python|pip|curl |gamehub|twistd|GAMEHUB_|export |echo )")


def code_blocks(text: str | None = None) -> list[tuple[str, str, str | None]]:
    """Every code block of the README, in order: ``(language, text, not_run)``, the
    language of a fence (``""`` for none) or ``"indented"`` for an indented block,
    and the reason of a ``<!-- not run: ... -->`` line right before it (else ``None``)."""
    lines = (README.read_text() if text is None else text).splitlines()
    found: list[tuple[str, str, str | None]] = []
    i = 0
    previous = ""  # the last line that is not blank, before the block
    blank = True
    while i < len(lines):
        line = lines[i]
        marker = _NOT_RUN.match(previous.strip())
        reason = marker.group(1) if marker else None
        if line.startswith("```"):
            language, body = line[3:].strip(), []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            found.append((language, "\n".join(body) + "\n", reason))
            previous, blank = "```", False
        elif blank and (line.startswith("    ") or line.startswith("\t")) and line.strip():
            body = []
            while i < len(lines) and (lines[i].startswith(("    ", "\t")) or not lines[i].strip()):
                body.append(lines[i].strip())
                i += 1
            found.append(("indented", "\n".join(body).strip() + "\n", reason))
            previous, blank = body[-1] if body else "", True
            continue
        elif line.strip():
            previous, blank = line, False
        else:
            blank = True
        i += 1
    return found


def blocks(kind: str, run: bool = True) -> list[str]:
    """The ``kind`` code blocks of the README, in order (``run``: only those not
    marked as not run)."""
    return [body for language, body, not_run in code_blocks() if language == kind
            and (not run or not_run is None)]  # fmt: skip


def commands() -> list[str]:
    """Every line of every ``sh`` block that runs, in order."""
    return [line for block in blocks("sh") for line in block.splitlines() if line.strip()]


def test_every_code_block_is_run_checked_or_marked():
    for language, body, not_run in code_blocks():
        head = body.strip().splitlines()[0] if body.strip() else ""
        assert language in LANGUAGES, (
            f"a {language or 'bare'} code block ({head!r}): fence it as sh, toml or text"
        )
        if language == "text":
            assert not any(_COMMAND.match(line) for line in body.splitlines()), body
        if not_run is not None:
            assert language == "sh" and len(not_run) > 10, (language, not_run)
    marked = [body for language, body, not_run in code_blocks() if not_run is not None]
    assert marked, "the fuzz suite's commands are marked as not run"


def test_the_block_parser_finds_every_kind_of_block():
    text = "a\n\n```\nx\n```\n\n    python -m x\n    y\n\nb\n<!-- not run: it takes hours -->\n```sh\nz\n```\n"
    assert code_blocks(text) == [("", "x\n", None), ("indented", "python -m x\ny\n", None),
                                 ("sh", "z\n", "it takes hours")]  # fmt: skip


def test_commands_not_run_are_still_right():
    lines = [line for block in blocks("sh", run=False) if block not in blocks("sh")
             for line in block.splitlines() if line.strip()]  # fmt: skip
    assert lines
    python = ROOT / ".venv" / "bin" / "python"
    for line in lines:
        command = line.split("#", 1)[0].strip()
        checked = subprocess.run(["bash", "-n", "-c", command], capture_output=True, text=True)
        assert checked.returncode == 0, (line, checked.stderr)
        words = [w for w in command.split() if "=" not in w or w.startswith("-")]
        assert words[0].startswith(".venv/bin/"), f"{line}: the programs of .venv/bin/, please"
        if "pytest" in command:
            if not python.exists():
                pytest.skip("no .venv in the checkout to collect with")
            env = {**os.environ, INNER: "1"}
            collected = subprocess.run(
                ["bash", "-c", f"{command} --collect-only -q"], cwd=ROOT, env=env,
                capture_output=True, text=True, timeout=300,
            )  # fmt: skip
            errors = re.search(r"\d+ errors?\b", collected.stdout)
            assert collected.returncode == 0 and errors is None, (
                line,
                collected.stdout[-2000:],
            )


def test_every_command_uses_the_programs_of_the_venv():
    for line in commands():
        first = line.split()[0]
        if line.startswith(("python3 -m venv", "export ", "curl ", "echo ")):
            continue
        assert first.startswith(".venv/bin/"), f"{line}: the programs of .venv/bin/, please"


def test_the_readme_test_command_is_what_ci_runs():
    assert TEST_COMMAND in commands()
    assert TEST_COMMAND in (ROOT / ".ci" / "run").read_text().splitlines()


def test_the_readme_config_examples_are_valid():
    for i, block in enumerate(blocks("toml")):
        path = Path(f"/tmp/gamehub-readme-{os.getpid()}-{i}.toml")
        path.write_text(block)
        try:
            read_config(str(path))
        finally:
            path.unlink()


def test_every_network_example_says_what_must_run():
    """Each client of a hub is introduced by prose that says what else runs: the hub
    (the second terminal, the first section) and, where it needs one, a game or an
    opponent made by a command just before it."""
    text = README.read_text()
    assert "Every\nother command of this README runs in a second terminal" in text
    assert "waits there for an opponent" in text and "the second joins" in text
    assert "takes the free\nseat with the game's `id`" in text
    assert "Without that game in the lobby, the client waits" in text


class Session:
    """The reader's terminals: one folder, one environment, hubs in the background."""

    def __init__(self, folder: Path, tmp: Path) -> None:
        self.folder = folder
        self.tmp = tmp
        self.env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": os.environ.get("HOME", str(tmp)),
            "LANG": "C.UTF-8",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "PIP_NO_INPUT": "1",
        }
        self.hub: subprocess.Popen | None = None
        self.hub_logs: list[Path] = []
        self.filled: dict[str, str] = {}
        self.ran: list[str] = []
        #: the last ``POST /api/games`` command (run again after a restart)
        self.last_create = ""

    # -- background ----------------------------------------------------------------------

    def background(self, command: str, log: Path) -> subprocess.Popen:
        out = open(log, "w")  # noqa: SIM115
        return subprocess.Popen(
            ["bash", "-c", command],
            cwd=self.folder,
            env=self.env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )

    def start_hub(self, command: str, seconds: float) -> None:
        log = self.tmp / f"hub{len(self.hub_logs)}.log"
        self.hub_logs.append(log)
        self.hub = self.background(command, log)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.hub.poll() is not None:
                raise AssertionError(f"{command!r} ended:\n{log.read_text()[-4000:]}")
            if re.search(r"gamehub \S+ ready: ", log.read_text(errors="replace")):
                return
            time.sleep(0.2)
        raise AssertionError(f"the hub of {command!r} did not start:\n{log.read_text()[-4000:]}")

    def stop_hub(self) -> None:
        if self.hub is None:
            return
        hub, self.hub = self.hub, None
        if hub.poll() is None:
            os.killpg(hub.pid, signal.SIGTERM)
            try:
                hub.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(hub.pid, signal.SIGKILL)
                hub.wait(10)

    # -- foreground ----------------------------------------------------------------------

    def fill(self, command: str) -> str:
        for placeholder, value in self.filled.items():
            command = command.replace(placeholder, value)
        assert not re.search(r"<\w+>|\bHANDID\b|--game N\b|\bPORT\d\b", command), (
            f"unfilled: {command}"
        )
        return command

    def run(self, command: str, stdin: str = "", seconds: float = 300) -> str:
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=self.folder,
            env=self.env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=seconds,
        )
        self.ran.append(command)
        assert "Traceback" not in done.stderr + done.stdout, f"{command}\n{done.stderr}"
        allowed = (0, 1) if "morris_strength.py" in command else (0,)  # 1: its verdict
        assert done.returncode in allowed, f"{command}: {done.returncode}\n{done.stderr}"
        for word, promise in PROMISES.items():
            if word in command:
                assert promise in done.stdout, f"{command}: no {promise!r} in\n{done.stdout}"
        return done.stdout


def free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the hub binds
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def copy_checkout(target: Path) -> None:
    skip = {".venv", ".git", "gamehub-data", "test-artifacts", "build", "__pycache__"}
    shutil.copytree(
        ROOT,
        target,
        ignore=lambda _, names: [n for n in names if n in skip or n.endswith(".egg-info")],
    )


def test_every_readme_command_as_written(tmp_path):
    taken = [p for p in DEFAULT_PORTS if not free(p)]
    if taken:
        pytest.skip(f"the README's default ports are in use here: {taken}")
    folder = tmp_path / "gamehub"
    copy_checkout(folder)
    session = Session(folder, tmp_path)
    lines = commands()
    assert lines[0] == INSTALL
    try:
        session.start_hub(INSTALL, seconds=900)  # a fresh venv: pip install . first
        waiting: subprocess.Popen | None = None
        acpc_waiting: subprocess.Popen | None = None
        acpc_log = tmp_path / "first-program.log"
        for line in lines[1:]:
            if line == TEST_COMMAND:
                if os.environ.get("GAMEHUB_SOAK") == "full":
                    session.env[INNER] = "1"
                    session.run(line, seconds=3600)
                    del session.env[INNER]
                continue
            if line.startswith("export "):
                name = line.split()[1].split("=")[0]
                value = session.run(f'{line} && printf %s "${name}"').strip()
                assert value
                session.env[name] = value
                continue
            if line.startswith(".venv/bin/twistd -n gamehub"):
                session.stop_hub()
                session.start_hub(line, seconds=60)
                # the games were the old hub's: create the last one again, as the README says
                session.filled["<id>"] = json.loads(session.run(session.last_create))["id"]
                continue
            command = session.fill(line)
            if "bots.holdem" in line and "--create" in line:
                log = tmp_path / "first-bot.log"
                waiting = session.background(command, log)
                for _ in range(600):
                    found = re.search(r"seated at table (\d+)", log.read_text())
                    if found or waiting.poll() is not None:
                        break
                    time.sleep(0.1)
                assert found, log.read_text()
                session.filled["--game N"] = f"--game {found.group(1)}"
                continue
            if "bots.acpc" in line and "PORT1" in line:  # plays when the second comes
                acpc_log = tmp_path / "first-program.log"
                acpc_waiting = session.background(command, acpc_log)
                continue
            stdin = "types\nquit\n" if "xml-client" in line else ""
            out = session.run(command, stdin=stdin)
            if "/api/games -d" in line:
                session.last_create = command
                session.filled["<id>"] = json.loads(out)["id"]
            if "/api/hands" in line:
                session.filled["HANDID"] = str(json.loads(out)[0]["hand_id"])
            if "acpc-match" in line:
                ports = out.strip().splitlines()[-1].split()
                session.filled.update({f"PORT{i + 1}": port for i, port in enumerate(ports)})
            if "bots.acpc" in line and acpc_waiting is not None:
                assert acpc_waiting.wait(300) == 0, acpc_log.read_text()
                assert " hands, " in acpc_log.read_text()
                acpc_waiting = None
            if "--game " in line and waiting is not None:
                assert waiting.wait(120) == 0, (tmp_path / "first-bot.log").read_text()
                assert "left after" in (tmp_path / "first-bot.log").read_text()
                waiting = None
        assert (folder / "run.svg").is_file()
        assert (folder / "fetched" / "plugins" / "meta" / "hello.meta").is_file()
    finally:
        session.stop_hub()
    for log in session.hub_logs:
        text = log.read_text(errors="replace")
        assert "Traceback" not in text and "Unhandled" not in text, text[-4000:]
    # every line ran: all but the install line (the first hub), the hub restarted with a
    # token, the first poker bot and the first ACPC program (in the background) and the
    # test command (unless full), and the game created again after the restart
    full = os.environ.get("GAMEHUB_SOAK") == "full"
    assert len(session.ran) == len(lines) - 5 + 1 + int(full), session.ran
