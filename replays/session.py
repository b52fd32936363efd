"""The interactive replay: single keys move a cursor and switch viewers; pure, so it is testable."""

from __future__ import annotations

import textwrap
from typing import Final

from domain.redaction import SUPPORT
from replays.analysis import analysis_at, analysis_line
from replays.banner import stream_divergence, visible_divergence
from replays.cursor import MatchCursor, Step, Viewer, viewer_name
from replays.diff import describe_diff, diff
from replays.divergence import Divergence
from replays.errors import StepOutOfRangeError
from replays.render import FRAME_WIDTH, frame_parts, render_frame
from replays.screen import fit_screen

KEY_HELP: Final = "keys: n/p event · >/< play · }/{ deal · ]/[ round · ^/$ ends · ? help · q quit"
"""The one-line key reminder under every frame (80 columns at most)."""

HELP: Final = """\
  n  space  →   next event              p  ←   previous event
  >  .          next play               <  ,   previous play
  }             next deal               {      previous deal
  ]             next round              [      previous round
  ^  Home       first event             $  End last event
  g NUMBER ⏎    jump to the position after event seq NUMBER
  v  s  0-3     switch viewer: the next one, support, a seat (0-3)
  ?  h          this help               q      quit
"""
"""The full key list, shown with ``?`` (80 columns at most)."""

_MOVES: Final[dict[str, tuple[Step, int]]] = {
    "n": (Step.EVENT, 1),
    " ": (Step.EVENT, 1),
    "\x1b[C": (Step.EVENT, 1),
    "p": (Step.EVENT, -1),
    "\x1b[D": (Step.EVENT, -1),
    ">": (Step.PLAY, 1),
    ".": (Step.PLAY, 1),
    "<": (Step.PLAY, -1),
    ",": (Step.PLAY, -1),
    "}": (Step.DEAL, 1),
    "{": (Step.DEAL, -1),
    "]": (Step.ROUND, 1),
    "[": (Step.ROUND, -1),
}

_QUIT: Final = frozenset({"q", "Q", "\x03", "\x04", ""})
_FIRST: Final = frozenset({"^", "\x1b[H", "\x1b[1~"})
_LAST: Final = frozenset({"$", "\x1b[F", "\x1b[4~"})
_ENTER: Final = frozenset({"\r", "\n"})


class Session:
    """A replay being stepped through: the cursor, the current seq and viewer, and messages.

    The stream is re-adjudicated once (``replays.audit``): from its first event that does not
    verify on, every frame carries a warning banner.
    """

    def __init__(self, cursor: MatchCursor, viewer: Viewer = SUPPORT, seq: int = 1) -> None:
        self.cursor = cursor
        self.divergence: Divergence | None = stream_divergence(cursor)
        self.viewer = cursor.check_viewer(viewer)
        self.seq = seq
        cursor.position(seq, viewer)  # fail early on a bad start
        self.message = ""
        self.show_help = False
        self.entering: str | None = None
        self._escape: str | None = None

    def press(self, key: str) -> bool:
        """Handle one key (or one escape sequence); False when the session should end."""
        if self._escape is not None:
            self._escape += key
            if not (key.isalpha() or key == "~") and len(self._escape) < 4:
                return True
            key, self._escape = self._escape, None
        elif key == "\x1b":
            self._escape = key
            return True
        self.message = ""
        if self.entering is not None:
            return self._enter(key)
        if key in _QUIT:
            return False
        if key in _MOVES:
            step, direction = _MOVES[key]
            self._move(step, direction)
        elif key in _FIRST:
            self.seq = 1
        elif key in _LAST:
            self.seq = self.cursor.last_seq
        elif key == "g":
            self.entering = ""
        elif key == "v":
            self._switch((self.viewer + 2) % (self.cursor.seats + 1) - 1)
        elif key == "s":
            self._switch(SUPPORT)
        elif key.isdigit() and len(key) == 1:
            if int(key) < self.cursor.seats:
                self._switch(int(key))
            else:
                self.message = f"no seat {key}: seats 0 to {self.cursor.seats - 1}"
        elif key in ("?", "h"):
            self.show_help = not self.show_help
        elif key in _ENTER:
            pass
        else:
            self.message = f"unknown key {key!r}; press ? for help"
        return True

    def feed(self, text: str) -> bool:
        """Handle what one read returned (several keys when typed fast); False to end ("" ends)."""
        if not text:
            return self.press("")
        return all(self.press(key) for key in text)

    def pending_escape(self) -> bool:
        """True while an escape sequence (an arrow key read byte by byte) is incomplete."""
        return self._escape is not None

    def _enter(self, key: str) -> bool:
        if key in _ENTER:
            text, self.entering = self.entering, None
            if not text:
                return True
            try:
                self.cursor.position(int(text), self.viewer)
            except StepOutOfRangeError as error:
                self.message = error.message
            else:
                self.seq = int(text)
        elif key.isdigit():
            self.entering = (self.entering or "") + key
        elif key in ("\x7f", "\x08"):
            self.entering = (self.entering or "")[:-1]
        elif key in ("\x03", "\x04", ""):
            return False
        else:
            self.entering = None
            self.message = "jump cancelled"
        return True

    def _move(self, step: Step, direction: int) -> None:
        cursor = self.cursor
        target = cursor.next(self.seq, step) if direction > 0 else cursor.previous(self.seq, step)
        if target == self.seq:
            self.message = "at the last event" if direction > 0 else "at the first event"
        elif abs(target - self.seq) > 1:
            # What a longer step passed over: plays, hauls, Basras, scores and carry.
            self.message = describe_diff(diff(cursor, self.seq, target, self.viewer))
        self.seq = target

    def _switch(self, viewer: Viewer) -> None:
        self.viewer = self.cursor.check_viewer(viewer)
        self.message = f"now viewing as {viewer_name(viewer)}"

    def _below(self, width: int) -> tuple[list[str], list[str]]:
        """The analysis of the play just made, and the message or jump prompt, as lines."""
        # The play just made, against the strong bot's card (docs/bots.md): support any time,
        # everyone once the match has ended.
        below: list[str] = []
        analysed = analysis_at(self.cursor.events(), self.seq, support=self.viewer == SUPPORT)
        if analysed is not None:
            line = "analysis: " + analysis_line(analysed)
            below = textwrap.wrap(line, width=width, subsequent_indent="  ")
        note: list[str] = []
        if self.entering is not None:
            note = [f"jump to seq (1-{self.cursor.last_seq}), then Enter: {self.entering}"]
        elif self.message:
            note = textwrap.wrap(self.message, width=width, subsequent_indent="  ")
        return below, note

    def _shown_divergence(self) -> Divergence | None:
        cursor = self.cursor
        return visible_divergence(
            self.divergence, self.seq, cursor.last_seq, self.viewer, ended=cursor.ended
        )

    def frame(self) -> str:
        """The current frame: the position as the viewer sees it, then messages and keys."""
        position = self.cursor.position(self.seq, self.viewer)
        lines = [render_frame(position, self._shown_divergence())]
        below, note = self._below(FRAME_WIDTH)
        lines.extend(below)
        if self.show_help:
            lines.append(HELP)
        lines.extend(note)
        lines.append(KEY_HELP)
        return "\n".join(lines) + "\n"

    def screen(self, columns: int, rows: int) -> str:
        """The current frame fitted to a terminal of ``columns`` × ``rows`` (no final newline).

        The seq line and the event are always on it, whole; the table part folds and gives way
        first (replays.screen), so nothing scrolls off the top of the terminal.
        """
        width = min(columns, FRAME_WIDTH)
        position = self.cursor.position(self.seq, self.viewer)
        parts = frame_parts(position, self._shown_divergence(), width)
        below, note = self._below(width)
        lines = fit_screen(
            parts,
            below=below,
            help_lines=HELP.splitlines() if self.show_help else [],
            note=note,
            typing=self.entering is not None,
            keys=KEY_HELP,
            columns=columns,
            rows=rows,
        )
        return "\n".join(lines)
