"""A single hub restarts with a King Domino game of four network clients (issue 31):
a real ``twistd`` hub on SQLite; mid-game, with one client's prompt held, SIGTERM
leaves the game to its journal and closes the clients' connections; the hub starts
again and resumes it.  Each client connects again and logs in with its name: it is
seated back in its seat, not queued (``OK``, then its prompt when it is its turn, then
the moves made since the game resumed, before it came back), and the game is played
to its end.  Each client follows every line with its own rules engine; its lines,
both connections together, are those of the game's event log for its seat, but for
the prompt it held, said again after its login.

Waits are bounded; nothing is timed.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

from tests.hubprocess import LOOPBACK, HubProcess
from tests.integration.test_cluster import wait_for
from tests.integration.test_cluster_domino_follow import BOUND, NAMES, SETTINGS, Pace, Player


def view(hub: HubProcess, game_id: str) -> dict[str, Any]:
    return dict(hub.get_json(f"/api/games/{game_id}"))  # type: ignore[arg-type]


def waits_for_one_not_back(hub: HubProcess, game_id: str, back: list[Player]) -> bool:
    """Whether the game is over or waits for a player not back yet (its seats are in
    the order the logins came in, not :data:`NAMES`'); a client that failed (its rules
    engine refused a line) fails the test at once, with its lines."""
    for player in back:
        assert player.failure is None, (player.login, player.failure, player.lines[-8:])
    game = view(hub, game_id)
    if game["state"] == "over":
        return True
    to_act = game["seats"][game["view"]["to_act"]]["player"]
    return to_act not in {p.login for p in back}


def test_a_restarted_hub_seats_its_domino_clients_back_when_they_log_in_again(tmp_path: Path):
    hub = HubProcess(tmp_path, domino=LOOPBACK, web=LOOPBACK)
    hub.extra = list(SETTINGS)
    hub.start()
    pace = Pace()
    players = [Player(name, pace, seed) for seed, name in enumerate(NAMES)]
    try:
        for player in players:
            player.connect(hub.ports["domino"])
        holder_name = wait_for(pace.held, "a prompt held mid-game", BOUND)
        (game_id,) = [g["id"] for g in hub.get_json("/api/games")]  # type: ignore[union-attr]
        holder = players[NAMES.index(holder_name)]
        held = holder.connections[0][-1]
        assert held in ("YOUR CHOICE", "YOUR MOVE"), holder.connections[0][-3:]

        assert hub.stop(signal.SIGTERM) in (0, -signal.SIGTERM), hub.log()[-4000:]
        assert "running games left to their journal" in hub.log(), hub.log()[-4000:]
        pace.drop()  # the held prompt is not answered on the closed connection
        for player in players:  # the hub closed their connections
            player.wait()
        hub.start()
        assert f"journal: game {game_id}" in hub.log(), hub.log()[-4000:]
        pace.release()
        back: list[Player] = []
        for player in [holder] + [p for p in players if p is not holder]:
            player.connect(hub.ports["domino"])
            back.append(player)
            try:  # those back play on until it is the turn of one not back yet
                wait_for(
                    lambda: waits_for_one_not_back(hub, game_id, back),
                    "the game waits for a player not back yet",
                    BOUND,
                )
            except AssertionError as e:
                game = view(hub, game_id)
                lines = {p.login: p.connections[-1][-6:] for p in back}
                raise AssertionError(f"{e}: {game['view']}, {lines}\n{hub.log()[-6000:]}") from e
        for player in players:
            player.wait()
        assert view(hub, game_id)["state"] == "over"
        replay = hub.get_json(f"/api/games/{game_id}/replay")
        events = replay["events"]  # type: ignore[index]
        later = back[1].connections[1]  # it missed the move the holder made on coming back
        assert later[2].startswith("PLAYER "), later[:4]
        for player in players:
            assert player.failure is None, (player.login, player.failure, player.lines[-5:])
            first, again = player.connections
            assert first[:2] == ["CONNECT", "OK"] and again[:2] == ["CONNECT", "OK"], again[:3]
            if player is holder:  # its prompt again, then the game goes on
                assert again[2] == held, again[:4]
                again = again[:2] + again[3:]
            lines = first + again
            assert lines.count("OK") == 2 + player.sent and "ERROR" not in lines, lines
            game_lines = [x for x in lines if x not in ("CONNECT", "OK", "ERROR")]
            assert game_lines == player.lines_of_one_hub(events), player.login
            assert sum(1 for x in lines if x.startswith("START ")) == 1  # not queued
            assert lines[-1].startswith("GAME OVER RESULTS")
        assert hub.errors() == [], hub.log()
    finally:
        pace.release()
        for player in players:
            player.close()
        hub.stop()
