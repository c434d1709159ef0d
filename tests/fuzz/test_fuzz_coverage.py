"""Every front end the hub can serve has a fuzz module (the seam for new ones: ACPC)."""

from __future__ import annotations

from pathlib import Path

from hub.frontends import FRONTENDS


def test_every_front_end_has_a_fuzz_module():
    here = Path(__file__).parent
    missing = [name for name in FRONTENDS if not (here / f"test_fuzz_{name}.py").is_file()]
    assert missing == [], (
        f"no fuzz module for {missing}: add tests/fuzz/test_fuzz_<name>.py with a"
        " tests.fuzz.common.Target subclass and its bounded and full tests"
    )
