// @ts-check
// The table page's model, typed: its declared fields (state.js makes and changes it; nothing
// else writes it). Types only (JSDoc, nothing runs).

/** @typedef {import("./game-events.js").GameEvent} GameEvent */
/** @typedef {import("./game-events.js").Played} Played */
/** @typedef {import("./game-events.js").HandCounted} HandCounted */
/** @typedef {import("./game-events.js").Claimed | import("./game-events.js").Awarded} ClaimEvent */
/** @typedef {import("./wire.js").Message} Message */
/** @typedef {import("./wire.js").LegalAction} LegalAction */

/**
 * A numbered event as kept in the log: a game event (typed in game-events.js, narrowed by a cast
 * where one is read field by field) or a table event (seat_taken, options_changed…: PROTOCOL.md).
 * @typedef {Message} AnyEvent
 */

/**
 * @typedef {object} Occupant
 * @property {boolean} empty
 * @property {string} name
 * @property {number | null} bot the bot's level, null for a person or a free chair
 * @property {boolean} standIn
 * @property {boolean} connected
 * @property {string | null} player the person's public id, for "+ friend" (null: a guest or a bot)
 */

/**
 * @typedef {object} Table
 * @property {string} id
 * @property {string} profile
 * @property {number} seats
 * @property {Record<string, string | number | boolean>} options
 * @property {number} turnTimer
 * @property {boolean} locked
 * @property {"lobby" | "playing" | "finished"} stage
 * @property {boolean} started
 * @property {number} gameNumber
 * @property {Occupant[]} occupants
 * @property {number} spectators
 * @property {number[]} rematchAsked
 * @property {boolean} casual not rated: a finished game changes nobody's rating
 * @property {boolean} hints a seated player may ask for a hint (a casual table whose host allows it)
 * @property {number} moveDeadline a turn-based table's seconds per move (0: live)
 * @property {"stand_in" | "forfeit"} onDeadline what a passed deadline does (docs/rules.md)
 * @property {number[]} missed deadlines each team missed in a row (the forfeit rule)
 * @property {number | null} forfeited the team that forfeited the last game (null: none)
 */

/**
 * The viewer's change of rating after a game at this table (`rated`; null numbers: casual).
 * @typedef {{table: string, game: number, casual: boolean, change: number | null, rating: number | null}} Rated
 */

/** A friend as `friends` tells it: online, and the id of the table they sit at. @typedef {{id: string, name: string, online: boolean, table: string | null}} FriendLine */

/**
 * @typedef {object} Game
 * @property {string} phase
 * @property {string[]} hand
 * @property {number[]} handSizes
 * @property {string[]} table
 * @property {[number, number]} scores
 * @property {[number, number]} piles
 * @property {number} dealer
 * @property {number | null} turn
 * @property {number[]} toAct
 * @property {number} handNumber
 * @property {number} packet
 * @property {number | "draw" | null} winner
 * @property {[number, string][]} announced
 * @property {import("./wire.js").HistoryEntry[]} history the hand's plays (caídas: R10's choices)
 * @property {[number, string, boolean][]} claims
 * @property {string | null} caidaTarget R9: the card the previous player just trailed
 * @property {string[]} missed R8: the cards the last capture missed
 * @property {number | null} deadline
 */

/** @typedef {{kind: string, seat: number | null, at: number}} Deadline */
/** @typedef {HandCounted & {claims: ClaimEvent[]}} Summary */
/** The hand card chosen and the table cards picked for it. @typedef {{card: string | null, take: string[]}} Selection */
/** @typedef {"connecting" | "open" | "lost" | "ended" | "gone"} Status */

/**
 * @typedef {object} Model
 * @property {Status} status
 * @property {number} welcomes connections the server accepted (the first, then each reconnect)
 * @property {number} snapshots snapshots received: a resumed connection is proven by a fresh one
 * @property {"player" | "spectator" | null} role
 * @property {number | null} you
 * @property {boolean} isHost
 * @property {boolean} canSit came through the join link (or the host key): may take a free chair
 * @property {string} name
 * @property {Table | null} table
 * @property {Game | null} game
 * @property {LegalAction[]} legal
 * @property {Deadline[]} deadlines
 * @property {number} lastEvent the highest event number known (snapshot or event): sent on resume
 * @property {number} seenEvent the last event applied to the log and the derived state
 * @property {Map<number, AnyEvent>} events the table's public log (fetched) and every live event
 * @property {number} historyFetched the connection (welcomes) whose public log was fetched
 * @property {Summary | null} summary
 * @property {ClaimEvent[]} pendingClaims the hand's claims and awards, for its summary
 * @property {import("./game-events.js").GameOver | null} gameOver
 * @property {Played | null} lastPlay highlighted on the felt until the next play
 * @property {number | null} claimPassed R10: the hand whose claim window this viewer passed
 * @property {boolean} tallyMode scores as tantos and perros
 * @property {boolean} screenMode the TV screen
 * @property {boolean} summaryOpen the hand's summary shows (from its count until closed)
 * @property {boolean} hostOpen the host unfolded her panel during the game
 * @property {boolean} sheetOpen the player unfolded the score sheet: the next event leaves it open
 * @property {Selection} selection
 * @property {string} legalKey the legal actions the selection was made for
 * @property {boolean} focusPending a turn started: the next draw focuses its first choice
 * @property {boolean} resuming the hello carried a seat token
 * @property {boolean} ownMove this page sent the seat's move: a play it did not send was a stand-in's
 * @property {boolean} wantsSeat the visitor asked to sit, so the next welcome joins
 * @property {number | null} wantedSeat the free chair clicked, or null for the first free one
 * @property {boolean} joinRefused this key cannot seat anyone (a watch link): offer no seat
 * @property {boolean} confirmPlays the person asked to confirm each play before it is sent
 * @property {LegalAction | null} held the play chosen and shown, waiting for its confirmation
 * @property {ChatLine[]} chatBefore the chat this viewer may read, as the last snapshot kept it
 * @property {Rated | null} rated the viewer's rating change for the game just finished
 * @property {FriendLine[]} friends the viewer's friends (whom to invite), when the viewer is a person
 * @property {string[]} invitedNow the friends invited from this page (the button says so)
 */

/** A line of the table's chat (PROTOCOL.md `chat`). @typedef {{channel: string, seat?: number | null, name: string, text: string}} ChatLine */

/** The model once a snapshot told the table: what the table's views draw. @typedef {Model & {table: Table}} TableModel */

export {};
