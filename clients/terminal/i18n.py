"""The terminal client's words in Spanish, English and Portuguese; the language comes from
``--lang`` or the locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``: Spanish for ``es*``,
Portuguese for ``pt*``, English otherwise).

One table of messages keeps the languages side by side, so a key can never exist in one
language and be missing from another (a test checks the placeholders agree too). Cuarenta's
own terms — ronda, caída, limpia, chica, cuarenta — stay Spanish in every language.

>>> Translator("es")("your_turn"), Translator("pt")("your_turn")
('Tu turno', 'Sua vez')
>>> detect_language({"LANG": "es_EC.UTF-8"}), detect_language({"LANG": "pt_BR"})
('es', 'pt')
>>> detect_language({"LANG": "C"})
'en'
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Final

LANGUAGES: Final = ("es", "en", "pt")

#: key -> (Spanish, English, Portuguese); placeholders are str.format fields
MESSAGES: Final[Mapping[str, tuple[str, str, str]]] = {
    # the table
    "title": ("Cuarenta", "Cuarenta", "Cuarenta"),
    "profile_pagat-4p": (
        "4 jugadores en parejas",
        "4 players in partnerships",
        "4 jogadores em duplas",
    ),
    "profile_libre-2p": ("libre, 2 jugadores", "free game, 2 players", "livre, 2 jogadores"),
    "profile_heads-up": ("mano a mano", "heads-up", "mano a mano"),
    "team_us": ("Nosotros", "Us", "Nós"),
    "team_them": ("Ellos", "Them", "Eles"),
    "team_n": ("Equipo {team}", "Team {team}", "Equipe {team}"),
    "score": (
        "{team}: {score} puntos, {pile} cartas",
        "{team}: {score} points, {pile} cards",
        "{team}: {score} pontos, {pile} cartas",
    ),
    "seat": ("Asiento {seat}", "Seat {seat}", "Assento {seat}"),
    "bot_name": (
        "Bot del asiento {seat} (nivel {level})",
        "Seat {seat} bot (level {level})",
        "Bot do assento {seat} (nível {level})",
    ),
    "bot": ("bot de nivel {level}", "bot, level {level}", "bot de nível {level}"),
    "you": ("tú", "you", "você"),
    "empty_seat": ("(libre)", "(free)", "(livre)"),
    "away": ("ausente", "away", "ausente"),
    "stand_in": ("juega un bot", "a bot plays", "um bot joga"),
    "cards_in_hand": ("{n} cartas", "{n} cards", "{n} cartas"),
    "dealer": ("reparte", "deals", "dá as cartas"),
    "table": ("Mesa", "Table", "Mesa"),
    "table_empty": ("(vacía)", "(empty)", "(vazia)"),
    "hand": ("Tu mano", "Your hand", "Sua mão"),
    "hand_number": (
        "Mano {hand}, reparto {packet}",
        "Hand {hand}, packet {packet}",
        "Mão {hand}, rodada {packet}",
    ),
    "your_turn": ("Tu turno", "Your turn", "Sua vez"),
    "turn_of": ("Turno de {name}", "{name}'s turn", "Vez de {name}"),
    "seconds_left": ("{s} s", "{s} s left", "{s} s"),
    "announce_phase": ("Anuncios", "Announcements", "Anúncios"),
    "claims_phase": (
        "Reclamos abiertos (ronda-caída)",
        "Claim window open (ronda-caída)",
        "Reclamações abertas (ronda-caída)",
    ),
    "lobby": ("Esperando jugadores", "Waiting for players", "Esperando jogadores"),
    "lobby_host": (
        "s: empezar · b: añadir bot",
        "s: start · b: add a bot",
        "s: começar · b: pôr um bot",
    ),
    "game_over": (
        "Fin de la chica · ganador: {team}, {a}-{b}",
        "Game over · winner: {team}, {a}-{b}",
        "Fim da chica · vencedor: {team}, {a}-{b}",
    ),
    "draw": (
        "Fin de la chica: empate {a}-{b}",
        "Game over: a draw {a}-{b}",
        "Fim da chica: empate {a}-{b}",
    ),
    "rematch_hint": (
        "n: otra chica · ctrl+q: salir",
        "n: another game · ctrl+q: quit",
        "n: outra chica · ctrl+q: sair",
    ),
    "new_game_hint": ("n: partida nueva", "n: new game", "n: nova partida"),
    "new_game_confirm": (
        "¿Dejar esta partida y empezar una nueva? n: sí · Esc: no",
        "Leave this game and start a new one? n: yes · Esc: no",
        "Deixar esta partida e começar uma nova? n: sim · Esc: não",
    ),
    "spectator": ("Espectador", "Spectator", "Espectador"),
    "missed_on_table": (
        "Cartas perdidas: {cards}",
        "Missed cards: {cards}",
        "Cartas perdidas: {cards}",
    ),
    # choosing
    "choose_card": ("Elige carta (1-{n})", "Choose a card (1-{n})", "Escolha uma carta (1-{n})"),
    "choose_option": (
        "{card}: elige (Esc vuelve)",
        "{card}: choose (Esc goes back)",
        "{card}: escolha (Esc volta)",
    ),
    "trail": (
        "tirar (dejar en la mesa)",
        "trail (leave it on the table)",
        "descartar (deixar na mesa)",
    ),
    "take": ("llevar {cards}", "take {cards}", "levar {cards}"),
    "caida": ("caída", "caída", "caída"),
    "limpia": ("limpia", "limpia", "limpia"),
    "take_missed": ("llevar las perdidas", "take the missed cards", "levar as perdidas"),
    "announce_ronda": ("cantar ronda", "announce ronda", "cantar ronda"),
    "announce_cuarenta": ("cantar cuarenta", "announce cuarenta", "cantar cuarenta"),
    "announce_pass": ("pasar", "pass", "passar"),
    "claim": (
        "reclamar ronda-caída de {rank}",
        "claim ronda-caída of {rank}",
        "reclamar ronda-caída de {rank}",
    ),
    "keys": ("/: charlar · ctrl+q: salir", "/: chat · ctrl+q: quit", "/: conversar · ctrl+q: sair"),
    "chat_prompt": (
        "Escribe y pulsa Enter (Esc cancela)",
        "Type and press Enter (Esc cancels)",
        "Escreva e tecle Enter (Esc cancela)",
    ),
    # connection
    "connected": ("conectado", "connected", "conectado"),
    "reconnecting": ("reconectando…", "reconnecting…", "reconectando…"),
    "resumed": ("reconectado ({n})", "reconnected ({n})", "reconectado ({n})"),
    "closed": ("desconectado: {detail}", "disconnected: {detail}", "desconectado: {detail}"),
    "refused": ("rechazado: {detail}", "refused: {detail}", "recusado: {detail}"),
    "bye_taken_back": (
        "el asiento se retomó desde otra conexión",
        "the seat was taken back by a new connection",
        "o assento foi retomado por outra conexão",
    ),
    "bye_kicked": (
        "el anfitrión te sacó de la mesa",
        "the host removed you from the table",
        "o anfitrião tirou você da mesa",
    ),
    "bye_moved": (
        "la mesa pasó a otro servidor: abre el enlace otra vez",
        "the table moved to another server: open the link again",
        "a mesa passou para outro servidor: abra o link de novo",
    ),
    "bye_client": ("cerrado", "closed", "fechado"),
    "bye_dropped": ("se cortó la conexión", "the connection dropped", "a conexão caiu"),
    # errors (by the wire's stable codes; the server's own English text is never shown)
    "err_not_found": (
        "ninguna mesa tiene este enlace (mal escrito, o la mesa ya no existe)",
        "no table has this link (mistyped, or the table is gone)",
        "nenhuma mesa tem este link (digitado errado, ou a mesa não existe mais)",
    ),
    "err_no_free_seat": ("la mesa está llena", "the table is full", "a mesa está cheia"),
    "err_seat_taken": (
        "ese asiento está ocupado",
        "that seat is taken",
        "esse assento está ocupado",
    ),
    "err_table_locked": (
        "el anfitrión cerró la mesa",
        "the host has locked the table",
        "o anfitrião fechou a mesa",
    ),
    "err_forbidden": (
        "este enlace no permite eso",
        "this link cannot do that",
        "este link não permite isso",
    ),
    "err_version_mismatch": (
        "el servidor habla otra versión del protocolo",
        "the server speaks another protocol version",
        "o servidor fala outra versão do protocolo",
    ),
    "err_bad_token": (
        "el asiento ya no es tuyo",
        "the seat is no longer yours",
        "o assento não é mais seu",
    ),
    "err_not_your_turn": ("no es tu turno", "it is not your turn", "não é a sua vez"),
    "err_stale": (
        "la mesa ya cambió: mira otra vez",
        "the table moved on: look again",
        "a mesa já mudou: olhe de novo",
    ),
    "err_illegal_action": (
        "esa jugada no está permitida",
        "that move is not allowed",
        "essa jogada não é permitida",
    ),
    "err_wrong_phase": (
        "no se puede en este momento de la partida",
        "not possible at this point of the game",
        "não é possível neste momento da partida",
    ),
    "err_not_seated": (
        "los espectadores no pueden hacer eso",
        "spectators cannot do that",
        "espectadores não podem fazer isso",
    ),
    "err_rate_limited": (
        "demasiado rápido: espera un momento",
        "too fast: wait a moment",
        "rápido demais: espere um momento",
    ),
    "err_bad_options": (
        "opciones no permitidas (R13)",
        "options not allowed (R13)",
        "opções não permitidas (R13)",
    ),
    "err_other": (
        "el servidor rechazó el pedido ({code})",
        "the server refused the request ({code})",
        "o servidor recusou o pedido ({code})",
    ),
    "err_link": (
        "{text} no es un enlace de mesa (se espera http://SERVIDOR:PUERTO/t/CLAVE)",
        "{text} is not a table link (expected http://HOST:PORT/t/KEY)",
        "{text} não é um link de mesa (esperado http://SERVIDOR:PORTA/t/CHAVE)",
    ),
    "err_unreachable": (
        "ningún servidor de mesas responde en {server}",
        "no table server answers at {server}",
        "nenhum servidor de mesas responde em {server}",
    ),
    "err_connection": (
        "se perdió la conexión con el servidor",
        "the connection to the server was lost",
        "a conexão com o servidor se perdeu",
    ),
    "err_option_format": (
        "--option {text}: se espera NOMBRE=VALOR (R13)",
        "--option {text}: expected NAME=VALUE (R13)",
        "--option {text}: esperado NOME=VALOR (R13)",
    ),
    # the event log
    "ev_seat_taken": (
        "{name} se sienta en el asiento {seat}",
        "{name} sits in seat {seat}",
        "{name} senta no assento {seat}",
    ),
    "ev_bot_seated": (
        "un bot de nivel {level} se sienta en el asiento {seat}",
        "a level {level} bot sits in seat {seat}",
        "um bot de nível {level} senta no assento {seat}",
    ),
    "ev_seat_freed": (
        "el asiento {seat} queda libre",
        "seat {seat} is free",
        "o assento {seat} fica livre",
    ),
    "ev_swapped": (
        "asientos {seat} y {other} intercambiados",
        "seats {seat} and {other} swap",
        "assentos {seat} e {other} trocados",
    ),
    "ev_started": ("empieza la chica {game}", "game {game} starts", "começa a chica {game}"),
    "ev_stand_in_on": (
        "un bot juega por {name}",
        "a bot plays for {name}",
        "um bot joga por {name}",
    ),
    "ev_stand_in_off": ("{name} vuelve", "{name} is back", "{name} voltou"),
    "ev_rematch": (
        "{name} pide otra chica",
        "{name} asks for another game",
        "{name} pede outra chica",
    ),
    "ev_options": ("opciones cambiadas", "options changed", "opções alteradas"),
    "ev_lock_on": ("mesa cerrada", "table locked", "mesa fechada"),
    "ev_lock_off": ("mesa abierta", "table unlocked", "mesa aberta"),
    "ev_hints_on": ("pistas permitidas", "hints allowed", "dicas permitidas"),
    "ev_hints_off": ("pistas quitadas", "hints switched off", "dicas desligadas"),
    "ev_dealer": (
        "sorteo: {cards} → reparte {name}",
        "draw: {cards} → {name} deals",
        "sorteio: {cards} → {name} dá as cartas",
    ),
    "ev_hand": (
        "mano {hand}: reparte {name}",
        "hand {hand}: {name} deals",
        "mão {hand}: {name} dá as cartas",
    ),
    "ev_packet": ("reparto {packet}", "packet {packet} dealt", "rodada {packet}"),
    "ev_announced": ("{name} canta {call}", "{name} announces {call}", "{name} canta {call}"),
    "call_ronda": ("ronda", "ronda", "ronda"),
    "call_cuarenta": ("cuarenta", "cuarenta", "cuarenta"),
    "call_pass": ("paso", "pass", "passo"),
    "ev_trail": ("{name} tira {card}", "{name} trails {card}", "{name} descarta {card}"),
    "ev_capture": (
        "{name} lleva {take} con {card}",
        "{name} takes {take} with {card}",
        "{name} leva {take} com {card}",
    ),
    "ev_points": (" +{points}", " +{points}", " +{points}"),
    "ev_missed": (" (deja {cards})", " (misses {cards})", " (deixa {cards})"),
    "ev_missed_taken": (
        "{name} lleva las perdidas {cards}",
        "{name} takes missed {cards}",
        "{name} leva as perdidas {cards}",
    ),
    "ev_claims_opened": (
        "se abren los reclamos",
        "the claim window opens",
        "abrem-se as reclamações",
    ),
    "ev_claimed": (
        "{name} reclama {rank}: {verdict}",
        "{name} claims {rank}: {verdict}",
        "{name} reclama {rank}: {verdict}",
    ),
    "ev_valid": ("válido +{points}", "valid +{points}", "válido +{points}"),
    "ev_wrong": ("equivocado", "wrong", "errado"),
    "ev_claims_closed": (
        "se cierran los reclamos",
        "the claim window closes",
        "fecham-se as reclamações",
    ),
    "ev_awarded": (
        "{team}: ronda-caída de {rank} +{points}",
        "{team}: ronda-caída of {rank} +{points}",
        "{team}: ronda-caída de {rank} +{points}",
    ),
    "ev_counted": (
        "cartones: {a}-{b} cartas, +{pa}/+{pb}",
        "count: {a}-{b} cards, +{pa}/+{pb}",
        "contagem: {a}-{b} cartas, +{pa}/+{pb}",
    ),
    "ev_at38": (
        "{name} está en 38: a 38 solo cuenta la caída, sus cartones no suman",
        "{name} is on 38: at 38 only a caída scores, the count gives nothing",
        "{name} está com 38: com 38 só a caída pontua, as cartas não contam",
    ),
    "ev_misdeal": (
        "mal reparto de {name}: {penalty}",
        "misdeal by {name}: {penalty}",
        "cartas mal dadas por {name}: {penalty}",
    ),
    "penalty_game": ("pierde la chica", "loses the game", "perde a chica"),
    "penalty_ten": ("10 para el otro equipo", "10 to the other team", "10 para a outra equipe"),
    "penalty_two": (
        "2 para el otro equipo, reparte otra vez",
        "2 to the other team, deals again",
        "2 para a outra equipe, dá de novo",
    ),
    "ev_game_over": (
        "ganador: {team}, {a}-{b}",
        "winner: {team}, {a}-{b}",
        "vencedor: {team}, {a}-{b}",
    ),
    "ev_forfeited": (
        "{lost}: dos plazos seguidos sin jugar, pierde por abandono; ganador: {team}, {a}-{b}",
        "{lost}: two deadlines missed in a row, forfeit; winner: {team}, {a}-{b}",
        "{lost}: dois prazos seguidos sem jogar, desistência; vencedor: {team}, {a}-{b}",
    ),
    "ev_hidden": ("…", "…", "…"),
    "chat_line": ("{name}: {text}", "{name}: {text}", "{name}: {text}"),
    # cuarenta new
    "new_table": ("Mesa {table}", "Table {table}", "Mesa {table}"),
    "new_join": ("jugar:   {link}", "play:    {link}", "jogar:   {link}"),
    "new_watch": ("mirar:   {link}", "watch:   {link}", "assistir: {link}"),
    "new_host": (
        "anfitrión (secreto): {link}",
        "host (secret): {link}",
        "anfitrião (segredo): {link}",
    ),
}


def detect_language(env: Mapping[str, str] | None = None) -> str:
    """The language of the locale: the first set of LC_ALL, LC_MESSAGES, LANG."""
    env = os.environ if env is None else env
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "").lower()
        if value:
            return next((lang for lang in ("es", "pt") if value.startswith(lang)), "en")
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
