// @ts-check
// Events told in words for the log and the brief banners: "Norte hace caída: +2".
// Returns null for events nobody needs to read (internal steps).
import { t } from "../i18n/index.js";
import { cardName, cardShort } from "./cards.js";
import { compassOf, teamOf } from "./seats.js";

/** @typedef {import("./wire.js").Message} Message */
/** A line of the log: its kind (a style), its words, and whether it deserves a banner. */
/** @typedef {{text: string, kind: string, banner: boolean}} Told */
/**
 * A line's words: `key`'s, or its second-person `key.you` when `seat` is the reader's own
 * (`names.you`: the pocket's "You trail 4♠" / "Botas 4♠", never "You trails").
 * @typedef {(kind: string, key: string, params?: Record<string, string | number>, banner?: boolean, seat?: number) => Told} Line
 */

/**
 * @param {Message} event an engine or table event (PROTOCOL.md)
 * @param {import("./seats.js").Names} names
 * @returns {Told | null}
 */
export function describeEvent(event, names) {
  const who = (/** @type {number} */ seat) => names.nameOf(seat);
  /** @type {Line} */
  const line = (kind, key, params = {}, banner = false, seat = -1) =>
    ({ kind, text: t(names.you !== undefined && seat === names.you ? `${key}.you` : key, params), banner });
  switch (event.type) {
    case "dealer_drawn":
      return line("deal", "log.dealerDrawn", { name: who(event.dealer) }, false, event.dealer);
    case "hand_started":
      return line("deal", "log.handStarted", { hand: event.hand + 1, name: who(event.dealer) }, false, event.dealer);
    case "packet_dealt":
      return line("deal", "log.packetDealt", { packet: event.packet + 1 });
    case "announced":
      return announced(event, who, line);
    case "played":
      return played(event, who, line);
    case "missed_taken":
      return line("score", "log.missedTaken", { name: who(event.seat), count: event.cards.length }, true, event.seat);
    case "claims_opened":
      return line("claim", "log.claimsOpened", {}, true);
    case "claimed":
      return line("claim", event.valid ? "log.claimValid" : "log.claimWrong",
        { name: who(event.seat), rank: t(`rank.${event.rank}`), points: event.points }, true, event.seat);
    case "claims_closed":
      return line("claim", "log.claimsClosed");
    case "awarded":
      return line("score", "log.awarded",
        { team: names.teamOf(event.team), rank: t(`rank.${event.rank}`), points: event.points }, true);
    case "hand_counted":
      return line("score", "log.handCounted", {
        a: names.teamOf(0), b: names.teamOf(1), pa: event.piles[0], pb: event.piles[1],
        xa: event.points[0], xb: event.points[1],
      }, true);
    case "misdeal_ruled":
      return line("score", "log.misdeal", { name: who(event.dealer), points: event.points,
        penalty: t(`option.misdeal_penalty.${event.penalty}`) }, true, event.dealer);
    case "game_over":
      return event.winner === "draw"
        ? line("end", "log.draw", {}, true)
        : line("end", names.seats === 2 ? "end.winnerOne" : "end.winners", { team: names.teamOf(event.winner),
          a: event.scores[event.winner], b: event.scores[1 - event.winner] }, true,
        names.seats === 2 ? event.winner : -1);
    case "seat_taken": // a bot by its chair, as the felt names it (its name repeats its level)
      return event.bot_level
        ? line("table", "log.botSeated", { level: event.bot_level,
          seat: t(`seat.${compassOf(event.seat, names.seats ?? 4)}`) })
        : line("table", "log.seatTaken", { name: event.name });
    case "seat_freed":
      return line("table", "log.seatFreed", { seat: who(event.seat) });
    case "seats_swapped":
      return line("table", "log.seatsSwapped", { a: who(event.seat), b: who(event.other) });
    case "options_changed":
      return line("table", "log.optionsChanged");
    case "lock_changed":
      return line("table", event.locked ? "log.locked" : "log.unlocked");
    case "hints_changed":
      return line("table", event.hints ? "log.hintsOn" : "log.hintsOff");
    case "game_started":
      return line("table", "log.gameStarted", {}, true);
    case "stand_in":
      return line("table", event.active ? "log.standIn" : "log.standInEnds", { name: who(event.seat) });
    case "forfeited":
      return line("end", names.seats === 2 ? "end.forfeitOne" : "end.forfeit", { team: names.teamOf(event.team) }, true);
    case "rematch_asked":
      return line("table", "log.rematchAsked", { name: who(event.seat) });
    default:
      return null;
  }
}

/** @param {Message} event @param {(seat: number) => string} who @param {Line} line */
function announced(event, who, line) {
  const params = { name: who(event.seat), points: event.points };
  if (event.call === "cuarenta") return line("score", "log.cuarenta", params, true, event.seat);
  if (event.call === "pass") return line("play", "log.pass", params, false, event.seat);
  return line("score", event.points ? "log.ronda" : "log.rondaNoPoints", params, true, event.seat);
}

/** @param {Message} event @param {(seat: number) => string} who @param {Line} line */
function played(event, who, line) {
  const params = { name: who(event.seat), card: cardName(event.card), points: event.points,
    count: event.take.length, cards: event.take.map(cardShort).join(" ") };
  if (!event.take.length) return line("play", "log.trail", params, false, event.seat);
  let key = "log.capture";
  if (event.caida && event.limpia) key = "log.caidaLimpia";
  else if (event.caida) key = "log.caida";
  else if (event.limpia) key = "log.limpia";
  const out = line(event.points ? "score" : "play", key, params, Boolean(event.caida || event.limpia), event.seat);
  if (event.missed?.length) out.text += ` ${t("log.missed", { count: event.missed.length })}`;
  return out;
}

/**
 * R6/R8 decisions a stand-in makes only when the table leaves them to people (manual options);
 * a card played and a claim are always someone's decision.
 */
/** @param {Message} event @param {Record<string, unknown>} options */
function decided(event, options) {
  if (event.type === "played" || event.type === "claimed") return true;
  if (event.type === "announced") return options?.announcements === "manual";
  if (event.type === "missed_taken") return options?.sequence === "manual";
  return false;
}

/**
 * The events the log leaves out, by number: lines that would tell a player nothing.
 *
 * A stand-in (`stand_in`) is told only once it made a decision for the seat. A player who
 * reloads the page, or whose phone drops off the wifi for a moment, is back before their turn:
 * "A bot plays for Lucía / Lucía is back" would be a stand-in that never played, repeated at
 * every reload, and the seat's "Away" badge already shows the absence while it lasts. Once the
 * bot plays a card or claims for the seat, the absence changed the game: both lines are shown,
 * at the places they happened. The events carry no clock, and the log must read the same for
 * everyone and after a reload (it is redrawn from the events), so what counts is a decision,
 * not the seconds away; a turn timer's timeout is a stand-in's decision too.
 *
 * The R10 claim window (`claims_opened`, `claims_closed`) is told only when a claim was made in
 * it (anyone's: the claims' own lines need it) or the viewer's team could claim, having made a
 * caída this hand (the claim prompt offers those ranks). A window nobody could use is a
 * formality of every hand's end: the felt shows its countdown while it is open, and a line
 * "nobody claims" after every hand would crowd out the plays; a spectator sees it only around a
 * claim.
 * @template {string | number} K the events' keys: their numbers (the replay: "step:index")
 * @param {[K, Message][]} events one game's events in order (state.js gameEvents)
 * @param {{you: number | null, seats: number, options?: Record<string, unknown>}} viewer
 * @returns {Set<K>}
 */
export function quietEvents(events, { you, seats, options = {} }) {
  /** @type {Set<K>} */
  const quiet = new Set();
  const team = you === null || you === undefined ? null : teamOf(you, seats);
  /** @type {Map<number, {n: K | null, acted: boolean}>} seat -> its stand_in's key (null: never told) */
  const away = new Map();
  let caida = false; // the viewer's team made a caída this hand
  /** @type {{n: K, claimed: boolean} | null} the open claim window */
  let claimWindow = null;
  for (const [n, e] of events) {
    if (e.type === "stand_in" && e.active) {
      away.set(e.seat, { n, acted: false });
    } else if (e.type === "stand_in") {
      const stint = away.get(e.seat) || { n: null, acted: false };
      away.delete(e.seat);
      if (!stint.acted) {
        quiet.add(n);
        if (stint.n !== null) quiet.add(stint.n);
      }
    } else if (typeof e.seat === "number" && away.has(e.seat) && decided(e, options)) {
      const stint = away.get(e.seat);
      if (stint) stint.acted = true;
    }
    if (e.type === "hand_started") caida = false;
    if (e.type === "played" && e.caida && team !== null && teamOf(e.seat, seats) === team) caida = true;
    if (e.type === "claims_opened") claimWindow = { n, claimed: false };
    if (e.type === "claimed" && claimWindow) claimWindow.claimed = true;
    if (e.type === "claims_closed" && claimWindow) {
      if (!claimWindow.claimed && !caida) quiet.add(claimWindow.n).add(n);
      claimWindow = null;
    }
  }
  for (const stint of away.values()) if (!stint.acted && stint.n !== null) quiet.add(stint.n);
  if (claimWindow && !claimWindow.claimed && !caida) quiet.add(claimWindow.n);
  return quiet;
}
