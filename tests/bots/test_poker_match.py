"""Tests of ``gamehub match`` (duplicate poker deals between bots, in process)."""

import io
import math
import random
from decimal import Decimal

import pytest

from bots.poker import match, policies
from games.poker import rules
from games.poker.shuffle import deck_from_seed
from hub import cli


def test_duplicate_deals_cancel_between_identical_bots():
    # caller vs caller: each deal's two hands mirror each other exactly
    result = match.play_match("caller", "caller", 40, seed="t")
    assert result.deals == 40
    assert all(x == 0 for x in result.per_deal)
    assert result.mean == 0 and result.half_width == 0


def test_same_seed_same_result_and_seed_matters():
    a = match.play_match("holdem", "poker-random", 15, seed="s1")
    b = match.play_match("holdem", "poker-random", 15, seed="s1")
    c = match.play_match("holdem", "poker-random", 15, seed="s2")
    assert a.per_deal == b.per_deal
    assert a.per_deal != c.per_deal


def test_chips_conserved_and_hands_finish():
    config = rules.TableConfig(seats=2, small_bet=Decimal(10))
    rng = random.Random(3)
    for i in range(60):
        pa = match.PolicyPlayer("A", policies.POLICIES[rng.choice(sorted(policies.POLICIES))], i)
        pb = match.PolicyPlayer("B", policies.POLICIES["poker-random"], i + 1)
        nets = match.play_hand([pa, pb], deck_from_seed(bytes([i]) * 32), config, Decimal(300), "h")
        assert sum(nets) == 0
        assert all(abs(n) <= 300 for n in nets)


def test_raiser_against_caller_is_mirror_symmetric():
    # neither uses randomness: naming the bots the other way round negates every deal
    ab = match.play_match("raiser", "caller", 20, seed="x")
    ba = match.play_match("caller", "raiser", 20, seed="x")
    assert ab.per_deal == [-x for x in ba.per_deal]


def test_unknown_bot():
    with pytest.raises(KeyError, match="unknown poker bot"):
        match.play_match("holdem", "nobody", 1)


def test_statistics():
    r = match.MatchResult("a", "b", [10.0, 20.0, 30.0])
    assert r.mean == 20.0
    assert r.half_width == pytest.approx(1.96 * 10 / math.sqrt(3))
    assert "a wins" in r.summary()
    assert "no significant" in match.MatchResult("a", "b", [-10.0, 10.0]).summary()
    assert "b wins" in match.MatchResult("a", "b", [-10.0, -11.0, -12.0]).summary()
    assert match.MatchResult("a", "b", [1.0]).half_width == math.inf
    pts = match.running([10.0, 20.0, 30.0])
    assert pts[-1][0] == 3 and pts[-1][1] == pytest.approx(20.0)
    assert pts[-1][2] == pytest.approx(r.half_width)


def test_plots_with_matplotlib_svg_and_png(tmp_path):
    r = match.play_match("holdem", "caller", 30, seed="p")
    svg = tmp_path / "run.svg"
    match.write_plot(r, str(svg))
    text = svg.read_text()
    assert "<svg" in text and "matplotlib" in text.lower()
    assert "holdem vs caller" in text and "running mean" in text
    match.write_plot(r, str(svg))
    assert svg.read_text() == text  # no date in it: the same run draws the same file
    png = tmp_path / "run.png"
    match.write_plot(r, str(png))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError):
        match.write_plot(r, str(tmp_path / "run.gif"))


class TTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_only():
    tty = TTY()
    prog = match.Progress(20, stream=tty)
    match.play_match("caller", "raiser", 20, seed="q", progress=prog)
    prog.close()
    assert "20/20" in tty.getvalue() and "mbb/hand" in tty.getvalue()
    piped = io.StringIO()
    prog = match.Progress(20, stream=piped)
    match.play_match("caller", "raiser", 20, seed="q", progress=prog)
    prog.close()
    assert piped.getvalue() == ""


def test_max_seconds_stops_early():
    ticks = iter(range(1000))
    r = match.play_match(
        "caller", "caller", 100, seed="m", max_seconds=4.5, clock=lambda: float(next(ticks))
    )
    assert r.deals == 5


def test_cli(capsys, tmp_path):
    assert cli.main(["match", "holdem", "caller", "-n", "10", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "holdem vs caller:" in out and "95% CI" in out
    assert cli.main(["match", "--list"]) == 0
    assert "poker-random" in capsys.readouterr().out
    plot = tmp_path / "p.svg"
    assert cli.main(["match", "raiser", "caller", "-n", "3", "--quiet", "--plot", str(plot)]) == 0
    assert plot.exists()
    for bad in (["match", "holdem"], ["match", "holdem", "x"], ["match", "a", "b", "-n", "0"]):
        with pytest.raises(SystemExit) as e:
            cli.main(bad)
        assert e.value.code == 2
    with pytest.raises(SystemExit):
        cli.main(["match", "holdem", "caller", "--plot", "x.gif"])
