"""What data can do to a terminal, and how to tell our own output from it."""

from __future__ import annotations

import re

#: Sets the window title (OSC 2, ended by BEL), then clears the screen (CSI 2J).
HOSTILE = "\x1b]2;pwned\x07\x1b[2J"

#: SGR (colour) sequences are ours; any other escape sequence would come from the data.
SGR = re.compile(r"\x1b\[[0-9;]*m")

#: Characters that reorder or hide text without showing themselves (Trojan Source): a
#: right-to-left override, a left-to-right isolate, a zero-width space, a line separator.
INVISIBLE = "\u202e\u2066\u200b\u2028"

#: A control character but newline and tab (C0, DEL and C1), or an invisible one.
CONTROL = (r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064"
           r"\u2066-\u206f\ufeff\ufff9-\ufffb]")
