// @ts-check
// The server's messages as the table page reads them (PROTOCOL.md), typed: the shapes state.js
// turns into the model. Types only (JSDoc, nothing runs); the game events are in game-events.js.

/**
 * A chair as the server describes it.
 * @typedef {object} SeatInfo
 * @property {"empty" | "human" | "bot"} occupant
 * @property {string} [name]
 * @property {number | null} [bot_level]
 * @property {boolean} [stand_in]
 * @property {boolean} [connected]
 * @property {string | null} [player] the person's public id (protocol/players.py)
 */

/**
 * @typedef {object} TableInfo
 * @property {string} table
 * @property {string} profile
 * @property {SeatInfo[]} seats
 * @property {Record<string, string | number | boolean>} options
 * @property {number} turn_timer
 * @property {boolean} locked
 * @property {"lobby" | "playing" | "finished"} stage
 * @property {number} game
 * @property {number} spectators
 * @property {number[]} rematch_asked
 * @property {boolean} [casual] not rated
 * @property {boolean} [hints] a seated player may ask for a hint
 * @property {number} [move_deadline] a turn-based table's seconds per move (0: live)
 * @property {"stand_in" | "forfeit"} [on_deadline] what a passed deadline does
 * @property {number[]} [missed] deadlines each team missed in a row (the forfeit rule)
 * @property {{by: "forfeit", team: number} | null} [ended] the last game ended by a forfeit
 */

/** @typedef {{kind: string, seat: number | null, remaining_ms: number}} WireDeadline */

/**
 * One entry of the hand's public history (R10: the caídas a claim may name).
 * @typedef {{seat: number, card?: string, caida?: boolean}} HistoryEntry
 */

/**
 * What one viewer may see of the game (engine/views.py), cards as codes.
 * @typedef {object} View
 * @property {string} phase
 * @property {string[] | null} [hand]
 * @property {number[]} hand_sizes
 * @property {string[]} table
 * @property {[number, number]} scores
 * @property {[number, number]} piles
 * @property {number} dealer
 * @property {number | null} turn
 * @property {number[]} to_act
 * @property {number} hand_number
 * @property {number} packet
 * @property {number | "draw" | null} winner
 * @property {[number, string][]} announced
 * @property {HistoryEntry[]} history
 * @property {[number, string, boolean][]} claims
 * @property {string | null} caida_target
 * @property {string[]} missed
 */

/**
 * A legal action as the snapshot offers it and the page sends it back.
 * @typedef {object} LegalAction
 * @property {string} type
 * @property {string} [card]
 * @property {string[]} [take]
 * @property {string} [call]
 * @property {string} [rank]
 */

/**
 * @typedef {object} Snapshot
 * @property {"snapshot"} type
 * @property {{role: "player" | "spectator", seat: number | null, host: boolean, can_sit?: boolean,
 *   name: string}} you
 * @property {TableInfo} info
 * @property {LegalAction[]} legal
 * @property {WireDeadline[]} deadlines
 * @property {View | null} view
 * @property {number} last_event
 * @property {import("./model-types.js").ChatLine[]} [chat] the chat this viewer may read, oldest first
 */

/**
 * Any message, read by its `type` (the shapes above where they matter; a field the page reads
 * from another message is checked where it is read).
 * @typedef {{type: string, [field: string]: any}} Message
 */

/** A refused request: the server's stable code and its text. @typedef {Error & {code?: string}} Refusal */

export {};
