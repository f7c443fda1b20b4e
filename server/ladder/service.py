"""The ladder service: answer ladder requests, deal chicas, settle them from the tables' logs.

Every request loads the run, settles the chica in progress if its table's first game is over
(from the stored event log, so any process can do it, also after a restart), applies the
request, and stores the run with a version check before answering (write before send). One
asyncio lock per token keeps one process from racing itself; the version check covers the rest.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
from collections.abc import Callable
from typing import Any, Literal
from weakref import WeakValueDictionary

import structlog

from engine import IllegalAction, InvalidRecord, Record, parse_action, replay
from engine.record import FORMAT
from protocol import ladder as m
from protocol.errors import ErrorCode
from server.core.commands import DealChica
from server.errors import Refused
from server.ladder.names import checked_name
from server.ladder.outcome import chica_outcome
from server.ladder.rules import Chica, LadderRun
from server.ladder.store import LadderStore
from server.lobby import Lobby
from server.store.base import Store, TableNotFound

log = structlog.get_logger("server.ladder")
PROFILE = "heads-up"  # R14: the ladder is played on the heads-up profile


class Ladder:
    """The solo streak ladder of one server process."""

    def __init__(
        self,
        store: LadderStore,
        tables: Store,
        lobby: Lobby,
        new_token: Callable[[], str] = lambda: secrets.token_urlsafe(16),
    ) -> None:
        self.store = store
        self.tables = tables
        self.lobby = lobby
        self.new_token = new_token
        self._locks: WeakValueDictionary[str, asyncio.Lock] = WeakValueDictionary()

    async def handle(
        self, request: m.LadderRequest, name: str
    ) -> m.LadderState | m.LadderBoard | m.LadderSynced:
        """Answer one ladder request; ``Refused`` (nothing stored) for a bad one."""
        if isinstance(request, m.LadderBoardRequest):
            return await self.board(request.rid)
        if isinstance(request, m.LadderSync):
            return await self.sync(request)
        token = request.token
        if isinstance(request, m.LadderOpen) and (
            token is None or await self.store.load(token) is None
        ):  # a new ladder, under a token of ours (one the client made up is never adopted)
            token = (await self._save(LadderRun(self.new_token()))).token
        assert token is not None
        async with self._locks.setdefault(token, asyncio.Lock()):
            run = await self._settle(await self._load(token))
            if isinstance(request, m.LadderPlay) and run.chica is None:
                run = await self._deal(run, run.name or name)
            elif isinstance(request, m.LadderNew):
                if run.chica is not None or run.streak:
                    run = await self._save(run.ended("abandoned"))
                run = await self._deal(run, run.name or name)
            elif isinstance(request, m.LadderRename):
                run = await self._save(run.renamed(checked_name(request.name)))
                await self.store.offer_best(run.token, run.best, run.name)
        return state_message(run, request.rid)

    async def sync(self, request: m.LadderSync) -> m.LadderSynced:
        """Count an offline chica once, by its record's digest, after replaying it (issue 42)."""
        record = pocket_record(request)
        result, scores = await asyncio.to_thread(pocket_outcome, record)
        digest = record_digest(record)
        async with self._locks.setdefault(request.token, asyncio.Lock()):
            run = await self._load(request.token)
            counted = digest not in run.pocket_seen
            if counted:
                run = await self._save(run.pocketed(digest, result == "won"))
                log.info("ladder pocket chica counted", result=result, played=run.pocket_played)
        return m.LadderSynced(
            rid=request.rid,
            digest=digest,
            counted=counted,
            result=result,
            scores=scores,
            played=run.pocket_played,
            won=run.pocket_won,
        )

    async def board(self, rid: int = 0) -> m.LadderBoard:
        entries = await self.store.board()
        return m.LadderBoard(
            rid=rid,
            lines=[
                m.BoardLine(rank=i, name=entry.name, score=entry.score, streak=entry.streak)
                for i, entry in enumerate(entries, start=1)
            ],
        )

    async def _load(self, token: str) -> LadderRun:
        run = await self.store.load(token)
        if run is None:  # only ladder_open issues tokens
            raise Refused(ErrorCode.NOT_FOUND, "no ladder has this token: open a ladder first")
        return run

    async def _settle(self, run: LadderRun) -> LadderRun:
        """Count the chica in progress if its game is over (R14): win, loss, draw or void."""
        chica = run.chica
        if chica is None:
            return run
        try:
            stored = await self.tables.events_after(chica.table, 0)
        except TableNotFound:  # the table outlived its TTL unplayed: the chica was abandoned
            log.info("ladder chica vanished", table=chica.table)
            return await self._save(run.ended("abandoned"))
        outcome = chica_outcome([json.loads(event.data) for event in stored], chica.seat)
        if outcome is None:
            return run
        if outcome.result == "won":
            settled = run.voided() if outcome.assisted else run.won(outcome.margin)
        else:
            settled = run.ended(outcome.result, outcome.margin)
        saved = await self._save(settled)
        if saved.best > run.best:
            await self.store.offer_best(saved.token, saved.best, saved.name)
        log.info(
            "ladder chica settled",
            table=chica.table,
            result=outcome.result,
            assisted=outcome.assisted,
            streak=saved.streak,
            best=saved.best,
        )
        return saved

    async def _deal(self, run: LadderRun, name: str) -> LadderRun:
        """A new heads-up table against the bot of the run's level, the person's seat reserved."""
        level = run.level
        room = await self.lobby.create(PROFILE, {}, 0)
        reserved = (await room.run(DealChica(name, level))).reserved
        assert reserved is not None, "a chica reserves the person's seat"
        chica = Chica(
            room.table_id, room.referee.table.keys["join"], reserved.seat, reserved.token, level
        )
        log.info("ladder chica dealt", table=room.table_id, level=level, streak=run.streak)
        return await self._save(run.dealt(chica))

    async def _save(self, run: LadderRun) -> LadderRun:
        return await self.store.save(run)


def state_message(run: LadderRun, rid: int = 0) -> m.LadderState:
    """The wire form of a run (R14 score and the bot's level for the next or current chica)."""
    chica = run.chica
    last = run.last
    return m.LadderState(
        rid=rid,
        token=run.token,
        streak=run.streak,
        level=run.level,
        margin=run.margins,
        score=run.score,
        best=run.best,
        name=run.name,
        chica=None
        if chica is None
        else m.LadderChica(
            table=chica.table,
            join_key=chica.join_key,
            seat=chica.seat,
            seat_token=chica.seat_token,
            level=chica.level,
        ),
        last=None
        if last is None
        else m.LadderResult(
            result=last.result,
            margin=last.margin,
            level=last.level,
            streak=last.streak,
            score=last.score,
        ),
    )


def pocket_record(sync: m.LadderSync) -> dict[str, Any]:
    """The R15 record a ``ladder_sync`` carries compactly (``Refused`` for an unreadable action)."""
    texts = [text for chunk in sync.actions for text in chunk.split(";") if text.strip()]
    try:
        actions = [parse_action(text).to_json() for text in texts]
    except IllegalAction as error:
        raise Refused(ErrorCode.ILLEGAL_ACTION, f"the record: {error}") from None
    record: dict[str, Any] = {"format": FORMAT, "profile": PROFILE, "options": {}}
    if sync.dealer is not None:
        record["dealer"] = sync.dealer
    if sync.draw_start is not None:
        cards = [sync.draw[i : i + 2] for i in range(0, len(sync.draw), 2)]
        record["draw"] = {"start": sync.draw_start, "cards": cards}
    record["packs"] = [[pack[i : i + 2] for i in range(0, 80, 2)] for pack in sync.packs]
    record["actions"] = actions
    return record


def record_digest(record: dict[str, Any]) -> str:
    """A record's name for counting it once: the digest of its canonical JSON (64 bits)."""
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def pocket_outcome(
    record: dict[str, Any],
) -> tuple[Literal["won", "lost", "draw"], tuple[int, int]]:
    """Replay an offline chica's record: its result for the person (seat 0) and the scores.

    ``Refused`` unless it is a valid, finished ``heads-up`` game (R14, R15).
    """
    try:
        parsed = Record.from_json(record)
    except InvalidRecord as error:
        raise Refused(ErrorCode.INVALID_MESSAGE, f"not a valid record: {error}") from None
    if parsed.profile != PROFILE:
        raise Refused(
            ErrorCode.INVALID_MESSAGE, f"R14: a pocket chica is {PROFILE}, not {parsed.profile}"
        )
    replayed = replay(parsed)
    if replayed["status"] == "error":
        raise Refused(ErrorCode.ILLEGAL_ACTION, f"the record: {replayed['error']['message']}")
    if replayed["status"] != "finished":
        raise Refused(ErrorCode.WRONG_PHASE, "R15: the record's game is not finished")
    winner, scores = replayed["winner"], (int(replayed["scores"][0]), int(replayed["scores"][1]))
    return ("draw" if winner == "draw" else "won" if winner == 0 else "lost"), scores
