// @ts-check
// The engine's events as the wire carries them, typed: what an `event` message's `event` holds
// when it is not a table event (protocol/game_events.py, listed with an example each in
// PROTOCOL.md). Cards are codes ("7H"), ranks letters; each is redacted for its viewer (a
// `packet_dealt` holds only the viewer's own hand, an `announced` ronda no rank until the count).
// Types only (JSDoc, nothing runs): the modules that read events name these, and
// tests/web/test_units.py holds every one to its protocol model, field for field.

/**
 * R3: cards drawn one per seat from `start` until the dealer is found.
 * @typedef {object} DealerDrawn
 * @property {"dealer_drawn"} type
 * @property {number} start
 * @property {string[]} cards
 * @property {number} dealer
 */

/**
 * @typedef {object} HandStarted
 * @property {"hand_started"} type
 * @property {number} hand
 * @property {number} dealer
 */

/**
 * Every seat's new cards; a viewer is sent its own hand only (the others are null).
 * @typedef {object} PacketDealt
 * @property {"packet_dealt"} type
 * @property {number} hand
 * @property {number} packet
 * @property {number} dealer
 * @property {(string[] | null)[]} hands
 */

/**
 * A ronda (its `rank` null until the hand is counted, R6), a cuarenta (its `cards`) or a pass.
 * @typedef {object} Announced
 * @property {"announced"} type
 * @property {number} seat
 * @property {"ronda" | "cuarenta" | "pass"} call
 * @property {string | null} rank
 * @property {number} points
 * @property {string[]} cards
 */

/**
 * A card played: what it took (empty: a trail), caída and limpia (R9), points scored, and the
 * cards it missed (R8).
 * @typedef {object} Played
 * @property {"played"} type
 * @property {number} seat
 * @property {string} card
 * @property {string[]} take
 * @property {boolean} caida
 * @property {boolean} limpia
 * @property {number} points
 * @property {string[]} missed
 */

/**
 * R8: the other team took the cards a capture missed.
 * @typedef {object} MissedTaken
 * @property {"missed_taken"} type
 * @property {number} seat
 * @property {string[]} cards
 */

/**
 * R10: the claim window of hand `hand` is open.
 * @typedef {object} ClaimsOpened
 * @property {"claims_opened"} type
 * @property {number} hand
 */

/**
 * @typedef {object} Claimed
 * @property {"claimed"} type
 * @property {number} seat
 * @property {string} rank
 * @property {boolean} valid
 * @property {number} points
 */

/**
 * @typedef {object} ClaimsClosed
 * @property {"claims_closed"} type
 */

/**
 * R10: points a team was awarded for a rank (a valid claim, or `special_claims=auto`).
 * @typedef {object} Awarded
 * @property {"awarded"} type
 * @property {number} team
 * @property {string} rank
 * @property {number} points
 */

/**
 * R11: each team's pile and points at the count; `rondas` the hand's rondas as `[packet, seat,
 * rank]`, ranks revealed.
 * @typedef {object} HandCounted
 * @property {"hand_counted"} type
 * @property {number} hand
 * @property {number} dealer
 * @property {[number, number]} piles
 * @property {[number, number]} points
 * @property {[number, number, string][]} rondas
 */

/**
 * R5: a misdeal by `dealer`, its penalty and the other team's points.
 * @typedef {object} MisdealRuled
 * @property {"misdeal_ruled"} type
 * @property {number} dealer
 * @property {string} penalty
 * @property {number} points
 * @property {string} reason
 */

/**
 * @typedef {object} GameOver
 * @property {"game_over"} type
 * @property {number | "draw"} winner
 * @property {[number, number]} scores
 * @property {string} reason
 */

/**
 * @typedef {DealerDrawn | HandStarted | PacketDealt | Announced | Played | MissedTaken
 *   | ClaimsOpened | Claimed | ClaimsClosed | Awarded | HandCounted | MisdealRuled
 *   | GameOver} GameEvent
 */

export {};
