"""Two-player tables (R14) are first-class: created, joined by link, watched, played to the end,
rematched, timed and resumed exactly as four-seat tables — with R14's deal, leader and scoring.

Both people play with the tests' greedy policy; the seeds are pinned so that the games pass
through the positions R14 singles out (a limpia and a count at 38, a caída that wins from 38),
found once with the engine and replayed here through the protocol.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest

from clients.session import ClientSession, RequestRefused
from engine.record import Record
from engine.replay import replay
from protocol import client_messages as c
from protocol import game_events as g
from protocol import server_messages as s
from protocol.base import Profile, TurnTimer
from protocol.errors import ErrorCode
from server.app import TableServer
from tests.server.ladder.players import greedy
from tests.serving import StartServer

AWAY_TURN_S = 60.0  # a dropped person's turn waits for the reconnect (no stand-in in between)
WAIT_S = 30.0
OnTurn = Callable[[ClientSession, s.Snapshot], Awaitable[c.GameAction | None]]


async def seat_two(
    server: TableServer,
    profile: Profile,
    turn_timer: TurnTimer = 0,
) -> tuple[ClientSession, ClientSession, ClientSession]:
    """Ana creates and sits through the host key, Beto through the join link, Caro watches."""
    ana = await ClientSession.connect(server.ws_url, "Ana")
    created = await ana.request(c.CreateTable(profile=profile, turn_timer=turn_timer))
    assert isinstance(created, s.TableCreated)
    await ana.request(c.Join(key=created.host_key))
    beto = await ClientSession.connect(server.ws_url, "Beto")
    await beto.request(c.Join(key=created.join_key))
    caro = await ClientSession.connect(server.ws_url, "Caro")
    await caro.request(c.Watch(key=created.watch_key))
    assert (ana.seat, beto.seat) == (0, 1)
    async with await ClientSession.connect(server.ws_url, "Dani") as late:
        with pytest.raises(RequestRefused) as full:
            await late.request(c.Join(key=created.join_key))
        assert full.value.code is ErrorCode.NO_FREE_SEAT  # R14: two seats only
    return ana, beto, caro


async def play(session: ClientSession, game: int, on_turn: OnTurn | None = None) -> s.Snapshot:
    """Play ``session``'s seat greedily (or as ``on_turn`` chooses) until game ``game`` ends."""
    while True:
        snap = await session.next_snapshot(wait_s=WAIT_S)
        if snap.info.game == game and snap.info.stage == "finished":
            return snap
        if snap.legal and snap.last_event == session.last_event and snap.info.game == game:
            chosen = await on_turn(session, snap) if on_turn else None
            await session.act(chosen or greedy(snap.legal))


def engine_events(session: ClientSession) -> list[dict[str, Any]]:
    return [e.event.model_dump(mode="json") for e in session.events if g.is_game_event(e.event)]


def with_scores_before(events: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], list[int]]]:
    """Each engine event with both players' scores just before it (team = seat, R14)."""
    scores = [0, 0]
    for event in events:
        yield event, list(scores)
        kind = event["type"]
        if kind in ("announced", "played"):
            scores[event["seat"]] += event["points"]
        elif kind == "hand_counted":
            scores = [a + b for a, b in zip(scores, event["points"], strict=True)]
        elif kind == "game_over":
            assert scores == list(event["scores"])
            scores = [0, 0]


def assert_r14_deal_and_leader(events: list[dict[str, Any]], seat: int) -> None:
    """R14: 4 packets of 5 cards per hand; the non-dealer leads every packet."""
    packets: dict[int, list[int]] = {}
    for index, event in enumerate(events):
        if event["type"] != "packet_dealt":
            continue
        packets.setdefault(event["hand"], []).append(event["packet"])
        assert len(event["hands"]) == 2
        assert len(event["hands"][seat]) == 5
        assert event["hands"][1 - seat] is None  # the other hand is never sent (invariant 1)
        first = next((e for e in events[index + 1 :] if e["type"] in ("played", "game_over")), None)
        if first is not None and first["type"] == "played":
            assert first["seat"] == 1 - event["dealer"]
    finished_hands = {e["hand"] for e in events if e["type"] == "hand_counted"}
    for hand in finished_hands:
        assert packets[hand] == [0, 1, 2, 3]
    dealers = [e["dealer"] for e in events if e["type"] == "hand_started"]
    assert len(dealers) >= 2
    assert all(a != b for a, b in itertools.pairwise(dealers))  # the deal alternates each hand


def count_ties(seen: list[tuple[dict[str, Any], list[int]]], count_at_38: bool) -> int:
    """R14 count ties as R11: equal piles score for the non-dealer (6 at 20-20, else 2)."""
    ties = 0
    for event, before in seen:
        if event["type"] != "hand_counted" or event["piles"][0] != event["piles"][1]:
            continue
        piles = event["piles"]
        ties += 1
        non_dealer = 1 - event["dealer"]
        due = 0 if before[non_dealer] == 38 and not count_at_38 else 6 if piles[0] == 20 else 2
        assert event["points"][non_dealer] == due
        assert event["points"][event["dealer"]] == 0
    return ties


async def assert_replays_identically(session: ClientSession, final: s.Snapshot) -> None:
    answer = await session.request(c.GetRecord())
    assert isinstance(answer, s.RecordMessage)
    assert answer.record["profile"] == final.info.profile
    result = replay(Record.from_json(answer.record))
    assert final.view is not None
    assert (result["status"], result["scores"], result["winner"]) == (
        "finished",
        final.view.scores,
        final.view.winner,
    )


async def test_r14_heads_up_table_mandatory_capture_38_rule_reconnect_and_rematch(
    start_server: StartServer,
) -> None:
    seeds = iter([13, 15]).__next__  # game 1: a limpia at 38; the rematch: a count at 38
    async with start_server(seeds=seeds, away_turn_s=AWAY_TURN_S) as server:
        ana, beto, caro = await seat_two(server, "heads-up", turn_timer=15)
        await ana.request(c.Start())
        refused: list[str] = []
        turns = itertools.count(1)
        seats: dict[str, ClientSession] = {"beto": beto}

        async def beto_turn(session: ClientSession, snap: s.Snapshot) -> c.GameAction | None:
            assert any(d.kind == "turn" and d.seat == 1 for d in snap.deadlines)  # the timer
            plays = [a for a in snap.legal if isinstance(a, c.Play)]
            assert not [
                (a, b)
                for a in plays
                for b in plays
                if a.card == b.card and set(a.take) < set(b.take)
            ]  # R14: always the longest sequence
            capturing = {a.card for a in plays if a.take}
            if capturing and not refused:  # R14 heads-up: a card that can capture must capture
                card = sorted(capturing)[0]
                assert c.Play(card=card) not in snap.legal
                with pytest.raises(RequestRefused) as caught:
                    await session.act(c.Play(card=card, take=[]))
                assert caught.value.code is ErrorCode.ILLEGAL_ACTION
                refused.append(caught.value.error.message)
            if next(turns) == 6:  # drop mid-hand and take the seat back with the seat token
                await session.close()
                back = await session.reconnect(server.ws_url, "Beto")
                seats["beto"] = back
                snap = await back.next_snapshot(lambda x: bool(x.legal))
                return greedy(snap.legal)  # (acted on the new session by the caller below)
            return None

        async def beto_plays(game: int) -> s.Snapshot:
            while True:
                session = seats["beto"]
                snap = await session.next_snapshot(wait_s=WAIT_S)
                if snap.info.game == game and snap.info.stage == "finished":
                    return snap
                if snap.legal and snap.last_event == session.last_event:
                    chosen = await beto_turn(session, snap) if game == 1 else None
                    await seats["beto"].act(chosen or greedy(snap.legal))

        first, _ = await asyncio.gather(play(ana, 1), beto_plays(1))
        assert refused
        assert "R7" in refused[0]
        assert "mandatory" in refused[0]
        beto = seats["beto"]
        assert beto.problems == []  # the resume sent every missed event, none twice
        await assert_replays_identically(ana, first)

        events = engine_events(ana)
        assert_r14_deal_and_leader(events, seat=0)
        assert_r14_deal_and_leader(engine_events(beto), seat=1)
        assert not [e for e in events if e["type"] in ("claims_opened", "awarded")]  # no R10
        seen = list(with_scores_before(events))
        for event, before in seen:
            if event["type"] == "announced" and event["call"] == "ronda":  # R14: +2 below 30
                assert event["points"] == (2 if before[event["seat"]] < 30 else 0)
        limpias_at_38 = [
            (e, b)
            for e, b in seen
            if e["type"] == "played" and e["limpia"] and b[e["seat"]] == 38 and not e["caida"]
        ]
        assert limpias_at_38  # pinned by seed 13
        assert all(e["points"] == 0 for e, _ in limpias_at_38)  # R14: no limpia at 38
        caida_at_38 = [
            e for e, b in seen if e["type"] == "played" and e["caida"] and b[e["seat"]] == 38
        ]
        assert caida_at_38
        assert caida_at_38[-1]["points"] >= 2  # a caída still scores at 38, and wins

        assert count_ties(seen, count_at_38=True) >= 1  # pinned by seed 13: 18-18 in hand 3
        spectator = [e for e in engine_events(caro) if e["type"] == "packet_dealt"]
        assert spectator
        assert all(e["hands"] == [None, None] for e in spectator)

        await ana.request(c.Rematch())
        await beto.request(c.Rematch())
        second, _ = await asyncio.gather(play(ana, 2), beto_plays(2))
        await assert_replays_identically(ana, second)
        game_two = engine_events(ana)[len(events) :]
        counts_at_38 = [
            (e, b)
            for e, b in with_scores_before(game_two)
            if e["type"] == "hand_counted" and 38 in b
        ]
        assert counts_at_38  # pinned by seed 15
        for event, before in counts_at_38:
            team = before.index(38)
            assert event["points"][team] > 0  # R14 heads-up: the count still scores at 38
        for session in (ana, beto, caro):
            await session.close()


async def test_r14_libre_2p_optional_capture_and_at_38_only_a_caida_scores(
    start_server: StartServer,
) -> None:
    async with start_server(seeds=lambda: 8, away_turn_s=AWAY_TURN_S) as server:
        ana, beto, caro = await seat_two(server, "libre-2p")
        await ana.request(c.Start())
        optional_seen: list[bool] = []

        async def check_optional(session: ClientSession, snap: s.Snapshot) -> None:
            plays = [a for a in snap.legal if isinstance(a, c.Play)]
            assert not [a for a in snap.legal if isinstance(a, c.TakeMissed)]  # no forfeiture
            for card in {a.card for a in plays if a.take}:
                assert c.Play(card=card) in plays  # R14 libre-2p: capturing is optional
                optional_seen.append(True)

        finals = await asyncio.gather(play(ana, 1, check_optional), play(beto, 1, check_optional))
        assert optional_seen
        await assert_replays_identically(beto, finals[1])
        events = engine_events(ana)
        assert_r14_deal_and_leader(events, seat=0)
        seen = list(with_scores_before(events))
        for event, before in seen:
            if event["type"] == "announced" and event["call"] == "ronda":  # +4 below 38
                assert event["points"] == (4 if before[event["seat"]] < 38 else 0)
            if event["type"] == "played" and before[event["seat"]] == 38:
                assert event["points"] == (2 if event["caida"] else 0)  # only a caída at 38
            if event["type"] == "hand_counted":
                for team in (0, 1):
                    if before[team] == 38:
                        assert event["points"][team] == 0  # no count at 38
        at_38 = [e for e, b in seen if e["type"] == "played" and b[e["seat"]] == 38]
        kinds_at_38 = {
            "caida" if e["caida"] else "limpia" if e["limpia"] else "other" for e in at_38
        }
        assert {"limpia", "caida"} <= kinds_at_38  # pinned by seed 8
        assert [e for e, b in seen if e["type"] == "hand_counted" and 38 in b]
        assert count_ties(seen, count_at_38=False) >= 1  # pinned by seed 8: 18-18 in hand 1
        for session in (ana, beto, caro):
            await session.close()


async def test_r14_libre_2p_missed_sequence_cards_stay_on_the_table(
    start_server: StartServer,
) -> None:
    async with start_server(seeds=itertools.count(1).__next__, away_turn_s=AWAY_TURN_S) as server:
        ana, beto, caro = await seat_two(server, "libre-2p")
        await ana.request(c.Start())
        left: list[tuple[list[str], list[str]]] = []

        async def stop_short(session: ClientSession, snap: s.Snapshot) -> c.GameAction | None:
            plays = [a for a in snap.legal if isinstance(a, c.Play) and a.take]
            for short in plays:
                longer = [
                    a for a in plays if a.card == short.card and set(short.take) < set(a.take)
                ]
                if longer and not left:
                    missed = sorted(set(longer[0].take) - set(short.take))
                    left.append((missed, []))
                    return short
            if left and not left[0][1]:
                assert snap.view is not None
                left[0] = (left[0][0], list(snap.view.table))
            return None

        await asyncio.gather(play(ana, 1, stop_short), play(beto, 1, stop_short))
        assert left  # pinned by the seeds: someone could stop a sequence short
        missed, table_after = left[0]
        assert set(missed) <= set(table_after)  # R14: no forfeiture, they stay on the table
        for session in (ana, beto, caro):
            await session.close()


async def test_r14_a_two_seat_table_of_bots_plays_to_the_end_for_a_spectating_host(
    table_server: TableServer,
) -> None:
    async with await ClientSession.connect(table_server.ws_url, "Host") as host:
        created = await host.request(c.CreateTable(profile="heads-up"))
        assert isinstance(created, s.TableCreated)
        await host.request(c.Watch(key=created.host_key))
        await host.request(c.AddBot(level=1))
        await host.request(c.AddBot(level=2))
        with pytest.raises(RequestRefused) as full:
            await host.request(c.AddBot(level=3))
        assert full.value.code is ErrorCode.NO_FREE_SEAT
        await host.request(c.Start())
        final = await host.next_snapshot(lambda x: x.info.stage == "finished", wait_s=WAIT_S)
        assert final.view is not None
        assert final.view.winner in (0, 1, "draw")
        assert final.view.hand is None


@pytest.mark.parametrize(
    ("profile", "call", "points"),
    [
        ("heads-up", "cuarenta", 0),  # R14 heads-up: four of a kind wins the chica at once
        ("libre-2p", "ronda", 4),  # R14 libre-2p: four of a kind scores as a ronda
    ],
)
async def test_r14_four_of_a_kind_dealt_to_one_player(
    start_server: StartServer,
    profile: Profile,
    call: str,
    points: int,
) -> None:
    async with start_server(seeds=lambda: 59, away_turn_s=AWAY_TURN_S) as server:
        ana, beto, caro = await seat_two(server, profile)
        await ana.request(c.Start())
        _, final = await asyncio.gather(play(ana, 1), play(beto, 1))
        events = engine_events(beto)
        four = next(
            i
            for i, e in enumerate(events)
            if e["type"] == "packet_dealt" and max(_rank_counts(e["hands"][1])) == 4
        )  # pinned by seed 59: Beto's aces
        announced = next(e for e in events[four:] if e["type"] == "announced")
        assert (announced["seat"], announced["call"], announced["points"]) == (1, call, points)
        over = next(e for e in events if e["type"] == "game_over")
        if profile == "heads-up":
            assert sorted(announced["cards"]) == ["AC", "AD", "AH", "AS"]
            watched = next(e for e in engine_events(caro) if e["type"] == "announced")
            assert watched["cards"] == announced["cards"]  # R6: a cuarenta is shown to everyone
            assert (over["winner"], over["reason"]) == (1, "cuarenta")
            assert over is events[four + 2]  # right after the deal and the call: no card played
        else:
            assert events[four + 2]["type"] == "played"  # the chica goes on
        await assert_replays_identically(ana, final)
        for session in (ana, beto, caro):
            await session.close()


def _rank_counts(hand: list[str] | None) -> list[int]:
    ranks = [card[0] for card in hand or []]
    return [ranks.count(rank) for rank in set(ranks)] or [0]
