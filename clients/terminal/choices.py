"""Pure keyboard choice: the legal actions of a snapshot become keys, keys become one action.

A play is chosen in two steps (R7): a card of the hand by its number, then one of that card's
legal options — every distinct capture (basis plus sequence, as the server lists them) and
trailing — by its number; Enter takes the first option, Esc goes back. Announcements (R6),
taking missed cards (R8) and claims (R10) are one key each. Only what the server offered can
be sent, so the keyboard can never form an illegal move.
"""

from __future__ import annotations

from dataclasses import dataclass

from clients.terminal.i18n import Translator
from clients.terminal.render import card_text, cards_text
from protocol import client_messages as c
from protocol import server_messages as s

ANNOUNCE_KEYS = {"ronda": "r", "cuarenta": "c", "pass": "p"}
MISSED_KEY = "m"


@dataclass(frozen=True, slots=True)
class Option:
    """One key and what it does."""

    key: str
    label: str
    action: c.GameAction | None = None  # None: the key opens a card's options
    card: str | None = None


def capture_flags(play: c.Play, view: s.GameView) -> tuple[bool, bool]:
    """(caída, limpia) the play would score (R9): its match takes the last trailed card;
    it empties the table."""
    target = view.caida_target
    caida = target is not None and target in play.take and target[0] == play.card[0]
    limpia = bool(play.take) and len(play.take) == len(view.table)
    return caida, limpia


def _play_label(play: c.Play, view: s.GameView, tr: Translator) -> str:
    if not play.take:
        return tr("trail")
    label = tr("take", cards=cards_text(play.take))
    flags = [
        tr(name)
        for name, on in zip(("caida", "limpia"), capture_flags(play, view), strict=True)
        if on
    ]
    return label + (f" ({', '.join(flags)})" if flags else "")


@dataclass(frozen=True, slots=True)
class Menu:
    """What the player may press now; ``card`` is set once a card has been chosen."""

    snapshot: s.Snapshot
    card: str | None = None

    @property
    def plays(self) -> list[c.Play]:
        return [a for a in self.snapshot.legal if isinstance(a, c.Play)]

    def card_options(self, card: str) -> list[c.Play]:
        """The card's legal plays: captures (most cards first), then trailing last."""
        plays = [p for p in self.plays if p.card == card]
        return sorted(plays, key=lambda p: (not p.take, -len(p.take), p.take))

    def options(self, tr: Translator) -> list[Option]:
        """The keys live now, in display order."""
        view = self.snapshot.view
        if view is None or not self.snapshot.legal:
            return []
        if self.card is not None:
            return [
                Option(str(i), _play_label(p, view, tr), p)
                for i, p in enumerate(self.card_options(self.card), 1)
            ]
        out: list[Option] = []
        playable = {p.card for p in self.plays}
        for i, code in enumerate(view.hand or [], 1):
            if code in playable:
                out.append(Option(str(i), card_text(code), None, code))
        for action in self.snapshot.legal:
            if isinstance(action, c.Announce):
                out.append(
                    Option(ANNOUNCE_KEYS[action.call], tr(f"announce_{action.call}"), action)
                )
            elif isinstance(action, c.TakeMissed):
                out.append(Option(MISSED_KEY, tr("take_missed"), action))
            elif isinstance(action, c.Claim):
                out.append(Option(action.rank.lower(), tr("claim", rank=action.rank), action))
        return out

    def prompt(self, tr: Translator) -> str:
        if self.card is not None:
            return tr("choose_option", card=card_text(self.card))
        hand = self.snapshot.view.hand if self.snapshot.view is not None else None
        return tr("choose_card", n=len(hand or []))

    def press(self, key: str, tr: Translator) -> tuple[Menu, c.GameAction | None]:
        """The menu after ``key``, and the action to send if the key completed one."""
        if key == "escape":
            return Menu(self.snapshot), None
        options = self.options(tr)
        if key == "enter" and self.card is not None and options:
            return Menu(self.snapshot), options[0].action
        for option in options:
            if option.key == key:
                if option.action is not None:
                    return Menu(self.snapshot), option.action
                return Menu(self.snapshot, option.card), None
        return self, None
