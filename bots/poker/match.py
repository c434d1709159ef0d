"""``gamehub match``: duplicate poker matches between two bots, in process.

Each deal is played twice with the same deck (a documented function of a seed, see
:mod:`games.poker.shuffle`): once with bot A on the button and once with bot B there,
so the luck of the cards mostly cancels.  The result of a deal is A's mean net over its
two hands; the match reports the mean in milli-big-blinds per hand (mbb/hand) with a
95% confidence interval (normal approximation over the deals), and can draw the
running result with matplotlib as SVG or PNG (the ``plots`` extra); a ``tqdm`` bar
shows the deals on a terminal.

The table is the pure engine (:class:`games.poker.rules.Table`), heads-up, fixed limit,
stacks reset every hand; the bots are the policies of :mod:`bots.poker.policies`.
The command comes with the ``holdem`` bot plugin (``[commands.match]`` in
``meta/holdem.meta``).
"""

from __future__ import annotations

import argparse
import hashlib
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from games.poker import rules
from games.poker.shuffle import deck_from_seed
from hub.ops.progress import bar

from .observe import OpponentModel, action_for, observation_from_table
from .policies import POLICIES, Policy

#: most decisions in one hand before the match gives up on the engine (it never sticks)
MAX_DECISIONS = 500


def deal_seed(seed: str, deal: int) -> bytes:
    """The 32-byte shuffle seed of deal number ``deal`` of a match seeded ``seed``."""
    return hashlib.sha256(f"gamehub-match:{seed}:{deal}".encode()).digest()


class PolicyPlayer:
    """A bot at the match table: a policy, its own RNG and opponent model."""

    def __init__(self, label: str, policy: Policy, seed: int) -> None:
        self.label = label
        self.policy = policy
        self.rng = random.Random(seed)
        self.model = OpponentModel()

    def decide(self, table: rules.Table, seat: int) -> tuple[int, Decimal | None]:
        """The engine's action ``(index, amount)`` for ``seat`` at its turn."""
        obs = observation_from_table(table, seat, self.model)
        name, amount = action_for(self.policy(obs, self.rng), table.legal_actions(seat))
        return rules.ACTION_NAMES.index(name), amount

    def hand_over(self, table: rules.Table) -> None:
        """Read the end of the hand (the opponent's last actions) into the model."""
        last = table.last_hand
        if last is not None:
            names = {s: n for s, n, _ in last.players}
            self.model.observe(last.hand_id, last.actions, names)


def play_hand(
    players: Sequence[PolicyPlayer],
    deck: Sequence[int],
    config: rules.TableConfig,
    stack: Decimal,
    hand_id: str,
) -> list[Decimal]:
    """Play one hand, ``players[0]`` on the button (seat 0); returns each seat's net."""
    table = rules.Table(config, rng=random.Random(0))
    for seat, p in enumerate(players):
        table.seat_player(seat, p.label, stack)
    table.start_hand(deck, hand_id=hand_id, button=0)
    for _ in range(MAX_DECISIONS):
        turn = table.turn
        if turn is None:
            break
        index, amount = players[turn.seat].decide(table, turn.seat)
        table.act(turn.seat, index, amount)
    else:
        raise RuntimeError(f"hand {hand_id} did not finish in {MAX_DECISIONS} decisions")
    if table.in_hand:
        raise RuntimeError(f"hand {hand_id} stopped without a decision pending")
    for p in players:
        p.hand_over(table)
    last = table.last_hand
    assert last is not None
    deltas = dict(last.deltas)
    return [deltas.get(seat, Decimal(0)) for seat in range(len(players))]


@dataclass
class MatchResult:
    """Results so far: A's result per deal in mbb/hand."""

    a: str
    b: str
    per_deal: list[float] = field(default_factory=list)

    @property
    def deals(self) -> int:
        """Deals played (each is two hands)."""
        return len(self.per_deal)

    @property
    def mean(self) -> float:
        """A's mean result in mbb/hand."""
        return sum(self.per_deal) / len(self.per_deal) if self.per_deal else 0.0

    @property
    def half_width(self) -> float:
        """Half the width of the 95% confidence interval of :attr:`mean`."""
        n = len(self.per_deal)
        if n < 2:
            return math.inf
        m = self.mean
        var = sum((x - m) ** 2 for x in self.per_deal) / (n - 1)
        return 1.96 * math.sqrt(var / n)

    def summary(self) -> str:
        """One line for people."""
        lo, hi = self.mean - self.half_width, self.mean + self.half_width
        verdict = (
            f"{self.a} wins"
            if lo > 0
            else f"{self.b} wins"
            if hi < 0
            else "no significant difference"
        )
        return (
            f"{self.a} vs {self.b}: {self.mean:+.1f} mbb/hand, 95% CI "
            f"[{lo:+.1f}, {hi:+.1f}] over {self.deals} duplicate deals "
            f"({2 * self.deals} hands): {verdict}"
        )


def play_match(
    a: str,
    b: str,
    deals: int,
    seed: str = "1",
    small_bet: Decimal = Decimal(10),
    stack_bb: int = 1000,
    policies: dict[str, Policy] | None = None,
    progress: Callable[[MatchResult], None] | None = None,
    max_seconds: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> MatchResult:
    """Play ``deals`` duplicate deals of heads-up fixed-limit hold'em between bots.

    :param a: name of bot A (a key of ``policies``, default :data:`POLICIES`).
    :param b: name of bot B.
    :param seed: makes the decks and the bots' randomness reproducible.
    :param progress: called with the result after every deal.
    :param max_seconds: stop early (with the deals played so far) after this long.
    :raises KeyError: an unknown bot name.
    """
    table = policies if policies is not None else POLICIES
    for name in (a, b):
        if name not in table:
            raise KeyError(f"unknown poker bot {name!r}; known: {', '.join(sorted(table))}")
    config = rules.TableConfig(seats=2, small_bet=small_bet)
    bb = config.big_blind
    assert bb is not None
    stack = bb * stack_bb
    digest = int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "big")
    pa = PolicyPlayer(f"A:{a}", table[a], digest)
    pb = PolicyPlayer(f"B:{b}", table[b], digest + 1)
    result = MatchResult(a, b)
    start = clock()
    for deal in range(deals):
        deck = deck_from_seed(deal_seed(seed, deal))
        first = play_hand([pa, pb], deck, config, stack, f"{deal}a")[0]
        second = play_hand([pb, pa], deck, config, stack, f"{deal}b")[1]
        result.per_deal.append(float((first + second) / 2 / bb * 1000))
        if progress is not None:
            progress(result)
        if max_seconds is not None and clock() - start > max_seconds:
            break
    return result


# -- output --------------------------------------------------------------------------------


def running(per_deal: Sequence[float]) -> list[tuple[int, float, float]]:
    """``(deals, running mean, 95% half width)`` after each deal (Welford's update)."""
    out = []
    mean = m2 = 0.0
    for n, x in enumerate(per_deal, 1):
        d = x - mean
        mean += d / n
        m2 += d * (x - mean)
        half = 1.96 * math.sqrt(m2 / (n - 1) / n) if n > 1 else 0.0
        out.append((n, mean, half))
    return out


#: what to install when matplotlib is missing
PLOTS_EXTRA = "pip install 'gamehub[plots]' (or: pip install matplotlib)"


def write_plot(result: MatchResult, path: str) -> None:
    """Draw the running mean with its 95% band with matplotlib into ``path``: SVG or
    PNG, by its extension.

    :raises ValueError: another extension, or matplotlib is not installed.
    """
    kind = path.lower().rpartition(".")[2]
    if kind not in ("svg", "png"):
        raise ValueError("the plot file must end in .svg or .png")
    try:
        from matplotlib import rc_context
        from matplotlib.figure import Figure
    except ImportError:
        raise ValueError(f"plots need matplotlib: {PLOTS_EXTRA}") from None
    pts = running(result.per_deal)
    xs = [n for n, _, _ in pts]
    means = [m for _, m, _ in pts]
    lows = [m - h for _, m, h in pts]
    highs = [m + h for _, m, h in pts]
    figure = Figure(figsize=(8, 4), layout="constrained")
    ax = figure.subplots()
    ax.fill_between(xs, lows, highs, alpha=0.3, linewidth=0, label="95% confidence band")
    ax.plot(xs, means, linewidth=1.5, label="running mean")
    ax.axhline(0, color="black", linewidth=0.8)
    skip = max(1, len(pts) // 50)  # the first deals' band is huge: scale on the rest
    rest = lows[skip:] + highs[skip:] + [0.0]
    if len(pts) > skip and max(rest) > min(rest):
        pad = 0.05 * (max(rest) - min(rest))
        ax.set_ylim(min(rest) - pad, max(rest) + pad)
    ax.set_xlabel("duplicate deals")
    ax.set_ylabel("mbb/hand")
    ax.set_title(
        f"{result.a} vs {result.b}: {result.mean:+.1f} ± {result.half_width:.1f} mbb/hand "
        f"(95%), {result.deals} duplicate deals"
    )
    ax.legend(loc="upper right")
    ax.grid(True, alpha=0.3)
    # the same run, the same file: no date, and the SVG's element ids from a fixed salt
    metadata = {"Date": None} if kind == "svg" else None
    with rc_context({"svg.hashsalt": "gamehub-match"}):
        figure.savefig(path, format=kind, dpi=100, metadata=metadata)


class Progress:
    """A progress bar of the deals with the running result (:func:`hub.ops.progress.bar`):
    on a terminal only, silent otherwise."""

    def __init__(self, total: int, stream: Any = None) -> None:
        self.bar = bar(total, "deals", stream, unit="deal")

    def __call__(self, result: MatchResult) -> None:
        """Report after a deal."""
        self.bar.update(result.deals - self.bar.n)
        half = result.half_width
        ci = f" ± {half:.0f}" if math.isfinite(half) else ""
        self.bar.set_postfix_str(f"{result.mean:+.0f}{ci} mbb/hand", refresh=False)

    def close(self) -> None:
        """End the bar."""
        self.bar.close()


def main(argv: Sequence[str]) -> int:
    """``gamehub match A B``: play duplicate deals between two poker bots."""
    p = argparse.ArgumentParser(
        prog="gamehub match",
        description="Play duplicate heads-up fixed-limit hold'em deals between two bots "
        "(in process) and print bot A's result in mbb/hand with a 95% confidence interval.",
    )
    p.add_argument("a", nargs="?", help="bot A (" + ", ".join(sorted(POLICIES)) + ")")
    p.add_argument("b", nargs="?", help="bot B")
    p.add_argument("-n", "--deals", type=int, default=1000, help="deals, each played twice")
    p.add_argument("--seed", default="1", help="seed of the decks and the bots' randomness")
    p.add_argument("--small-bet", default="10", help="the small bet (stakes S/2S)")
    p.add_argument("--stack", type=int, default=1000, help="stacks in big blinds")
    p.add_argument("--max-seconds", type=float, default=None, help="stop early after this")
    p.add_argument("--plot", metavar="FILE", help="write the running result (.svg or .png)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--list", action="store_true", help="list the bots and exit")
    args = p.parse_args(list(argv))
    if args.list:
        for name in sorted(POLICIES):
            doc = (POLICIES[name].__doc__ or "").strip().splitlines()
            print(f"{name:<14} {doc[0] if doc else ''}")
        return 0
    if not args.a or not args.b:
        p.error("name two bots (gamehub match --list shows them)")
    if args.deals < 1:
        p.error("--deals must be at least 1")
    for name in (args.a, args.b):
        if name not in POLICIES:
            p.error(f"unknown bot {name!r}; known: {', '.join(sorted(POLICIES))}")
    if args.plot and not args.plot.lower().endswith((".svg", ".png")):
        p.error("--plot FILE must end in .svg or .png")
    try:
        small_bet = rules.money(args.small_bet, "small bet")
    except (ValueError, TypeError) as e:
        p.error(str(e))
    if args.plot:
        try:
            import matplotlib  # noqa: F401  (before a long match, not after it)
        except ImportError:
            p.error(f"--plot needs matplotlib: {PLOTS_EXTRA}")
    progress = None if args.quiet else Progress(args.deals)
    try:
        result = play_match(
            args.a,
            args.b,
            args.deals,
            seed=args.seed,
            small_bet=small_bet,
            stack_bb=args.stack,
            progress=progress,
            max_seconds=args.max_seconds,
        )
    finally:
        if progress is not None:
            progress.close()
    print(result.summary())
    if args.plot:
        try:
            write_plot(result, args.plot)
        except (ValueError, OSError) as e:
            print(f"gamehub match: cannot write the plot: {e}", file=sys.stderr)
            return 1
        print(f"plot written to {args.plot}")
    return 0
