"""``gamehub match``: duplicate poker matches between two bots, in process.

Each deal is played twice with the same deck (a documented function of a seed, see
:mod:`games.poker.shuffle`): once with bot A on the button and once with bot B there,
so the luck of the cards mostly cancels.  The result of a deal is A's mean net over its
two hands; the match reports the mean in milli-big-blinds per hand (mbb/hand) with a
95% confidence interval (normal approximation over the deals), and can draw the
running result as SVG (or PNG when matplotlib is installed).

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

from games.poker import rules
from games.poker.shuffle import deck_from_seed

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


def svg_plot(result: MatchResult, width: int = 800, height: int = 400) -> str:
    """The running mean with its 95% band as an SVG document."""
    pts = running(result.per_deal)
    if len(pts) > 1000:  # thin out, keep the last point
        step = len(pts) / 1000
        pts = [pts[int(i * step)] for i in range(1000)] + [pts[-1]]
    skip = max(1, len(pts) // 50)  # the first deals' band is huge: scale on the rest
    ys = [v for _, m, h in pts[skip:] or pts for v in (m - h, m + h)] + [0.0]
    lo, hi = min(ys), max(ys)
    if hi - lo < 1e-9:
        hi, lo = hi + 1, lo - 1
    pad = 0.05 * (hi - lo)
    lo, hi = lo - pad, hi + pad
    left, right, top, bottom = 70, 20, 40, 40
    n = max(pts[-1][0], 2) if pts else 2

    def x(i: float) -> float:
        return left + (i - 1) / (n - 1) * (width - left - right)

    def y(v: float) -> float:
        v = min(max(v, lo), hi)
        return top + (hi - v) / (hi - lo) * (height - top - bottom)

    band = [(x(i), y(m + h)) for i, m, h in pts] + [(x(i), y(m - h)) for i, m, h in pts[::-1]]
    line = " ".join(f"{px:.1f},{py:.1f}" for px, py in ((x(i), y(m)) for i, m, _ in pts))
    title = (
        f"{result.a} vs {result.b}: {result.mean:+.1f} ± {result.half_width:.1f} mbb/hand "
        f"(95%), {result.deals} duplicate deals"
    )
    ticks = []
    for k in range(5):
        v = lo + (hi - lo) * k / 4
        ticks.append(
            f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.0f}</text>'
            f'<line x1="{left}" x2="{width - right}" y1="{y(v):.1f}" y2="{y(v):.1f}" '
            'stroke="#ddd"/>'
        )
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'font-family="sans-serif" font-size="12">',
            f'<rect width="{width}" height="{height}" fill="white"/>',
            *ticks,
            f'<polygon points="{" ".join(f"{a:.1f},{b:.1f}" for a, b in band)}" '
            'fill="#9cf" fill-opacity="0.5"/>',
            f'<line x1="{left}" x2="{width - right}" y1="{y(0):.1f}" y2="{y(0):.1f}" '
            'stroke="black"/>',
            f'<polyline points="{line}" fill="none" stroke="#036" stroke-width="1.5"/>',
            f'<text x="{width / 2}" y="20" text-anchor="middle">{_xml(title)}</text>',
            f'<text x="{width / 2}" y="{height - 8}" text-anchor="middle">deals</text>',
            f'<text x="14" y="{height / 2}" transform="rotate(-90 14 {height / 2})" '
            'text-anchor="middle">mbb/hand (running mean, 95% band)</text>',
            "</svg>",
            "",
        ]
    )


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def write_plot(result: MatchResult, path: str) -> None:
    """Write the running result to ``path``: ``.svg`` always, ``.png`` with matplotlib.

    :raises ValueError: another extension, or PNG without matplotlib.
    """
    lower = path.lower()
    if lower.endswith(".svg"):
        with open(path, "w", encoding="utf-8") as f:
            f.write(svg_plot(result))
        return
    if not lower.endswith(".png"):
        raise ValueError("the plot file must end in .svg or .png")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ValueError("PNG plots need matplotlib (pip install matplotlib); use .svg") from None
    pts = running(result.per_deal)
    xs = [p[0] for p in pts]
    means = [p[1] for p in pts]
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.fill_between(
        xs, [m - h for _, m, h in pts], [m + h for _, m, h in pts], alpha=0.3, label="95%"
    )
    ax.plot(xs, means, label="running mean")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlabel("deals")
    ax.set_ylabel("mbb/hand")
    ax.set_title(f"{result.a} vs {result.b}")
    ax.legend()
    fig.savefig(path, dpi=100)
    plt.close(fig)


class Progress:
    """Prints the running result: one rewritten line on a terminal, else every 10%."""

    def __init__(self, total: int, stream=None, clock: Callable[[], float] = time.monotonic):
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.clock = clock
        self.start = clock()
        self.last = -1.0

    def __call__(self, result: MatchResult) -> None:
        """Report after a deal."""
        n = result.deals
        now = self.clock()
        if self.tty:
            if now - self.last < 0.2 and n != self.total:
                return
        elif n % max(1, self.total // 10) and n != self.total:
            return
        self.last = now
        done = n / self.total if self.total else 1.0
        bar = "#" * int(done * 30)
        rate = 2 * n / max(now - self.start, 1e-9)
        half = result.half_width
        ci = f"± {half:.0f}" if math.isfinite(half) else ""
        line = (
            f"[{bar:<30}] {n}/{self.total} deals  {result.mean:+.0f} {ci} mbb/hand  "
            f"{rate:.0f} hands/s"
        )
        if self.tty:
            self.stream.write("\r" + line + ("\n" if n == self.total else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


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
    p.add_argument("--quiet", action="store_true", help="no progress")
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
    progress = None if args.quiet else Progress(args.deals)
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
    print(result.summary())
    if args.plot:
        try:
            write_plot(result, args.plot)
        except (ValueError, OSError) as e:
            print(f"gamehub match: cannot write the plot: {e}", file=sys.stderr)
            return 1
        print(f"plot written to {args.plot}")
    return 0
