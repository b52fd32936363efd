"""``basra replay``: --step frames, viewers, the dispute log, keys by input, a real terminal."""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from app.service import MatchService
from app.store.sqlite_reader import SQLiteStreams
from cli.main import app
from replays.cursor import Step
from replays.importing import imported_stream
from replays.replay_reader import load_replay

GOLDEN = Path(__file__).parent.parent / "data" / "golden"
NAME = "golden-classic-4"
ISOLATED = {"BASRA_DATABASE_URL": None, "POSTGRES_DBNAME": None, "BASRA_DB": None}


def run(*args: str, input: str | None = None) -> Result:
    """``basra ARGS`` through typer's CliRunner, with stdout and stderr apart."""
    return CliRunner().invoke(app, list(args), input=input, env=ISOLATED)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A SQLite store holding a golden 4-seat match under its own id."""
    path = tmp_path_factory.mktemp("replay") / "basra.db"
    service = MatchService.open(path)
    try:
        replay = load_replay((GOLDEN / f"{NAME}.jsonl").read_bytes())
        service.append_imported(NAME, imported_stream(replay, NAME))
    finally:
        service.close()
    yield path


def golden_frames(name: str) -> list[tuple[int, str, str]]:
    """(seq, viewer, frame) of each frame kept beside a golden file."""
    text = (GOLDEN / f"{name}.frames.txt").read_text(encoding="utf-8")
    parts = re.split(r"^=== seq (\d+) as (support|seat \d)\n", text, flags=re.MULTILINE)
    return [(int(parts[i]), parts[i + 1], parts[i + 2]) for i in range(1, len(parts), 3)]


def viewer_args(viewer: str) -> list[str]:
    """The options that choose a viewer named like ``support`` or ``seat 2``."""
    return ["--support"] if viewer == "support" else ["--as", viewer.split()[1]]


def test_step_prints_the_golden_frames(db: Path) -> None:
    frames = golden_frames(NAME)
    assert len(frames) >= 6
    for seq, viewer, frame in frames:
        result = run("replay", NAME, "--step", str(seq), *viewer_args(viewer), "--db", str(db))
        assert result.exit_code == 0, result.stderr
        assert result.stdout == frame


def test_support_is_the_default_viewer_and_a_seat_sees_only_its_hand(db: Path) -> None:
    default = run("replay", NAME, "--step", "20", "--db", str(db))
    support = run("replay", NAME, "--step", "20", "--support", "--db", str(db))
    seat = run("replay", NAME, "--step", "20", "--as", "1", "--db", str(db))
    assert default.stdout == support.stdout and "viewer: support" in default.stdout
    assert "viewer: seat 1" in seat.stdout
    assert seat.stdout.count("hidden") == 3 and "token" not in seat.stdout
    assert "through token tok-" in support.stdout or "by the bot" in support.stdout


def test_json_gives_the_position_as_data(db: Path) -> None:
    result = run("replay", NAME, "--step", "20", "--as", "2", "--json", "--db", str(db))
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["seq"] == 20 and data["viewer"] == 2
    assert data["view"]["seat"] == 2 and "hands" not in data["view"]
    assert data["caused_by"] is None and data["action"]


def test_the_log_answers_who_played_what_when(db: Path) -> None:
    result = run("replay", NAME, "--log", "--db", str(db))
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert len(lines) == sum(1 for _ in (GOLDEN / f"{NAME}.jsonl").open()) - 1
    plays = [line for line in lines if " seat 0 plays " in line]
    assert plays and all("seat 0 through token tok-amira" in line for line in plays)
    assert any("the server" in line and "clock ran out" in line for line in lines)
    as_seat = run("replay", NAME, "--log", "--as", "0", "--json", "--db", str(db))
    assert all(entry["caused_by"] is None for entry in json.loads(as_seat.stdout))


def test_keys_through_input_step_through_the_match(db: Path) -> None:
    # given keys: next event twice, next play, next round, view as seat 0, jump to 40, quit
    result = run("replay", NAME, "--db", str(db), input="nn>]vg40\nq")
    assert result.exit_code == 0, result.stderr
    # then one frame per key, moving as the keys say
    seqs = [int(s) for s in re.findall(r"^seq (\d+) of", result.stdout, flags=re.MULTILINE)]
    assert seqs[:3] == [1, 2, 3]
    play = seqs[3]
    round_two = seqs[4]
    assert play > 3 and round_two > play
    assert seqs[-1] == 40
    assert "viewer: seat 0" in result.stdout.split("seq 40 of")[-2]
    assert "keys: n/p event" in result.stdout


def test_the_end_of_input_ends_the_session(db: Path) -> None:
    result = run("replay", NAME, "--db", str(db), input="")
    assert result.exit_code == 0
    assert result.stdout.count("seq 1 of") == 1


@pytest.mark.parametrize(
    ("args", "message", "code"),
    [
        (["replay", "no-such-match"], "no match 'no-such-match'", 1),
        (["replay", NAME, "--step", "9999"], "step 9999 is outside this match", 1),
        (["replay", NAME, "--as", "4", "--step", "3"], "seat 4 is not a seat of this match", 1),
        (["replay", NAME, "--as", "1", "--support"], "give --as SEAT or --support, not both", 2),
        (["replay", NAME, "--as", "-1", "--step", "3"], "--as takes a seat number from 0", 2),
        (["replay", NAME, "--step", "0"], "Invalid value for '--step'", 2),
        (["replay", NAME, "--bogus"], "No such option: --bogus", 2),
    ],
)
def test_errors_are_one_line_without_a_traceback(
    db: Path, args: list[str], message: str, code: int
) -> None:
    result = run(*args, "--db", str(db))
    assert result.exit_code == code
    assert result.stderr.startswith(f"error: {message}")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output


@pytest.mark.parametrize("command", ["replay", "import", "verify"])
def test_every_command_has_help(command: str) -> None:
    result = run(command, "--help")
    assert result.exit_code == 0 and "Usage" in result.stdout


class Terminal:
    """A real pseudo-terminal running ``basra`` as a child process."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        self.master, slave = os.openpty()
        env = {k: v for k, v in os.environ.items() if k not in ISOLATED}
        env.update(TERM="xterm", COLUMNS="100", LINES="40", PYTHONIOENCODING="utf-8")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "cli.main", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
        os.close(slave)
        self.screen = ""

    def wait_for(self, text: str, timeout: float = 30.0) -> str:
        """Read the terminal until ``text`` appears after what was read before; return it all."""
        start = len(self.screen)
        deadline = time.monotonic() + timeout
        while text not in self.screen[start:]:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{text!r} never appeared; screen: {self.screen[-2000:]!r}")
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"terminal closed; screen: {self.screen[-2000:]!r}")
                self.screen += chunk.decode("utf-8", "replace")
        return self.screen[start:]

    def press(self, keys: bytes) -> None:
        """Type ``keys``."""
        os.write(self.master, keys)

    def close(self) -> int:
        """Wait for the program to end (killed after 20 s); its exit status."""
        try:
            return self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError("the program did not end") from None
        finally:
            os.close(self.master)


def test_the_real_terminal_program_reads_single_keys(db: Path, tmp_path: Path) -> None:
    # given `basra replay` on a pseudo-terminal
    terminal = Terminal(["replay", NAME, "--db", str(db)], tmp_path)
    try:
        first = terminal.wait_for("keys: n/p event")
        assert "\x1b[2J" in first and "seq 1 of" in first
        # when single keys are typed, with no Enter: next event, the right arrow, next round twice
        terminal.press(b"n")
        assert "seq 2 of" in terminal.wait_for("keys: n/p event")
        terminal.press(b"\x1b[C")
        assert "seq 3 of" in terminal.wait_for("keys: n/p event")
        terminal.press(b"]")
        assert "the floor is turned for round 1" in terminal.wait_for("keys: n/p event")
        terminal.press(b"]")
        frame = terminal.wait_for("keys: n/p event")
        assert "the floor is turned for round 2" in frame
        # and switching to a seat's view hides the other hands
        terminal.press(b"v")
        frame = terminal.wait_for("keys: n/p event")
        assert "viewer: seat 0" in frame and "hidden" in frame
        # and keys typed faster than frames are drawn are all kept: last event, back three
        last = sum(1 for _ in (GOLDEN / f"{NAME}.jsonl").open()) - 1
        terminal.press(b"$ppp")
        terminal.wait_for(f"seq {last - 3} of {last}")
        # then q quits cleanly
        terminal.press(b"q")
    finally:
        status = terminal.close()
    assert status == 0


class Tmux:
    """A tmux server of its own (its own socket) holding one window of a fixed size."""

    def __init__(self, folder: Path, columns: int, rows: int) -> None:
        self.socket = folder / "tmux.sock"
        config = folder / "tmux.conf"
        config.write_text("set -g status off\n", encoding="utf-8")
        self.base = ["tmux", "-S", str(self.socket), "-f", str(config)]
        self.size = (columns, rows)

    def start(self, command: list[str], env: dict[str, str]) -> None:
        """Run ``command`` in the window (the tmux server started with ``env``)."""
        columns, rows = self.size
        subprocess.run(
            [*self.base, "new-session", "-d", "-x", str(columns), "-y", str(rows), *command],
            check=True,
            env=env,
        )

    def tmux(self, *args: str) -> str:
        """One tmux command on this server; its output."""
        done = subprocess.run([*self.base, *args], capture_output=True, check=True, text=True)
        return done.stdout

    def screen(self) -> list[str]:
        """The window's rows as shown now."""
        return self.tmux("capture-pane", "-p").rstrip("\n").split("\n")

    def settled(self, wanted: str, timeout: float = 20.0) -> list[str]:
        """The screen once a row starts with ``wanted`` and two captures in a row agree."""
        deadline = time.monotonic() + timeout
        before: list[str] = []
        while True:
            now = self.screen()
            if now == before and any(row.startswith(wanted) for row in now):
                return now
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"no row starts with {wanted!r}; the screen:\n" + "\n".join(now)
                )
            before = now
            time.sleep(0.02)

    def stop(self) -> None:
        """End this tmux server (only this one: it is addressed by its own socket)."""
        subprocess.run([*self.base, "kill-server"], capture_output=True, check=False)


def test_every_frame_keeps_the_seq_and_the_event_in_an_80_by_24_terminal(tmp_path: Path) -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (apt-get install tmux): the 80 × 24 terminal test")
    from domain.redaction import SUPPORT
    from replays.cursor import MatchCursor
    from replays.words import describe

    # given a 4-seat match recorded by basra simulate into a fresh store
    db = tmp_path / "basra.db"
    env = {k: v for k, v in os.environ.items() if k not in ISOLATED}
    env.update(LANG="C.UTF-8", LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8")
    simulated = subprocess.run(
        [sys.executable, "-m", "cli.main", "simulate", "--ruleset", "egyptian", "--seats", "4"]
        + ["--seed", "tty-80x24", "--db", str(db)],
        capture_output=True,
        check=True,
        env=env,
        text=True,
    )
    match_id = simulated.stdout.strip()
    streams = SQLiteStreams(db)
    try:
        cursor = MatchCursor(streams.events(match_id))
    finally:
        streams.close()
    last = cursor.last_seq

    def check(screen: list[str], seq: int) -> None:
        assert len(screen) <= 24 and all(len(row) <= 80 for row in screen), screen
        assert any(row.startswith(f"seq {seq} of {last} ") for row in screen), (seq, screen)
        event = " ".join(describe(cursor.position(seq).event, SUPPORT).split())
        shown = " ".join(" ".join(screen).split())
        assert event in shown, (seq, event, screen)

    # when `basra replay` runs in an 80-column, 24-row tmux window with the help shown
    terminal = Tmux(tmp_path, 80, 24)
    terminal.start([sys.executable, "-m", "cli.main", "replay", match_id, "--db", str(db)], env)
    try:
        assert terminal.tmux("display", "-p", "#{pane_width}x#{pane_height}").strip() == "80x24"
        check(terminal.settled(f"seq 1 of {last} "), 1)
        terminal.tmux("send-keys", "?")
        screen = terminal.settled(f"seq 1 of {last} ")
        assert any("next round" in row for row in screen), screen
        # then every frame, event by event to the end, shows its seq and its event
        for seq in range(2, last + 1):
            terminal.tmux("send-keys", "n")
            check(terminal.settled(f"seq {seq} of {last} "), seq)
        # and so does every frame of a step by round back from the end, and forward again
        seq = last
        for key, following in (("[", cursor.previous), ("]", cursor.next)):
            while True:
                target = following(seq, Step.ROUND)
                if target == seq:
                    break
                terminal.tmux("send-keys", key)
                check(terminal.settled(f"seq {target} of {last} "), target)
                seq = target
        terminal.tmux("send-keys", "q")
    finally:
        terminal.stop()
