"""The requests about people, answered for one connection: values of ``server.people`` mapped
to the wire models of ``protocol.players``.

A connection knows its person by public id only (``Connection.player``); the player key went
into ``Players.enter`` on ``hello`` and is never kept, logged nor sent. Every request but
``leaderboard`` needs a person (``no_player``). An invitation goes to a friend only, and says
nothing to the inviter about whether it reached anyone (a blocked or offline friend looks the
same as one who got it). Every friend invited is also kept the invitation (``invitations``)
and sent a ``friend_invite`` notice, which carries no key: the page it opens asks for the
pending invitations over the person's own socket, and only that answer holds the join keys.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from protocol import players as p
from protocol import server_messages as s
from protocol.errors import ErrorCode
from server.core.seating import TokenBucket
from server.errors import Refused
from server.frames import Built
from server.notices import NoNotices, Notice, Notices
from server.people import Players
from server.people.invitations import Invitation, Invitations, MemoryInvitations
from server.people.model import (
    GameSummary,
    Player,
    PlayerError,
    PlayerRef,
    Seat,
    checked_language,
    clean_name,
)
from server.people.presence import Presence
from server.people.rating import BOARD_MIN_GAMES

if TYPE_CHECKING:
    from server.cluster import RemoteRoom
    from server.core.referee import Referee
    from server.lobby import Lobby
    from server.push.routes import AwayRoutes
    from server.room import Room

Deliver = Callable[[str, s.ServerMessage | Built], None]
Push = Callable[[str, str, s.ServerMessage], None]
"""Send a message to a connection served by another process: (process, conn, message)."""
INVITES_PER_MIN = 10
MAX_BUCKETS = 10_000  # people whose invitation rate is remembered before the idle are dropped
PRESENCE_REFRESH_S = 30.0  # a live connection's presence is written at most this often


class People:
    """People who come back, as this process's connections see them."""

    def __init__(
        self,
        players: Players,
        presence: Presence,
        lobby: Lobby,
        deliver: Deliver,
        push: Push | None = None,
        away: AwayRoutes | None = None,
        invitations: Invitations | None = None,
        notices: Notices | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.players = players
        self.invitations = invitations or MemoryInvitations(clock=clock)
        self.notices = notices or NoNotices()  # friend_invite, for a friend away or not
        self.clock = clock
        self.away = away  # turn-based tables and notices (``server.push.routes``)
        self.presence = presence
        self.lobby = lobby
        self.deliver = deliver
        self.push = push  # beside Redis: to another process's connections (``server.cluster``)
        self._invites: dict[str, TokenBucket] = {}
        self._written: dict[str, tuple[str | None, float]] = {}  # conn -> (table, when)

    async def enter(self, player_key: str, name: str) -> Player:
        return await self.players.enter(player_key, name)

    # ------------------------------------------------------------------ presence
    async def seen(self, player: str, conn: str, table: str | None) -> None:
        """Refresh a connection's presence when its table changed or it is due."""
        now = time.monotonic()
        last = self._written.get(conn)
        if last is not None and last[0] == table and now - last[1] < PRESENCE_REFRESH_S:
            return
        self._written[conn] = (table, now)
        await self.presence.seen(player, conn, table)

    async def gone(self, player: str, conn: str) -> None:
        self._written.pop(conn, None)
        await self.presence.gone(player, conn)

    # ------------------------------------------------------------------ requests
    async def answer(
        self, player: str | None, message: p.PlayerRequest, room: Room | RemoteRoom | None
    ) -> s.ServerMessage:
        """The answer to one request of the person ``player`` (None: the hello had no key)."""
        if isinstance(message, p.LeaderboardRequest):
            return await self._leaderboard(message)
        if player is None:
            raise Refused(ErrorCode.NO_PLAYER, "say hello with a player_key first")
        store = self.players.store
        match message:
            case p.MeRequest():
                return await self._me(player, message.rid)
            case p.SetMe(rid=rid, name=name, language=language):
                if name is not None:
                    await store.rename(player, clean_name(name))
                if language is not None:
                    await store.set_language(player, checked_language(language))
                return await self._me(player, rid)
            case p.HistoryRequest(rid=rid, skip=skip, count=count):
                games = await store.history(player, skip, count + 1)
                return p.History(
                    rid=rid,
                    skip=skip,
                    games=[_past(game) for game in games[:count]],
                    more=len(games) > count,
                )
            case p.Friend():
                await self._act(player, message)
                return await self._friends(player, message.rid)
            case p.FriendsRequest():
                return await self._friends(player, message.rid)
            case p.ForgetMe():
                await store.forget(player)
                return s.Ack(rid=message.rid)
            case p.Invite():
                await self._invite(player, message, room)
                return s.Ack(rid=message.rid)
            case p.InvitationsRequest(rid=rid, drop=drop):
                if drop is not None:
                    await self.invitations.drop(player, drop)
                return await self._invitations(player, rid)
            case _ if self.away is not None:
                answer = await self.away.answer(player, message)
                return s.Ack(rid=message.rid) if answer is None else answer
        raise Refused(ErrorCode.INVALID_MESSAGE, f"not a player request: {message.type}")

    async def _me(self, player: str, rid: int) -> p.Me:
        found = await self.players.store.get(player)
        if found is None:
            raise Refused(ErrorCode.NO_PLAYER, "this player was forgotten")
        ratings = [
            p.RatingLine(profile_class=cls, rating=rating.shown, games=rating.games)
            for cls, rating in sorted(found.ratings.items())
        ]
        return p.Me(rid=rid, id=found.id, name=found.name, language=found.language, ratings=ratings)

    async def _act(self, player: str, message: p.Friend) -> None:
        store, other = self.players.store, message.player
        if other == player:
            raise Refused(ErrorCode.INVALID_MESSAGE, "that is you")
        action = {
            "request": store.request_friend,
            "accept": store.accept_friend,
            "refuse": store.refuse_friend,
            "remove": store.remove_friend,
            "block": store.block,
            "unblock": store.unblock,
        }[message.action]
        await action(player, other)

    async def _friends(self, player: str, rid: int) -> p.Friends:
        relations = await self.players.store.relations(player)
        where = await self.presence.where([friend.id for friend in relations.friends])
        return p.Friends(
            rid=rid,
            friends=[
                p.FriendLine(
                    id=friend.id,
                    name=friend.name,
                    online=where[friend.id].online,
                    table=where[friend.id].table,
                )
                for friend in relations.friends
            ],
            incoming=[_person(ref) for ref in relations.incoming],
            outgoing=[_person(ref) for ref in relations.outgoing],
            blocked=[_person(ref) for ref in relations.blocked],
        )

    async def _leaderboard(self, message: p.LeaderboardRequest) -> p.Leaderboard:
        entries = await self.players.store.board(message.profile_class, p.MAX_PAGE)
        lines = [
            p.LeaderLine(
                rank=rank,
                id=entry.player.id,
                name=entry.player.name,
                rating=entry.rating.shown,
                games=entry.rating.games,
            )
            for rank, entry in enumerate(entries, start=1)
        ]
        return p.Leaderboard(
            rid=message.rid,
            profile_class=message.profile_class,
            min_games=BOARD_MIN_GAMES,
            lines=lines,
        )

    # ------------------------------------------------------------------ invitations
    async def _invite(self, player: str, message: p.Invite, room: Room | RemoteRoom | None) -> None:
        """Send a friend the inviter's table: its join key to their open sockets, the
        invitation kept for ``/me`` and a notice (no key); to anyone else nothing, silently."""
        now = time.monotonic()
        if len(self._invites) > MAX_BUCKETS:  # forget who has not invited for a minute
            self._invites = {
                who: kept for who, kept in self._invites.items() if now - kept.stamp < 60
            }
        bucket = self._invites.setdefault(
            player, TokenBucket(rate=INVITES_PER_MIN / 60, burst=INVITES_PER_MIN)
        )
        if not bucket.allow(now):
            raise Refused(ErrorCode.RATE_LIMITED, f"at most {INVITES_PER_MIN} invitations a minute")
        if room is None:
            raise Refused(ErrorCode.NOT_AT_TABLE, "join a table first, then invite to it")
        store = self.players.store
        inviter = await store.get(player)
        if inviter is None:
            raise Refused(ErrorCode.NO_PLAYER, "this player was forgotten")
        try:
            theirs = await store.relations(message.player)  # a block ends the friendship too
        except PlayerError:
            return  # nobody by that id: the inviter learns nothing
        if not any(friend.id == player for friend in theirs.friends):
            return
        profile, join_key = await self._table_facts(room)
        now = self.clock()
        await self.invitations.add(message.player, Invitation(room.table_id, player, now))
        await self.notices.send(
            Notice(
                "friend_invite",
                message.player,
                f"invite:{player}:{room.table_id}:{int(now // 60)}",
                f"/me?invite={room.table_id}",
                room.table_id,
                detail=inviter.name,
            )
        )
        invited = p.Invited(
            by=p.Person(id=inviter.id, name=inviter.name),
            table=room.table_id,
            profile=profile,
            join_key=join_key,
        )
        where = (await self.presence.where([message.player]))[message.player]
        for conn in where.conns:
            process = where.processes.get(conn)
            if process is None or process == self.lobby.owner or self.push is None:
                self.deliver(conn, invited)
            else:
                self.push(process, conn, invited)

    async def _invitations(self, player: str, rid: int) -> p.Invitations:
        """The person's pending invitations, from friends still, to tables still there, with
        their join keys."""
        lines = []
        friends = {friend.id for friend in (await self.players.store.relations(player)).friends}
        for invitation in await self.invitations.pending(player):
            if invitation.by not in friends:
                continue  # no longer friends (a block ends a friendship too)
            by = await self.players.store.get(invitation.by)
            facts = await self._facts_of(invitation.table)
            if by is None or facts is None:
                continue  # the inviter was forgotten, or the table is gone
            lines.append(
                p.Invitation(
                    by=p.Person(id=by.id, name=by.name),
                    table=invitation.table,
                    profile=facts[0],
                    join_key=facts[1],
                    at=invitation.at,
                )
            )
        return p.Invitations(rid=rid, invitations=lines)

    async def _table_facts(self, room: Room | RemoteRoom) -> tuple[str, str]:
        """A table's profile and join key: from the referee here, else from the store."""
        referee: Referee | None = getattr(room, "referee", None)  # None: owned elsewhere
        if referee is not None:
            return referee.table.profile, referee.table.keys["join"]
        facts = await self._facts_of(room.table_id)
        if facts is None:
            raise Refused(ErrorCode.NOT_FOUND, "this table is gone")
        return facts

    async def _facts_of(self, table: str) -> tuple[str, str] | None:
        """A table's profile and join key, from this process's room or the store (None: gone)."""
        room = self.lobby.rooms.get(table)
        referee: Referee | None = getattr(room, "referee", None)
        if referee is not None:
            return referee.table.profile, referee.table.keys["join"]
        stored = await self.lobby.store.load(table)
        if stored is None:
            return None
        state = json.loads(stored.state)
        return str(state["profile"]), str(state["keys"]["join"])


def _person(ref: PlayerRef) -> p.Person:
    return p.Person(id=ref.id, name=ref.name)


def _seat(seat: Seat) -> p.PastSeat:
    return p.PastSeat(name=seat.name, id=seat.player_id, bot_level=seat.bot_level)


def _past(game: GameSummary) -> p.PastGame:
    return p.PastGame(
        finished_at=game.finished_at,
        profile=game.profile,
        table=game.table_id,
        game=game.game,
        partners=[_seat(seat) for seat in game.partners],
        opponents=[_seat(seat) for seat in game.opponents],
        score=list(game.score),
        result=game.result,
        rating_change=game.rating_change,
        casual=game.casual,
        accuracy=game.accuracy,
        by="forfeit" if game.forfeit else None,
    )
