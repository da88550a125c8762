"""Outputs get the mode a plain write gives a new file (0o666 less the umask), not the 0o600 of
the temporary file an atomic write renames into place (a result.json or model.zip unreadable to
the group that can read every other file beside it)."""

from __future__ import annotations

import os
import stat

from splitpoker.agents.output import file_mode, write_json, write_text_atomic


def _plain_mode(tmp_path) -> int:
    p = tmp_path / "plain.txt"
    p.write_text("x")
    return stat.S_IMODE(p.stat().st_mode)


def test_atomic_outputs_have_the_mode_of_a_plain_write(tmp_path):
    want = _plain_mode(tmp_path)
    assert file_mode() == want
    write_json(tmp_path / "r.json", {"a": 1})
    write_text_atomic(tmp_path / "r.txt", "x")
    assert stat.S_IMODE((tmp_path / "r.json").stat().st_mode) == want
    assert stat.S_IMODE((tmp_path / "r.txt").stat().st_mode) == want


def test_the_umask_is_read_not_changed(tmp_path):
    old = os.umask(0o027)
    try:
        assert file_mode() == 0o640 == _plain_mode(tmp_path)
        assert os.umask(0o027) == 0o027  # still what the test set
    finally:
        os.umask(old)
