"""The terminal client's words in Spanish and English; the language comes from ``--lang`` or
the locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``: Spanish for ``es*``, English otherwise).

One table of messages keeps both languages side by side, so a key can never exist in one
language and be missing from the other (a test checks the placeholders agree too).

>>> Translator("es")("your_turn")
'Tu turno'
>>> detect_language({"LANG": "es_EC.UTF-8"}), detect_language({"LANG": "C"})
('es', 'en')
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Final

LANGUAGES: Final = ("es", "en")

#: key -> (Spanish, English); placeholders are str.format fields
MESSAGES: Final[Mapping[str, tuple[str, str]]] = {
    # the table
    "title": ("Cuarenta", "Cuarenta"),
    "team_us": ("Nosotros", "Us"),
    "team_them": ("Ellos", "Them"),
    "team_n": ("Equipo {team}", "Team {team}"),
    "score": ("{team}: {score} puntos, {pile} cartas", "{team}: {score} points, {pile} cards"),
    "seat": ("Asiento {seat}", "Seat {seat}"),
    "you": ("tú", "you"),
    "empty_seat": ("(libre)", "(free)"),
    "bot": ("bot {level}", "bot {level}"),
    "away": ("ausente", "away"),
    "stand_in": ("juega un bot", "a bot plays"),
    "cards_in_hand": ("{n} cartas", "{n} cards"),
    "dealer": ("reparte", "deals"),
    "table": ("Mesa", "Table"),
    "table_empty": ("(vacía)", "(empty)"),
    "hand": ("Tu mano", "Your hand"),
    "hand_number": ("Mano {hand}, reparto {packet}", "Hand {hand}, packet {packet}"),
    "your_turn": ("Tu turno", "Your turn"),
    "turn_of": ("Turno de {name}", "{name}'s turn"),
    "seconds_left": ("{s} s", "{s} s left"),
    "announce_phase": ("Anuncios", "Announcements"),
    "claims_phase": ("Reclamos abiertos (ronda-caída)", "Claim window open (ronda-caída)"),
    "lobby": ("Esperando jugadores", "Waiting for players"),
    "lobby_host": ("s: empezar · b: añadir bot", "s: start · b: add a bot"),
    "game_over": ("Fin de la chica · ganador: {team}, {a}-{b}",
                  "Game over · winner: {team}, {a}-{b}"),
    "draw": ("Fin de la chica: empate {a}-{b}", "Game over: a draw {a}-{b}"),
    "rematch_hint": ("n: otra chica · ctrl+q: salir", "n: another game · ctrl+q: quit"),
    "spectator": ("Espectador", "Spectator"),
    "missed_on_table": ("Cartas perdidas: {cards}", "Missed cards: {cards}"),
    # choosing
    "choose_card": ("Elige carta (1-{n})", "Choose a card (1-{n})"),
    "choose_option": ("{card}: elige (Esc vuelve)", "{card}: choose (Esc goes back)"),
    "trail": ("tirar (dejar en la mesa)", "trail (leave it on the table)"),
    "take": ("llevar {cards}", "take {cards}"),
    "caida": ("caída", "caída"),
    "limpia": ("limpia", "limpia"),
    "take_missed": ("llevar las perdidas", "take the missed cards"),
    "announce_ronda": ("cantar ronda", "announce ronda"),
    "announce_cuarenta": ("cantar cuarenta", "announce cuarenta"),
    "announce_pass": ("pasar", "pass"),
    "claim": ("reclamar ronda-caída de {rank}", "claim ronda-caída of {rank}"),
    "keys": ("/: charlar · ctrl+q: salir", "/: chat · ctrl+q: quit"),
    "chat_prompt": ("Escribe y pulsa Enter (Esc cancela)", "Type and press Enter (Esc cancels)"),
    # connection
    "connected": ("conectado", "connected"),
    "reconnecting": ("reconectando…", "reconnecting…"),
    "resumed": ("reconectado ({n})", "reconnected ({n})"),
    "closed": ("desconectado: {detail}", "disconnected: {detail}"),
    "refused": ("rechazado: {detail}", "refused: {detail}"),
    # the event log
    "ev_seat_taken": ("{name} se sienta en el asiento {seat}", "{name} sits in seat {seat}"),
    "ev_seat_freed": ("el asiento {seat} queda libre", "seat {seat} is free"),
    "ev_swapped": ("asientos {seat} y {other} intercambiados", "seats {seat} and {other} swap"),
    "ev_started": ("empieza la chica {game}", "game {game} starts"),
    "ev_stand_in_on": ("un bot juega por {name}", "a bot plays for {name}"),
    "ev_stand_in_off": ("{name} vuelve", "{name} is back"),
    "ev_rematch": ("{name} pide otra chica", "{name} asks for another game"),
    "ev_options": ("opciones cambiadas", "options changed"),
    "ev_lock": ("mesa cerrada: {locked}", "table locked: {locked}"),
    "ev_dealer": ("sorteo: {cards} → reparte {name}", "draw: {cards} → {name} deals"),
    "ev_hand": ("mano {hand}: reparte {name}", "hand {hand}: {name} deals"),
    "ev_packet": ("reparto {packet}", "packet {packet} dealt"),
    "ev_announced": ("{name} canta {call}", "{name} announces {call}"),
    "ev_trail": ("{name} tira {card}", "{name} trails {card}"),
    "ev_capture": ("{name} lleva {take} con {card}", "{name} takes {take} with {card}"),
    "ev_points": (" +{points}", " +{points}"),
    "ev_missed": (" (deja {cards})", " (misses {cards})"),
    "ev_missed_taken": ("{name} lleva las perdidas {cards}", "{name} takes missed {cards}"),
    "ev_claims_opened": ("se abren los reclamos", "the claim window opens"),
    "ev_claimed": ("{name} reclama {rank}: {verdict}", "{name} claims {rank}: {verdict}"),
    "ev_valid": ("válido +{points}", "valid +{points}"),
    "ev_wrong": ("equivocado", "wrong"),
    "ev_claims_closed": ("se cierran los reclamos", "the claim window closes"),
    "ev_awarded": ("{team}: ronda-caída de {rank} +{points}",
                   "{team}: ronda-caída of {rank} +{points}"),
    "ev_counted": ("cartones: {a}-{b} cartas, +{pa}/+{pb}", "count: {a}-{b} cards, +{pa}/+{pb}"),
    "ev_misdeal": ("mal reparto de {name}: {penalty}", "misdeal by {name}: {penalty}"),
    "ev_game_over": ("ganador: {team}, {a}-{b}", "winner: {team}, {a}-{b}"),
    "ev_hidden": ("…", "…"),
    "chat_line": ("{name}: {text}", "{name}: {text}"),
    # cuarenta new
    "new_table": ("Mesa {table}", "Table {table}"),
    "new_join": ("jugar:   {link}", "play:    {link}"),
    "new_watch": ("mirar:   {link}", "watch:   {link}"),
    "new_host": ("anfitrión (secreto): {link}", "host (secret): {link}"),
}


def detect_language(env: Mapping[str, str] | None = None) -> str:
    """The language of the locale: the first set of LC_ALL, LC_MESSAGES, LANG."""
    env = os.environ if env is None else env
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value:
            return "es" if value.lower().startswith("es") else "en"
    return "en"


class Translator:
    """``tr(key, **fields)``: the message in this language, fields filled in."""

    __slots__ = ("index", "lang")

    def __init__(self, lang: str) -> None:
        if lang not in LANGUAGES:
            raise ValueError(f"unknown language {lang!r} (known: {', '.join(LANGUAGES)})")
        self.lang = lang
        self.index = LANGUAGES.index(lang)

    def __call__(self, key: str, **fields: object) -> str:
        return MESSAGES[key][self.index].format(**fields)
