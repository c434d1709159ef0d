"""What each phase of a hand is about: this peer's message for it (its shuffle, its
lock, its action, its keys, its verdict) and what a decided phase does to the hand
(the deal checked as it goes, the cards opened, the hand judged; see :mod:`.table`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .. import rules, views
from . import deck, group, seal
from .agree import Outcome
from .base import PeerBase, Problem, _verdict_of
from .wire import (
    Signed,
    WireError,
    b64,
    box_public,
    open_frame,
    position_map,
    positions_out,
    text,
    unb64,
    verify,
)
from .wire import field as wire_field


class DealingPart(PeerBase):
    """The table's messages and what they do."""

    def _make_key(self, name: str) -> None:
        assert self.identity is not None
        mine = seal.contribution()
        self._contribution = mine
        boxes = {}
        for seat in sorted(self.live):
            if seat != self.me:
                theirs = box_public(self.roster.keys[seat])
                boxes[str(seat)] = b64(seal.box_for(self.identity.box_key, theirs, mine))
        self._send(name, {"boxes": boxes})

    def _make_keyok(self, name: str) -> None:
        assert self._contributions
        key = seal.table_key(self.roster.table_id, self._contributions)
        self._send(name, {"check": seal.check_value(key)})

    def _make_deal(self, name: str) -> None:
        """This peer's shuffle (``s``) or lock (``l``) of the deck it is given, with its
        keys of the others' hole cards when it is the last to shuffle, or a locker; or
        ``bad`` when the deck given holds a value that is no point (every point is
        checked as it is used)."""
        hs = self.hand
        assert hs is not None and hs.secrets is not None and self.me is not None
        shuffling = name.startswith("s")
        try:
            if shuffling:
                out = hs.secrets.shuffle(hs.deal.input_of_shuffle(self.me))
            else:
                out = hs.secrets.lock(hs.deal.input_of_lock(self.me))
        except group.GroupError:
            self._send(
                name, {"bad": "the deck given to me holds a value that is no encrypted card"}
            )
            return
        body: dict[str, Any] = {"deck": b64(b"".join(out))}
        if hs.secrets.last or not shuffling:
            holes = hs.secrets.reveal(hs.play.layout.holes_of_others(self.me))
            body["hole"] = positions_out(holes)
        self._send(name, body)

    def _make_act(self, name: str) -> None:
        hs = self.hand
        assert hs is not None and self.me is not None
        legal = hs.play.legal(self.me)
        facts = views.TableFacts("fixed-limit", self.roster.table_id.hex()[:8], "p2p",
                                 int(self.params.action_time * 1000), None, None,
                                 str(self.params.stack))  # fmt: skip
        view = hs.play.view(self.me, hs.cards, facts)
        asked = self.phase

        def answer(action: Mapping[str, Any]) -> None:
            if self.hand is not hs or self.phase is not asked or self.over:
                return
            self._act(name, action, legal)

        self.player.ask(view, legal, self.params.action_time, answer)

    def _act(self, name: str, action: Mapping[str, Any], legal: list[dict[str, Any]]) -> None:
        hs = self.hand
        assert hs is not None and self.me is not None
        act = action.get("name")
        if not any(a["name"] == act for a in legal):
            act = "check" if any(a["name"] == "check" for a in legal) else "fold"
        body: dict[str, Any] = {"act": act}
        if act == "fold" and hs.secrets is not None:
            board = [p for p in hs.play.layout.board if p not in hs.public]
            body["board"] = positions_out(hs.secrets.reveal(board))
        self._send(name, body)
        self._check()

    def _make_board(self, name: str) -> None:
        hs = self.hand
        assert hs is not None and hs.secrets is not None
        unopened = [p for p in hs.play.dealt_board() if p not in hs.public]
        body: dict[str, Any] = {"keys": positions_out(hs.secrets.reveal(unopened))}
        self._send(name, body)

    def _make_end(self, name: str) -> None:
        hs = self.hand
        assert hs is not None and self.me is not None
        body: dict[str, Any] = {}
        if hs.secrets is not None and self.table_key is not None:
            body["sealed"] = b64(seal.seal(self.table_key, hs.number, hs.secrets.end_keys()))
            if self.me in hs.play.live() and hs.play.showdown and not (hs.void or hs.audit):
                body["show"] = positions_out(hs.secrets.reveal(hs.play.layout.hole[self.me]))
        self._send(name, body)

    def _make_done(self, name: str) -> None:
        hs = self.hand
        assert hs is not None and hs.verdict is not None
        body = dict(hs.verdict)
        proofs = [
            [b64(a), b64(b)] for seat, (a, b) in sorted(self.proofs.items()) if seat in self.live
        ]
        if proofs:
            body["proofs"] = proofs  # equivocations proven so far: out once the verdicts agree
        self._send(name, body)

    def _apply_key(self, name: str, outcome: Outcome) -> None:
        if outcome.silent:
            self._rekey()
            return
        self._contributions = {}
        if self.identity is not None:
            assert self._contribution is not None and self.me is not None
            self._contributions[self.me] = self._contribution
            for seat, msg in sorted(outcome.messages.items()):
                if seat == self.me:
                    continue
                try:
                    boxes = wire_field(msg.body, "boxes", dict)
                    sealed = unb64(boxes.get(str(self.me)), most=256)
                    theirs = box_public(self.roster.keys[seat])
                    self._contributions[seat] = seal.open_box(self.identity.box_key, theirs, sealed)
                except (WireError, seal.SealError):
                    self.stop(
                        f"{self.name_of(seat)} sent no usable share of the table key", failed=True
                    )
                    return
        self._begin(f"kc{self._key_round}", self.live, self.params.step_time)

    def _apply_keyok(self, name: str, outcome: Outcome) -> None:
        if outcome.silent:
            self._rekey()
            return
        checks = {str(msg.body.get("check")) for msg in outcome.messages.values()}
        if self.identity is not None:
            key = seal.table_key(self.roster.table_id, self._contributions)
            if checks != {seal.check_value(key)}:
                self.stop(
                    "the peers hold different table keys (a peer sent different shares)",
                    failed=True,
                )
                return
            self.table_key = key
        elif len(checks) == 1:
            self.table_key = b"observed"
        self._deal_hand()

    def _apply_deal(self, name: str, outcome: Outcome) -> None:
        hs = self.hand
        assert hs is not None
        n = len(hs.order)
        seat = hs.order[hs.step] if hs.step < n else hs.order[hs.step - n]
        msg = outcome.messages.get(seat)
        hs.step += 1
        if msg is None:
            self._void(f"{self.name_of(seat)} did not take its turn to deal")
            self._advance()
            return
        if "bad" in msg.body:
            self._bad_deck(seat)
            self._advance()
            return
        try:
            points = unb64(msg.body.get("deck"), deck.DECK_SIZE * group.POINT_BYTES)
            decked = tuple(points[i * 32 : i * 32 + 32] for i in range(deck.DECK_SIZE))
            if len(set(decked)) != deck.DECK_SIZE:
                raise Problem("a deck that is not 52 different encrypted cards")
            expect_holes = hs.step > n - 1 or seat == hs.order[-1]
            if expect_holes:
                holes = position_map(msg.body.get("hole"), group.SCALAR_BYTES)
                wanted = set(hs.play.layout.holes_of_others(seat))
                if set(holes) != wanted:
                    raise Problem("keys of other positions than the others' hole cards")
                for p, key in holes.items():
                    group.check_scalar(key)
                    hs.revealed[(seat, p)] = key
        except (WireError, Problem, group.GroupError) as e:
            self._cheat(seat, f"dealt wrongly: {e}")
            self._advance()
            return
        if hs.step <= n:
            hs.deal.shuffles[seat] = decked
        else:
            hs.deal.locks[seat] = decked
        if hs.step == 2 * n - 1:
            self._open_own_cards()
        self._advance()

    def _bad_deck(self, seat: int) -> None:
        """``seat`` says the deck it was given holds a value that is no point (points are
        checked as they are used, not as they come): whoever is wrong is a cheater."""
        hs = self.hand
        assert hs is not None
        n = len(hs.order)
        i = hs.step - 1  # the step ``seat`` refused
        given = hs.deal.input_of_shuffle(seat) if i < n else hs.deal.input_of_lock(seat)
        if i == 0 or all(group.is_point(p) for p in given):
            self._cheat(seat, "refused a deck that was good")
            return
        before = hs.order[i - 1] if i < n else (hs.order[-1] if i == n else hs.order[i - n - 1])
        self._cheat(before, "dealt a deck that holds a value that is no encrypted card")

    def _open_own_cards(self) -> None:
        hs = self.hand
        assert hs is not None
        if self.me is None or hs.secrets is None:
            return
        final = hs.deal.final
        assert final is not None
        mine = hs.play.layout.hole[self.me]
        for p in mine:
            hs.revealed[(self.me, p)] = hs.secrets.unlock_keys[p]
        for p in mine:
            keys = hs.keys_of(p)
            card = None if keys is None else deck.open_card(final[p], keys)
            if card is None or card in hs.cards.values():
                hs.my_alarm = f"my card at position {p} opens to no card"
                return
            hs.cards[p] = card
        self.watcher.note("hole", {"cards": [hs.cards[p] for p in mine]})

    def _apply_act(self, name: str, outcome: Outcome) -> None:
        hs = self.hand
        assert hs is not None
        turn = hs.play.turn
        assert turn is not None
        seat = turn.seat
        msg = outcome.messages.get(seat)
        if msg is None:
            self._silent_turn(seat)
            hs.acts.append({"silent": seat, "fold": seat in hs.play.folded()})
            self._after_act()
            return
        hs.acts.append({"frame": b64(msg.frame)})
        try:
            self._take_alarm(seat, msg)
            act = text(msg.body, "act", 10)
            hs.play.act(seat, act)
            if act == "fold" and "board" in msg.body:
                keys = position_map(msg.body["board"], group.SCALAR_BYTES)
                for p, key in keys.items():
                    if p in hs.play.layout.board:
                        hs.revealed[(seat, p)] = group.check_scalar(key)
        except (WireError, rules.RuleError, group.GroupError) as e:
            self._cheat(seat, f"acted against the rules: {e}")
        self._after_act()

    def _silent_turn(self, seat: int) -> None:
        """The player to act said nothing: folded when it may fold."""
        hs = self.hand
        assert hs is not None
        legal = hs.play.legal(seat)
        if any(a["name"] == "fold" for a in legal):
            hs.play.act(seat, "fold")
        self._departures()
        if not hs.void and seat in hs.play.live():
            self._void(f"{self.name_of(seat)} left while the hand needed its keys")

    def _after_act(self) -> None:
        self._departures()
        self._flush_records()
        self._advance()

    def _apply_board(self, name: str, outcome: Outcome) -> None:
        hs = self.hand
        assert hs is not None
        unopened = [p for p in hs.play.dealt_board() if p not in hs.public]
        for seat, msg in sorted(outcome.messages.items()):
            try:
                self._take_alarm(seat, msg)
                keys = position_map(msg.body.get("keys"), group.SCALAR_BYTES)
                if set(keys) != set(unopened):
                    raise Problem("keys of other positions than the street's")
                for p, key in keys.items():
                    hs.revealed[(seat, p)] = group.check_scalar(key)
            except (WireError, Problem, group.GroupError) as e:
                self._cheat(seat, f"sent wrong board keys: {e}")
        self._departures()
        if not hs.void and not hs.audit:
            self._open_public(unopened)
        self._flush_records()
        self._advance()

    def _open_public(self, positions: Sequence[int]) -> None:
        """Open ``positions`` for everyone with the keys revealed; a position that does
        not open to a card not shown yet starts an audit (every peer sees it alike).  A
        card that is one of this player's own is seen by it alone: it raises an alarm in
        its next message, which every peer then takes alike."""
        hs = self.hand
        assert hs is not None
        final = hs.deal.final
        assert final is not None
        for p in positions:
            keys = hs.keys_of(p)
            if keys is None:
                self._void("a card cannot be opened: keys are missing")
                return
            try:
                card = deck.open_card(final[p], keys)
            except group.GroupError:
                card = None
            shown = {c for q, c in hs.cards.items() if q != p and q in hs.public}
            if card is None or card in shown:
                hs.audit = True
                self._void(f"position {p} does not open to a card: the keys will tell who")
                return
            if card in {c for q, c in hs.cards.items() if q not in hs.public} and not hs.my_alarm:
                hs.my_alarm = f"the card at position {p} is one of my own"
            hs.cards[p] = card
            hs.public.add(p)

    def _take_alarm(self, seat: int, msg: Signed) -> None:
        hs = self.hand
        assert hs is not None
        alarm = msg.body.get("alarm")
        if alarm is not None and seat not in hs.alarms:
            hs.alarms[seat] = str(alarm)[:200]
            hs.audit = True
            self._void(f"{self.name_of(seat)} says its cards do not open")

    def _apply_end(self, name: str, outcome: Outcome) -> None:
        hs = self.hand
        assert hs is not None
        for seat, msg in sorted(outcome.messages.items()):
            try:
                self._take_alarm(seat, msg)
                if "show" in msg.body:
                    shown = position_map(msg.body["show"], group.SCALAR_BYTES)
                    if set(shown) != set(hs.play.layout.hole.get(seat, ())):
                        raise Problem("shows keys of cards that are not its own")
                    for p, key in shown.items():
                        hs.revealed[(seat, p)] = group.check_scalar(key)
                if self.table_key is not None and self.identity is not None:
                    data = seal.unseal(
                        self.table_key, hs.number, unb64(msg.body.get("sealed"), most=4096)
                    )
                    hs.end_keys[seat] = deck.parse_end_keys(data, last=seat == hs.order[-1])
            except (WireError, Problem, group.GroupError, seal.SealError) as e:
                self._cheat(seat, f"published keys that are no keys: {e}")
        self._departures()
        self._judge()
        self._begin_done()

    def _judge(self) -> None:
        """Check the deal with every end key; play the hand again on its cards."""
        hs = self.hand
        assert hs is not None
        complete = self.identity is not None and set(hs.end_keys) == set(hs.order)
        if complete and hs.deal.final is not None:
            opened = {p: c for p, c in hs.cards.items()}
            found = deck.check_deal(hs.deal, hs.end_keys, hs.revealed, opened)
            for seat, why in found.cheaters.items():
                self._cheat(seat, why)
            if found.cards is not None:
                hs.cards = dict(enumerate(found.cards))
                for seat in hs.alarms:
                    self._cheat(seat, "raised a false alarm")
        if hs.void:
            return
        if hs.play.showdown:
            for seat in hs.play.live():
                for p in hs.play.layout.hole[seat]:
                    if p in hs.cards and complete:
                        continue
                    keys = hs.keys_of(p)
                    final = hs.deal.final
                    try:
                        card = (
                            None
                            if keys is None or final is None
                            else deck.open_card(final[p], keys)
                        )
                    except group.GroupError:
                        card = None
                    if card is None:
                        self._void(f"{self.name_of(seat)}'s cards cannot be shown")
                        return
                    hs.cards[p] = card
            hs.public.update(p for seat in hs.play.live() for p in hs.play.layout.hole[seat])

    def _verdict(self) -> None:
        """This peer's verdict on the hand (the ``d`` message's content)."""
        hs = self.hand
        assert hs is not None
        if hs.void:
            result = hs.play.void()
        else:
            result = hs.play.final(hs.cards)
        hs.result = result
        hs.verdict = {
            "void": hs.void,
            "cheaters": {str(s): why for s, why in sorted(hs.cheaters.items())},
            "stacks": {str(s): str(p.stack) for s, p in sorted(result.players.items())},
        }

    def _apply_done(self, name: str, outcome: Outcome) -> None:
        hs = self.hand
        assert hs is not None and hs.verdict is not None
        mine = _verdict_of(hs.verdict)
        bodies = [m.body for _, m in sorted(outcome.messages.items())]
        if self.observer:
            if not bodies:
                self.stop("no peer gave its verdict on a hand", failed=True)
                return
            # what most peers say (a cheater's word is one against the others')
            verdicts = [_verdict_of(b) for b in bodies]
            seen = max(verdicts, key=verdicts.count)
            if seen != mine:
                # the peers know what an observer does not (sealed keys): their word
                body = bodies[verdicts.index(seen)]
                hs.void = str(body.get("void") or "")[:200] or ("void" if seen["void"] else "")
                named = body.get("cheaters")
                hs.cheaters = {
                    int(s): str(w)[:200]
                    for s, w in (named.items() if isinstance(named, dict) else ())
                    if isinstance(s, str) and s.isdigit() and int(s) in hs.order
                }
                self._verdict()
            mine = seen
        # every honest peer's verdict follows from the same transcript (its ``prev`` says
        # so): a peer that signed another one is out, and the hand stands
        for seat, m in sorted(outcome.messages.items()):
            if seat not in hs.cheaters and _verdict_of(m.body) != mine:
                hs.cheaters[seat] = "gave a verdict that does not follow from the hand"
        for _, m in sorted(outcome.messages.items()):
            for author in self._proofs_in(m.body.get("proofs")):
                hs.cheaters.setdefault(author, "sent different messages to different peers")
        self._finalize()

    def _proofs_in(self, proofs: Any) -> list[int]:
        """The authors a verdict's ``proofs`` prove to have equivocated (each proof: two
        different frames, both signed by one author for one phase of this table)."""
        found = []
        for pair in proofs[:16] if isinstance(proofs, list) else ():
            try:
                if not isinstance(pair, list) or len(pair) != 2:
                    raise WireError("a proof is two frames")
                first, second = (unb64(x) for x in pair)
                bodies = [open_frame(f)[0] for f in (first, second)]
                author = wire_field(bodies[0], "a", int)
                if not 0 <= author < len(self.roster.keys) or first == second:
                    raise WireError("no proof")
                places = {repr([b.get(k) for k in ("t", "h", "ph", "a", "k")]) for b in bodies}
                if len(places) != 1 or bodies[0].get("t") != self.roster.table_id.hex():
                    raise WireError("two messages of different places")
                for f in (first, second):
                    verify(f, self.roster.keys[author])
            except WireError:
                continue
            if author in self.live and author != self.me:
                found.append(author)
        return found
