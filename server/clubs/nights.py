"""The club nights of a server: members, host commands, and the rounds driven to their results.

Every change loads the club's documents, applies a pure change (``server.clubs.night``) and
writes them back with a version check before anyone is answered (write before send); one lock
per club keeps this process from racing itself, the version check covers other processes (the
loser reads again). A driver pass, every ``poll_s``, walks each club's round in progress: it
opens the tables a round still lacks, starts a table once its people sat down (or after
``seat_wait_s`` with stand-ins), records each finished game (the table's kept R15 record) and
loads a table no process runs (after a restart), so its game goes on. All of it is read from
the store, so a new process carries on a night where a stopped one left it.

When a round's table opens, each member seated there who is known by a public id (their
``club_open`` came over a socket whose hello had a player key) is sent a ``night_round``
notice (``server.notices``), once per club, night, round and person. It opens the club's page
(``/c/<club>``), which seats a member and takes them to their table: a table's own link holds
its join key, and a notice carries none.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import structlog

from protocol import clubs as m
from protocol import server_messages as s
from protocol.errors import ErrorCode
from server import keys
from server.clubs import night as nights
from server.clubs import night_tables
from server.clubs.night_store import Doc, NightStore, club_key, night_key
from server.clubs.tournament import TournamentError
from server.errors import Refused
from server.listing import entry_of
from server.lobby import Lobby
from server.notices import NoNotices, Notice, Notices
from server.store.base import VersionConflict

log = structlog.get_logger("server.clubs")
POLL_S = 0.2
SEAT_WAIT_S = 90.0
STAND_IN_LEVEL = 3
PAST_SHOWN = 12


@dataclass(frozen=True, slots=True)
class Follower:
    name: str
    member: bool
    host: bool


class ClubNights:
    """Answers the club messages (``protocol.clubs``) and drives every club's rounds."""

    def __init__(
        self,
        store: NightStore,
        lobby: Lobby,
        clubs: tuple[str, ...],
        deliver: Callable[[str, s.ServerMessage], None],
        alive: Callable[[str], bool],
        clock: Callable[[], float] = time.time,
        poll_s: float = POLL_S,
        seat_wait_s: float = SEAT_WAIT_S,
        notices: Notices | None = None,
    ) -> None:
        self.store = store
        self.notices = notices or NoNotices()  # night_round, to members away from the page
        self.lobby = lobby
        self.clubs = clubs
        self.deliver = deliver
        self.alive = alive
        self.clock = clock
        self.poll_s = poll_s
        self.seat_wait_s = seat_wait_s
        self.followers: dict[str, dict[str, Follower]] = {club: {} for club in clubs}
        self._locks = {club: asyncio.Lock() for club in clubs}
        self._host_keys: dict[str, str] = {}
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Drive the clubs' rounds (a server without clubs has nothing to drive)."""
        if self.clubs:
            self._task = asyncio.create_task(self._drive_forever(), name="club-nights")

    def stop(self) -> asyncio.Task[None] | None:
        """Stop driving the rounds; the task to await (``server.tasks.cancel_and_wait``)."""
        return self._task

    # ------------------------------------------------------------------ requests
    async def handle(
        self, conn: str, name: str, message: m.ClubRequest, player: str | None = None
    ) -> m.ClubNight:
        """``player``: the public id the connection's hello proved (None: a guest)."""
        club = message.club
        if club not in self.clubs:
            raise Refused(ErrorCode.NOT_FOUND, f"no club {club!r} on this server")
        host = message.key is not None and await self._is_host(club, message.key)
        if message.key is not None and not host:
            raise Refused(ErrorCode.FORBIDDEN, "this is not the club's host key")
        if isinstance(message, m.ClubOpen):
            return await self._open(conn, name, message, host, player)
        async with self._locks[club]:
            try:
                await self._change(club, message)
            except VersionConflict:  # another process changed the night at the same moment:
                raise Refused(  # STALE, which a client may simply send again (the club page does)
                    ErrorCode.STALE, "the night changed at that moment: send it again"
                ) from None
        await self.broadcast(club)
        return await self.state(club, message.rid, host)

    async def _open(
        self, conn: str, name: str, msg: m.ClubOpen, host: bool, player: str | None
    ) -> m.ClubNight:
        club = msg.club
        if msg.member and name == "guest":
            raise Refused(ErrorCode.INVALID_MESSAGE, "a member needs a name: say it in hello")
        if msg.member:
            async with self._locks[club]:
                await self._add_member(club, name, player or msg.player)
        self.followers[club][conn] = Follower(name, msg.member, host)
        answer = await self.state(club, msg.rid, host)
        if msg.member:
            await self._tell_seats(club, {name.casefold()}, conn)
        return answer

    async def _change(self, club: str, msg: m.ClubRequest) -> None:
        """Apply one host command to the night, stored before it is answered."""
        doc, version = await self._club(club)
        night, night_version = await self._night(club, doc)
        try:
            if isinstance(msg, m.ClubPair):
                night = nights.register(night, list(msg.members), msg.bot_level)
            elif isinstance(msg, m.ClubWithdraw):
                night = _withdrawn(night, msg.pair)
            elif isinstance(msg, m.ClubStart):
                night = nights.start(night, msg.format, msg.rounds, msg.move_deadline)
            elif isinstance(msg, m.ClubRound):
                night = nights.next_round(night, msg.round, msg.move_deadline)
            elif isinstance(msg, m.ClubRule):
                night = await self._ruled(night, msg)
        except TournamentError as exc:
            raise Refused(ErrorCode.INVALID_MESSAGE, str(exc)) from None
        if doc.get("current") != night["number"]:
            doc = {**doc, "current": night["number"], "nights": [*doc["nights"], night["number"]]}
            await self.store.put(club_key(club), doc, version)
        await self.store.put(night_key(club, night["number"]), night, night_version)
        if isinstance(msg, m.ClubRound):
            await self._drive_club(club)  # open the round's tables now

    async def _ruled(self, night: Doc, msg: m.ClubRule) -> Doc:
        """A stuck table ended by the host: the awarded score, or the score as it stands."""
        tournament = nights.tournament_of(night)
        number = len(tournament.rounds)
        entry = night["tables"].get(f"{number}-{msg.table}")
        if msg.score_a is not None and msg.score_b is not None:
            score = (msg.score_a, msg.score_b)
        elif msg.score_a is None and msg.score_b is None and entry is not None:
            found = await night_tables.scores_now(self.lobby, entry)
            if found is None:
                raise TournamentError(f"table {msg.table} is not running here: award a score")
            score = found
        else:
            raise TournamentError(f"table {msg.table}: award both scores, or neither")
        ruled = nights.record(tournament, msg.table, *score)
        return {**night, "tournament": ruled.to_dict()}

    async def _add_member(self, club: str, name: str, player: str | None) -> None:
        doc, version = await self._club(club)
        members = [m for m in doc["members"] if m["name"].casefold() != name.casefold()]
        known = len(members) != len(doc["members"])
        member = {"name": name, "player": player}
        if known and member in doc["members"]:
            return
        await self.store.put(club_key(club), {**doc, "members": [*members, member]}, version)
        await self.broadcast(club)

    # ------------------------------------------------------------------ the documents
    async def _club(self, club: str) -> tuple[Doc, int]:
        found = await self.store.get(club_key(club))
        return found or ({"members": [], "nights": [], "current": None}, 0)

    async def _night(self, club: str, doc: Doc) -> tuple[Doc, int]:
        """The night in progress; a new one when the last has finished (or none was held)."""
        current = doc.get("current")
        if current is not None:
            found = await self.store.get(night_key(club, current))
            if found is not None and not _over(found[0]):
                return found
        return nights.new_night(max(doc["nights"], default=0) + 1, self.clock()), 0

    async def state(self, club: str, rid: int = 0, host: bool = False) -> m.ClubNight:
        doc, _ = await self._club(club)
        held = []
        for number in doc["nights"][-PAST_SHOWN:]:
            found = await self.store.get(night_key(club, number))
            if found is not None:
                held.append(found[0])
        current = held[-1] if held and held[-1]["number"] == doc.get("current") else None
        state = {
            "members": doc["members"],
            "night": None if current is None else nights.public(current),
            "past": [nights.public(night) for night in held if night is not current],
            "season": nights.season(held),
        }
        return m.ClubNight(rid=rid, club=club, host=host, state=state)

    async def view(self, club: str) -> dict[str, Any]:
        """The public state plus the live seats and scores of the round's tables: those run
        here, and the turn-based ones waiting in the store, read from their card (never loaded
        to be looked at)."""
        state = (await self.state(club)).state
        live = {}
        for entry in (state["night"] or {}).get("tables", {}).values():
            room = self.lobby.loaded(entry["id"])
            if room is not None:
                live[entry["id"]] = entry_of(room.summary)
            elif entry.get("move_deadline"):
                found = await night_tables.waiting_entry(self.lobby, entry)
                if found is not None:
                    live[entry["id"]] = found
        return {"club": club, **state, "live": live}

    async def broadcast(self, club: str) -> None:
        followers = self.followers.get(club, {})
        for conn in [conn for conn in followers if not self.alive(conn)]:
            del followers[conn]
        if not followers:
            return
        public, hosted = await self.state(club), await self.state(club, host=True)
        for conn, follower in list(followers.items()):
            self.deliver(conn, hosted if follower.host else public)

    async def _is_host(self, club: str, credential: str) -> bool:
        if club not in self._host_keys:
            ref = await self.lobby.store.find_key(club)
            stored = None if ref is None else await self.lobby.store.load(ref.table_id)
            if stored is None:
                return False
            self._host_keys[club] = json.loads(stored.state)["keys"]["host"]
        return keys.same_secret(credential, self._host_keys[club])

    # ------------------------------------------------------------------ the driver
    async def _drive_forever(self) -> None:
        while True:
            await asyncio.sleep(self.poll_s)  # a polling period, not a synchronisation
            for club in self.clubs:
                try:
                    await self.drive(club)
                except VersionConflict:
                    pass  # another process changed the night: the next pass reads it again
                except Exception:
                    log.exception("driving the club night failed", club=club)

    async def drive(self, club: str) -> bool:
        """One driver pass over ``club``'s round now (the loop's step, also for a test on a
        fake clock): True if the night changed, stored and told to its followers."""
        async with self._locks[club]:
            changed = await self._drive_club(club)
        if changed:
            await self.broadcast(club)
        return changed

    async def _drive_club(self, club: str) -> bool:
        """One pass over the round in progress; True if the night changed (and was stored)."""
        doc, _ = await self._club(club)
        if doc.get("current") is None:
            return False
        found = await self.store.get(night_key(club, doc["current"]))
        if found is None or found[0]["tournament"] is None:
            return False
        night, version = found
        driven = await self._drive_round(club, night)
        if driven == night:
            return False
        await self.store.put(night_key(club, night["number"]), driven, version)
        return True

    async def _drive_round(self, club: str, night: Doc) -> Doc:
        tournament = nights.tournament_of(night)
        if not tournament.rounds:
            return night
        number = len(tournament.rounds)
        entries = dict(night["tables"])
        now = self.clock()
        seated: set[str] = set()
        for match in tournament.rounds[-1].matches:
            key = f"{number}-{match.table}"
            entry = entries.get(key)
            if match.done:
                continue
            if entry is None:
                places = nights.places(tournament, match.a, match.b)
                pace = nights.round_pace(night, number)
                entries[key] = await night_tables.open_table(self.lobby, places, now, pace)
                entries[key].update(round=number, table=match.table, a=match.a, b=match.b)
                seated |= {p.name.casefold() for p in places if p.name is not None}
            elif not entry["started"]:
                waited = now - entry["opened"] >= self._seat_wait(entry)
                if await night_tables.start_when_ready(self.lobby, entry, waited, STAND_IN_LEVEL):
                    entries[key] = {**entry, "started": True}
            else:
                score = await night_tables.result(self.lobby, entry)
                if score is not None:
                    tournament, entries[key] = await self._recorded(tournament, match, entry, score)
        driven = {**night, "tables": entries, "tournament": tournament.to_dict()}
        if seated:
            await self._tell_seats(club, seated, None, driven)
            await self._notify_round(club, driven, number, seated)
        return driven

    def _seat_wait(self, entry: Doc) -> float:
        """How long a round's seat waits for its person before a stand-in sits in it: at a
        turn-based round, one move deadline (a member away for the day has as long to sit down
        as for any move; the round's notice calls them), else ``seat_wait_s``."""
        return max(self.seat_wait_s, float(entry.get("move_deadline", 0)))

    async def _notify_round(self, club: str, night: Doc, number: int, names: set[str]) -> None:
        """A ``night_round`` notice to each member of ``names`` (casefolded) with a public id,
        seated at a table of round ``number`` just opened."""
        doc, _ = await self._club(club)
        ids = {m["name"].casefold(): m["player"] for m in doc["members"] if m.get("player")}
        for entry in night["tables"].values():
            if entry.get("round") != number:
                continue
            for place in entry["places"]:
                name = (place["name"] or "").casefold()
                player = ids.get(name) if name in names else None
                if player is None:
                    continue
                key = f"night_round:{club}:{night['number']}:{number}:{player}"
                notice = Notice(
                    "night_round",
                    player,
                    key,
                    f"/c/{club}",
                    entry["id"],
                    detail=club,
                    pace=entry.get("move_deadline", 0),  # told: live, or how long a move has
                )
                await self.notices.send(notice)

    async def _recorded(
        self, tournament: nights.Tournament, match: Any, entry: Doc, score: tuple[int, int]
    ) -> tuple[nights.Tournament, Doc]:
        try:
            return nights.record(tournament, match.table, *score), entry
        except TournamentError:  # a level knock-out game: played again
            return tournament, {
                **(await night_tables.replay_tie(self.lobby, entry)),
                "started": True,
            }

    async def _tell_seats(
        self, club: str, names: set[str], only: str | None, night: Doc | None = None
    ) -> None:
        """Send each of ``names`` (casefolded) the seat it has at a table not started yet."""
        if night is None:
            doc, _ = await self._club(club)
            if doc.get("current") is None:
                return
            found = await self.store.get(night_key(club, doc["current"]))
            if found is None:
                return
            night = found[0]
        for entry in night["tables"].values():
            if entry["started"]:
                continue
            for place in entry["places"]:
                if place["name"] is None or place["name"].casefold() not in names:
                    continue
                seat = m.ClubSeat(
                    club=club,
                    round=entry["round"],
                    table=entry["table"],
                    join_key=entry["join"],
                    seat=place["seat"],
                    move_deadline=entry.get("move_deadline", 0),
                )
                wanted = place["name"].casefold()
                for conn, follower in self.followers.get(club, {}).items():
                    if only in (None, conn) and follower.name.casefold() == wanted:
                        self.deliver(conn, seat)


def _withdrawn(night: Doc, pair: str) -> Doc:
    if night["tournament"] is None:
        kept = [p for p in night["pairs"] if p["id"] != pair]
        if len(kept) == len(night["pairs"]):
            raise TournamentError(f"no pair {pair}")
        return {**night, "pairs": kept}
    return {**night, "tournament": nights.withdraw(nights.tournament_of(night), pair).to_dict()}


def _over(night: Doc) -> bool:
    return night["tournament"] is not None and nights.finished(nights.tournament_of(night))
