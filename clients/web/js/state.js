// @ts-check
// The table page's one model, rebuilt from protocol messages (PROTOCOL.md): the latest `snapshot`
// is the truth for everything it carries (the caída target of R9 and the missed cards of R8
// included); numbered `event`s (typed in game-events.js) feed the log, the hand summary, the last
// play shown on the felt and the game's end. Only the named functions here and in
// table-choices.js (the viewer's own choices) change it; views only read it. Its fields are
// declared in model-types.js.

/** @typedef {import("./model-types.js").Model} Model */
/** @typedef {import("./model-types.js").AnyEvent} AnyEvent */
/** @typedef {import("./model-types.js").Occupant} Occupant */
/** @typedef {import("./model-types.js").Table} Table */
/** @typedef {import("./model-types.js").Game} Game */
/** @typedef {import("./model-types.js").Deadline} Deadline */
/** @typedef {import("./model-types.js").Summary} Summary */
/** @typedef {import("./model-types.js").ClaimEvent} ClaimEvent */
/** @typedef {import("./model-types.js").Status} Status */
/** @typedef {import("./game-events.js").Played} Played */
/** @typedef {import("./game-events.js").HandCounted} HandCounted */
/** @typedef {import("./wire.js").SeatInfo} SeatInfo */
/** @typedef {import("./wire.js").TableInfo} TableInfo */
/** @typedef {import("./wire.js").View} View */
/** @typedef {import("./wire.js").Snapshot} Snapshot */
/** @typedef {import("./wire.js").WireDeadline} WireDeadline */

/** @returns {Model} */
export function emptyModel() {
  return {
    status: "connecting", welcomes: 0, snapshots: 0,
    role: null, you: null, isHost: false, canSit: false, name: "",
    table: null, game: null, legal: [], deadlines: [],
    lastEvent: 0, seenEvent: 0, events: new Map(), historyFetched: -1,
    summary: null, pendingClaims: [], gameOver: null, lastPlay: null, claimPassed: null,
    tallyMode: false, screenMode: false, summaryOpen: false, hostOpen: false, sheetOpen: false,
    selection: { card: null, take: [] }, legalKey: "", focusPending: false,
    resuming: false, ownMove: false, wantsSeat: false, wantedSeat: null, joinRefused: false,
    confirmPlays: false, held: null, chatBefore: [],
    rated: null, friends: [], invitedNow: [],
  };
}

/** @param {SeatInfo} info @returns {Occupant} */
function occupantOf(info) {
  return {
    empty: info.occupant === "empty",
    name: info.name || "",
    bot: info.occupant === "bot" ? (info.bot_level || 1) : null,
    standIn: Boolean(info.stand_in),
    connected: info.occupant === "bot" || Boolean(info.connected),
    player: info.player ?? null,
  };
}

/** @param {TableInfo} info @returns {Table} */
function tableOf(info) {
  return {
    id: info.table,
    profile: info.profile,
    seats: info.seats.length,
    options: info.options,
    turnTimer: info.turn_timer,
    locked: info.locked,
    stage: info.stage,
    started: info.stage !== "lobby",
    gameNumber: info.game,
    occupants: info.seats.map(occupantOf),
    spectators: info.spectators,
    rematchAsked: info.rematch_asked,
    casual: Boolean(info.casual),
    hints: Boolean(info.hints),
    moveDeadline: info.move_deadline ?? 0,
    onDeadline: info.on_deadline ?? "stand_in",
    missed: info.missed ?? [0, 0],
    forfeited: info.ended?.team ?? null,
  };
}

/**
 * Turn server deadlines (with remaining_ms, immune to clock skew) into local epoch ms.
 * @param {WireDeadline[] | null | undefined} deadlines
 * @returns {Deadline[]}
 */
export function localDeadlines(deadlines, now = Date.now()) {
  return (deadlines || []).map((d) => ({ kind: d.kind, seat: d.seat, at: now + d.remaining_ms }));
}

/** @param {Model} model @param {{turn: number | null, to_act: number[]}} view */
function deadlineFor(model, view) {
  const seatDeadline = model.deadlines.find((d) => d.kind !== "grace" &&
    (d.seat === null || d.seat === view.turn || view.to_act.includes(d.seat)));
  return seatDeadline ? seatDeadline.at : null;
}

/** @param {Model} model @param {View} view @returns {Game} */
function gameOf(model, view) {
  return {
    phase: view.phase, hand: view.hand || [], handSizes: view.hand_sizes, table: view.table,
    scores: view.scores, piles: view.piles, dealer: view.dealer, turn: view.turn,
    toAct: view.to_act, handNumber: view.hand_number, packet: view.packet, winner: view.winner,
    announced: view.announced, history: view.history, claims: view.claims,
    caidaTarget: view.caida_target, missed: view.missed, deadline: deadlineFor(model, view),
  };
}

/**
 * The current game's events in order ([n, event]), from its start (the last game_started).
 * @param {Model} model
 * @returns {[number, AnyEvent][]}
 */
export function gameEvents(model) {
  const all = [...model.events.entries()].sort((a, b) => a[0] - b[0]);
  let start = 0;
  all.forEach(([, e], i) => { if (e.type === "game_started") start = i; });
  return all.slice(start);
}

/**
 * The last counted hand's summary (a page arriving mid-game rebuilds it from the log).
 * @param {[number, AnyEvent][]} events
 * @returns {Summary | null}
 */
export function lastSummary(events) {
  /** @type {ClaimEvent[]} */
  const claims = [];
  /** @type {Summary | null} */
  let summary = null;
  for (const [, e] of events) {
    if (e.type === "claimed" || e.type === "awarded") claims.push(/** @type {ClaimEvent} */ (e));
    if (e.type === "hand_counted") {
      summary = { .../** @type {HandCounted} */ (e), claims: [...claims] };
      claims.length = 0;
    }
  }
  return summary;
}

/** Apply a snapshot: replace everything it describes. @param {Model} model @param {Snapshot} snap */
export function applySnapshot(model, snap) {
  model.snapshots += 1;
  model.role = snap.you.role;
  model.you = snap.you.role === "player" ? snap.you.seat : null;
  model.isHost = snap.you.host;
  model.canSit = Boolean(snap.you.can_sit);
  model.name = snap.you.name;
  model.table = tableOf(snap.info);
  model.legal = snap.legal;
  model.deadlines = localDeadlines(snap.deadlines);
  model.game = snap.view ? gameOf(model, snap.view) : null;
  if (model.lastEvent < snap.last_event) model.lastEvent = snap.last_event;
  if (snap.chat) model.chatBefore = snap.chat;
}

/** Whether the socket is down with a table on screen: nothing can be chosen or sent. @param {Model} model */
export function isOffline(model) {
  return model.status === "lost" || model.status === "connecting";
}

/** @param {Model} model @param {{seats: SeatInfo[], spectators: number}} presence */
export function applyPresence(model, presence) {
  if (!model.table) return;
  model.table.occupants = presence.seats.map(occupantOf);
  model.table.spectators = presence.spectators;
}

/** @param {Model} model @param {{deadlines: WireDeadline[]}} message */
export function applyDeadlines(model, message) {
  model.deadlines = localDeadlines(message.deadlines);
  if (model.game) model.game.deadline = deadlineFor(model, { turn: model.game.turn, to_act: model.game.toAct });
}

/**
 * Apply numbered event `n`: returns "gap" when events were lost (the caller resynchronises),
 * "old" for a repeat, else "ok" (the event is then kept in the log).
 * @param {Model} model
 * @param {number} n
 * @param {AnyEvent} event a game event, or a table event (PROTOCOL.md)
 * @returns {"gap" | "old" | "ok"}
 */
export function applyEvent(model, n, event) {
  if (n <= model.seenEvent) return "old";
  if (model.seenEvent !== 0 && n > Math.max(model.seenEvent, model.lastEvent) + 1) return "gap";
  model.seenEvent = n;
  model.lastEvent = Math.max(model.lastEvent, n);
  applyDerived(model, event);
  return "ok";
}

/** @param {Model} model @param {AnyEvent} event */
function applyDerived(model, event) {
  switch (event.type) {
    case "played":
      model.lastPlay = /** @type {Played} */ (event);
      break;
    case "hand_counted":
      model.summary = { .../** @type {HandCounted} */ (event), claims: model.pendingClaims };
      model.pendingClaims = [];
      break;
    case "claimed":
    case "awarded":
      model.pendingClaims = [...model.pendingClaims, /** @type {ClaimEvent} */ (event)];
      break;
    case "game_over":
      model.gameOver = /** @type {import("./game-events.js").GameOver} */ (event);
      break;
    case "game_started":
      model.rated = null;
      model.lastPlay = null;
      model.gameOver = null;
      model.summary = null;
      break;
    default:
      break;
  }
}

/** Keep event `n` in the log (drawn in the language and with the names of the moment). */
/** @param {Model} model @param {number} n @param {AnyEvent} event */
export function keepEvent(model, n, event) {
  model.events.set(n, event);
}

/**
 * The table's public log fetched for this connection: the events we lack, and the summary and
 * last play they tell of when the page has none yet (a page arriving mid-game, a reload).
 * @param {Model} model
 * @param {{n: number, event: AnyEvent}[]} log
 */
export function mergeLog(model, log) {
  for (const { n, event } of log) if (!model.events.has(n)) model.events.set(n, event);
  const events = gameEvents(model);
  if (!model.summary) model.summary = lastSummary(events);
  if (!model.lastPlay) {
    const plays = events.map(([, e]) => e).filter((e) => e.type === "played");
    model.lastPlay = /** @type {Played | undefined} */ (plays.pop()) ?? null;
  }
}

/** Whether this connection's public log is still to fetch; marks it asked for. @param {Model} model */
export function startLogFetch(model) {
  if (model.historyFetched === model.welcomes) return false;
  model.historyFetched = model.welcomes;
  return true;
}

/** The fetch failed: the next snapshot asks again. @param {Model} model */
export function logFetchFailed(model) {
  model.historyFetched = -1;
}

/**
 * The table moved past the snapshot: its legal actions would be refused as stale, so offer
 * nothing until the snapshot that follows arrives. Returns whether anything was offered.
 * @param {Model} model
 */
export function dropLegal(model) {
  if (!model.legal.length) return false;
  model.legal = [];
  return true;
}

/** @param {Model} model @param {Status} status */
export function setStatus(model, status) {
  model.status = status;
}

/** The server accepted a connection. @param {Model} model */
export function welcomed(model) {
  model.welcomes += 1;
}

/** The viewer's rating change after a game of this table (`rated`). @param {Model} model @param {import("./model-types.js").Rated} rated */
export function applyRated(model, rated) {
  model.rated = { table: rated.table, game: rated.game, casual: rated.casual, change: rated.change ?? null,
    rating: rated.rating ?? null };
}

/** The viewer's friends (`friends`), whom the table page offers to invite. @param {Model} model @param {{friends?: import("./model-types.js").FriendLine[]}} answer */
export function applyFriends(model, answer) {
  model.friends = (answer.friends || []).map((f) => ({ id: f.id, name: f.name, online: Boolean(f.online), table: f.table ?? null }));
}

/** A friend was invited from this page. @param {Model} model @param {string} id */
export function markInvited(model, id) {
  if (!model.invitedNow.includes(id)) model.invitedNow = [...model.invitedNow, id];
}
