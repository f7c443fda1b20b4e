// The client's picture of the table, rebuilt from protocol messages (PROTOCOL.md): the latest
// `snapshot` is the truth for everything it carries (the caída target of R9 and the missed cards
// of R8 included); numbered `event`s (typed in game-events.js) feed the log, the hand summary, the
// last play shown on the felt and the game's end.

/** @typedef {import("./game-events.js").GameEvent} GameEvent */

export function emptyModel() {
  return {
    status: "connecting",
    welcomes: 0, // connections the server has accepted (the first one, then each reconnect)
    snapshots: 0, // snapshots received: a resumed connection is proven by a fresh one
    role: null,
    you: null,
    isHost: false,
    canSit: false, // came through the join link (or the host key): may take a free chair
    name: "",
    table: null,
    game: null,
    legal: [],
    deadlines: [],
    lastEvent: 0, // the highest event number known (snapshot or event): sent on resume
    seenEvent: 0, // the last event applied to the log and the derived state
    log: [],
    events: new Map(), // n -> event: the table's public log (fetched) and every live event
    summary: null,
    gameOver: null,
    tallyMode: false,
    screenMode: false,
  };
}

function occupantOf(info) {
  return {
    empty: info.occupant === "empty",
    name: info.name || "",
    bot: info.occupant === "bot" ? (info.bot_level || 1) : null,
    standIn: Boolean(info.stand_in),
    connected: info.occupant === "bot" || Boolean(info.connected),
  };
}

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
  };
}

/** Turn server deadlines (with remaining_ms, immune to clock skew) into local epoch ms. */
export function localDeadlines(deadlines, now = Date.now()) {
  return (deadlines || []).map((d) => ({ kind: d.kind, seat: d.seat, at: now + d.remaining_ms }));
}

function deadlineFor(model, view) {
  const seatDeadline = model.deadlines.find((d) => d.kind !== "grace" &&
    (d.seat === null || d.seat === view.turn || view.to_act.includes(d.seat)));
  return seatDeadline ? seatDeadline.at : null;
}

function gameOf(model, view) {
  return {
    phase: view.phase,
    hand: view.hand || [],
    handSizes: view.hand_sizes,
    table: view.table,
    scores: view.scores,
    piles: view.piles,
    dealer: view.dealer,
    turn: view.turn,
    toAct: view.to_act,
    handNumber: view.hand_number,
    packet: view.packet,
    winner: view.winner,
    announced: view.announced,
    history: view.history, // the hand's plays, public (caídas: the R10 claim choices)
    claims: view.claims,
    // R9: the card the previous player just trailed; R8: the cards the last capture missed.
    caidaTarget: view.caida_target,
    missed: view.missed,
    deadline: deadlineFor(model, view),
  };
}

/** The current game's events in order ([n, event]), from its start (the last game_started). */
export function gameEvents(model) {
  const all = [...model.events.entries()].sort((a, b) => a[0] - b[0]);
  let start = 0;
  all.forEach(([, e], i) => { if (e.type === "game_started") start = i; });
  return all.slice(start);
}

/**
 * The last counted hand's summary (a page arriving mid-game rebuilds it from the log).
 * @param {[number, GameEvent][]} events
 */
export function lastSummary(events) {
  const claims = [];
  let summary = null;
  for (const [, e] of events) {
    if (e.type === "claimed" || e.type === "awarded") claims.push(e);
    if (e.type === "hand_counted") { summary = { ...e, claims: [...claims] }; claims.length = 0; }
  }
  return summary;
}

/** Apply a snapshot: replace everything it describes. */
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
}

export function applyPresence(model, presence) {
  if (!model.table) return;
  model.table.occupants = presence.seats.map(occupantOf);
  model.table.spectators = presence.spectators;
}

export function applyDeadlines(model, message) {
  model.deadlines = localDeadlines(message.deadlines);
  if (model.game) model.game.deadline = deadlineFor(model, { turn: model.game.turn, to_act: model.game.toAct });
}

/**
 * Apply numbered event `n`: returns "gap" when events were lost (the caller resynchronises),
 * "old" for a repeat, else "ok".
 * @param {object} model
 * @param {number} n
 * @param {GameEvent | {type: string}} event a game event, or a table event (PROTOCOL.md)
 */
export function applyEvent(model, n, event) {
  if (n <= model.seenEvent) return "old";
  if (model.seenEvent !== 0 && n > Math.max(model.seenEvent, model.lastEvent) + 1) return "gap";
  model.seenEvent = n;
  model.lastEvent = Math.max(model.lastEvent, n);
  applyDerived(model, event);
  return "ok";
}

function applyDerived(model, event) {
  switch (event.type) {
    case "played":
      model.lastPlay = event; // highlighted on the felt until the next play
      break;
    case "hand_counted":
      model.summary = { ...event, claims: model.pendingClaims || [] };
      model.pendingClaims = [];
      break;
    case "claimed":
    case "awarded":
      model.pendingClaims = [...(model.pendingClaims || []), event];
      break;
    case "game_over":
      model.gameOver = event;
      break;
    case "game_started":
      model.lastPlay = null;
      model.gameOver = null;
      model.summary = null;
      model.log = [];
      break;
    default:
      break;
  }
}
