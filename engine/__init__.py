"""The Cuarenta rules engine: pure, deterministic, standard library only.

Glossary (RULES.md's R-numbers in brackets):

- *packet* (reparto, tanda): 5 cards to every player [R4]; a *hand* (mano) is the 40-card
  pack [R4, R14]; a *game* (chica) is the race to 40 [R12].
- *trail*: play a card that stays on the table; *capture*: one *basis* (a *match* of the
  same rank, or a *sum* of numeric cards) and an optional *sequence* upward [R7].
- *caída* (a fall): catching, by match, the card the previous player just trailed, +2;
  *limpia* (a clean): a capture that empties the table, +2 [R9].
- *ronda*: three of a rank in a packet, +4; *cuarenta*: four of a rank, wins [R6].
- *missed cards*: the part of a sequence a capture left, which the other team may take [R8].
- *cartones*: the card count at the end of a hand [R11].

A tour of one turn (cards are ints; codes at the edges):

>>> from engine import Game, Play, parse_card, card_code
>>> game = Game.new("pagat-4p", seed=7)
>>> game.phase, game.turn, len(game.hand(game.turn))
(<Phase.PLAY: 'play'>, 0, 5)
>>> action = game.legal_actions()[0]
>>> print(action)
0 3D
>>> [str(event) for event in game.apply(action)]
['0 plays 3D']
>>> [card_code(card) for card in game.table], game.turn
(['3D'], 1)
"""

import engine.compiled  # noqa: F401  (first: a stale compiled core must not load)
from engine.actions import (
    Action,
    Announce,
    Claim,
    CloseClaims,
    Misdeal,
    Play,
    TakeMissed,
    action_from_json,
    parse_action,
)
from engine.cards import RANKS, SUITS, card_code, parse_card, rank_of, suit_of, value_of
from engine.errors import EngineError, IllegalAction, InvalidOptions, InvalidRecord
from engine.events import Event
from engine.game import Game
from engine.phase import Phase
from engine.record import Record
from engine.replay import replay
from engine.rules import PROFILES, Rules, resolve_rules
from engine.state import Hidden
from engine.views import View, redact

__all__ = [
    "PROFILES",
    "RANKS",
    "SUITS",
    "Action",
    "Announce",
    "Claim",
    "CloseClaims",
    "EngineError",
    "Event",
    "Game",
    "Hidden",
    "IllegalAction",
    "InvalidOptions",
    "InvalidRecord",
    "Misdeal",
    "Phase",
    "Play",
    "Record",
    "Rules",
    "TakeMissed",
    "View",
    "action_from_json",
    "card_code",
    "parse_action",
    "parse_card",
    "rank_of",
    "redact",
    "replay",
    "resolve_rules",
    "suit_of",
    "value_of",
]
