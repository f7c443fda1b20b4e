"""The game itself: starting one, a seat's actions, the R10 claim window, bots' answers.

Every change to the game goes through ``after_game_events``: the engine's events move the table's
clocks and stage (``note``), are published, and a claim window that waits for nobody is closed
at once (``server.core.claim_window``). At a turn-based table whose rule is ``forfeit`` the
stand-in's cards at missed deadlines are counted, and a team's second in a row ends the game
(``server.core.forfeit``, ``forfeit_game``).
"""

from __future__ import annotations

import json

from engine.actions import Action, CloseClaims
from engine.cards import parse_card
from engine.errors import EngineError, IllegalAction
from engine.events import ClaimsClosed, ClaimsOpened, GameOver
from engine.events import Event as EngineEvent
from engine.game import Game
from engine.phase import Phase
from protocol import client_messages as c
from protocol import table_events as t
from protocol.convert import action_from_wire
from protocol.errors import ErrorCode
from server.core import forfeit
from server.core.claim_window import claim_window_done
from server.core.outcome import Note
from server.core.publishing import seen_by
from server.core.seating import Viewer
from server.core.step import Step, require_game, require_seated
from server.core.table import Table
from server.errors import Refused


def start_game(step: Step) -> None:
    """Deal a new game to the seated table (every seat filled)."""
    table = step.table
    empty = [i for i, seat in enumerate(table.seats) if seat.occupant == "empty"]
    if empty:
        raise Refused(ErrorCode.WRONG_PHASE, f"seats {empty} are empty: fill them first")
    table.game_no += 1
    table.seed = table.seeds()
    table.game = Game.new(table.profile, table.options, table.seed)
    table.stage = "playing"
    table.rematch.clear()
    table.claims_done.clear()
    table.claims_deadline = None
    table.missed, table.ended = [0, 0], None
    for seat in table.seats:
        if seat.occupant == "person" and seat.conn is None and not table.waits:
            seat.stand_in = True
    names = [seat.name or "" for seat in table.seats]
    table.decision_since = step.now
    note(step, table.game.start_events)
    step.publish(t.GameStarted(game=table.game_no, names=names), *table.game.start_events)
    maybe_close_claims(step)


def apply_action(step: Step, action: Action) -> None:
    """Apply a system action (closing claims, a misdeal) to the game being played."""
    game = require_game(step.table)
    after_game_events(step, game.apply(action))


def after_game_events(step: Step, events: tuple[EngineEvent, ...]) -> None:
    step.table.decision_since = step.now
    note(step, events)
    step.publish(*events)
    maybe_close_claims(step)


def maybe_close_claims(step: Step) -> None:
    """Close the claim window (as its clock would) once it waits for nobody (claim_window)."""
    game = step.table.game
    if game is None or game.phase is not Phase.CLAIMS:
        return
    if claim_window_done(game, step.table.claims_done):
        apply_action(step, CloseClaims())


def note(step: Step, events: tuple[EngineEvent, ...]) -> None:
    """Update the table's clocks and stage from the engine's events, before publishing."""
    table = step.table
    game = table.game
    assert game is not None
    for event in events:
        if isinstance(event, ClaimsOpened):
            # a turn-based table's window lasts a move deadline: its people are not all there
            window = table.move_deadline or table.config.claim_window_s
            table.claims_deadline = step.now + window
            table.claims_done.clear()
        elif isinstance(event, ClaimsClosed):
            table.claims_deadline = None
        elif isinstance(event, GameOver):
            end_game(table, game)


def end_game(table: Table, game: Game) -> None:
    """The game is over (R12, or a forfeit): its record is kept, the seats are the people's."""
    table.stage = "finished"
    table.claims_deadline = None
    table.finished_record = game.record().to_json()
    for seat in table.seats:
        if seat.occupant == "person":
            seat.stand_in = False
            if seat.open:
                seat.clear()


def forfeit_game(step: Step, team: int) -> None:
    """``team`` missed its second deadline in a row: the other team wins by forfeit, now.

    The record stays the actions played (R15: it replays to a game in progress); the table
    keeps how it ended beside it (``Table.ended``), and every viewer is told (``Forfeited``).
    """
    table = step.table
    game = table.game
    assert game is not None
    table.ended = {"by": "forfeit", "team": team}
    end_game(table, game)
    step.publish(t.Forfeited(team=team, winner=1 - team, scores=game.scores))


def on_play(step: Step, viewer: Viewer, msg: c.GameAction) -> None:
    """A seat's play, take of missed cards, announcement or claim (R7-R10)."""
    table = step.table
    index = require_seated(viewer)
    game = require_game(table)
    if msg.at is not None and msg.at > table.last_event:
        raise Refused(
            ErrorCode.INVALID_MESSAGE,
            f"at {msg.at} is ahead of the table: its last event is {table.last_event}",
        )
    if msg.at is not None and msg.at < table.game_event:
        if already_made(step, index, msg):
            step.out.ack(viewer.conn, msg.rid)  # its events reached the mover (or its resume will)
            return
        raise Refused(
            ErrorCode.STALE, f"the game moved on at event {table.game_event}; you saw {msg.at}"
        )
    if index not in game.to_act():
        raise Refused(ErrorCode.NOT_YOUR_TURN, f"seat {index} has no decision now")
    try:
        action = action_from_wire(msg, index)
        events = game.apply(action)
    except EngineError as exc:
        raise Refused(ErrorCode.ILLEGAL_ACTION, str(exc)) from None
    step.out.ack(viewer.conn, msg.rid)
    forfeit.decided(table, index)  # the team is here: its missed deadlines start again
    after_game_events(step, events)


def on_no_claim(step: Step, viewer: Viewer, msg: c.NoClaim) -> None:
    """R10: this person has nothing (more) to claim; the window closes once nobody is left."""
    index = require_seated(viewer)
    game = require_game(step.table)
    if game.phase is not Phase.CLAIMS:
        raise Refused(ErrorCode.WRONG_PHASE, "R10: no claim window is open")
    step.out.ack(viewer.conn, msg.rid)
    forfeit.decided(step.table, index)
    step.table.claims_done.add(index)
    step.out.dirty = True
    maybe_close_claims(step)


def on_rematch(step: Step, viewer: Viewer, msg: c.Rematch) -> None:
    """A seat asks for another game; it starts once every connected person has asked."""
    table = step.table
    index = require_seated(viewer)
    if table.stage != "finished":
        raise Refused(ErrorCode.WRONG_PHASE, "a rematch follows a finished game")
    table.rematch.add(index)
    step.out.ack(viewer.conn, msg.rid)
    step.publish(t.RematchAsked(seat=index))
    waiting = [
        i
        for i, seat in enumerate(table.seats)
        if seat.occupant == "person" and seat.conn is not None and i not in table.rematch
    ]
    if not waiting and all(seat.occupant != "empty" for seat in table.seats):
        start_game(step)


def bot_answer(step: Step, seat: int, at: int, action: Action | None) -> None:
    """Apply a bot's answer if the table is still where the bot saw it (event ``at``).

    An illegal answer is replaced by the first action the bot was offered (the table is where
    it saw it, and must not stall), and noted for the shell to log.
    """
    table = step.table
    game = table.game
    if game is None or at != table.last_event or not table.in_game:
        return  # stale: the next tick asks again
    if action is None:  # the bot declines an optional action (a claim, missed cards)
        if game.phase is Phase.CLAIMS:
            table.claims_done.add(seat)
            step.out.dirty = True
            maybe_close_claims(step)
        return
    counted = forfeit.is_missed(table, seat)  # a person's card, its deadline passed
    try:
        events = game.apply(action)
    except IllegalAction as exc:
        offered = game.legal_actions(seat, by_rank=True)[0]
        step.out.notes.append(
            Note(
                "a bot's answer was illegal; its first legal action was played instead",
                {"seat": seat, "action": str(action), "played": str(offered), "reason": str(exc)},
            )
        )
        events = game.apply(offered)
    after_game_events(step, events)
    if counted:
        step.out.dirty = True
        team = forfeit.missed(table, seat)
        if team is not None:
            forfeit_game(step, team)


def already_made(step: Step, index: int, msg: c.GameAction) -> bool:
    """The move is stored already: the first game event after the one it was made at is
    this very play or announcement of this seat.

    A retry of a move whose answer was lost (its table's owner stored it and died before
    replying; the request, forwarded again, reaches the new owner): it is acknowledged,
    never refused as stale, for a move that was stored is never refused (invariant 9).
    """
    table = step.table
    if msg.at is None or not isinstance(msg, c.Play | c.Announce):
        return False
    for line in table.log[msg.at : table.game_event]:
        form = seen_by(json.loads(line), index)  # the log's reader: what this seat was sent
        kind = form.get("type")
        if kind == "played" and isinstance(msg, c.Play):
            return (
                form.get("seat") == index
                and parse_card(form["card"]) == parse_card(msg.card)
                and {parse_card(code) for code in form.get("take", [])}
                == {parse_card(code) for code in msg.take}
            )
        if kind == "announced" and isinstance(msg, c.Announce):
            return bool(form.get("seat") == index and form.get("call") == msg.call)
        if kind in ("played", "announced"):
            return False  # the next move is another kind of move: not this one
    return False
