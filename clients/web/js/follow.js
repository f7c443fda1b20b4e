// @ts-check
// Follow a table from its numbered events (protocol 4): the viewer's next view from its last one
// and one event, exactly as protocol/follow.py does (the same steps in the same order; a test
// holds the two to the server's views). The events are the viewer's own redacted forms, so
// following them shows nothing a snapshot would not. An event that does not fit the view throws
// `FollowError`: the connection then asks for a whole snapshot (`sync`).

/** @typedef {Record<string, any>} WireView a GameView as the wire carries it (PROTOCOL.md) */
/** @typedef {Record<string, any>} WireEvent */

export class FollowError extends Error {}

/** R1, R14: four seats in pagat-4p, two in the two-player profiles. @param {string} profile */
const seatsOf = (profile) => (profile === "pagat-4p" ? 4 : 2);

/**
 * The view of a game just created at the table `info` describes, before its first event.
 * @param {Record<string, any>} info @param {number | null} viewer @returns {WireView}
 */
export function blankView(info, viewer) {
  const seats = seatsOf(info.profile);
  return {
    profile: info.profile, options: { ...info.options }, seats, phase: "waiting", viewer,
    hand_number: -1, packet: -1, dealer: 0, turn: null, to_act: [], scores: [0, 0],
    piles: [0, 0], table: [], hand: viewer == null ? null : [], hand_sizes: Array(seats).fill(0),
    undealt: 0, caida_target: null, missed: [], missed_takers: [], history: [], announced: [],
    rondas: [], cuarenta: null, claims_open: false, claims_ended: [false, false], claims: [],
    draw_start: null, draw_cards: [], winner: null,
  };
}

/**
 * The view after one numbered event (a table event or a game event), given the table's info as
 * the change carrying it tells it and the viewer's seat.
 * @param {WireView | null} view @param {WireEvent} event @param {Record<string, any> | null} info
 * @param {number | null} viewer @returns {WireView | null}
 */
export function followEvent(view, event, info, viewer) {
  if (event.type === "game_started") {
    if (!info) throw new FollowError("a game started before the table's info was known");
    return blankView(info, viewer);
  }
  if (event.type === "options_changed") return view && { ...view, options: event.options };
  if (event.type === "forfeited") { // a turn-based side's missed deadlines end the game (protocol/follow.py)
    return view && { ...view, phase: "finished", turn: null, to_act: [], claims_open: false, winner: event.winner };
  }
  const step = STEPS[event.type];
  if (!step) return view; // a table event, or one this version does not know
  if (!view) throw new FollowError(`a ${event.type} event before any game`);
  const changes = step(view, event);
  const next = { ...view, ...changes };
  return { ...next, ...settled(next) };
}

/** `to_act` and `claims_open`, as the engine derives them from the rest. @param {WireView} view */
function settled(view) {
  /** @type {Set<number>} */
  let toAct;
  if (view.phase === "claims") {
    toAct = new Set([...Array(view.seats).keys()].filter((seat) => !view.claims_ended[seat & 1]));
  } else if (view.phase === "play" || view.phase === "announce") {
    toAct = new Set(view.turn == null ? [] : [view.turn]);
  } else {
    return { to_act: [], claims_open: false };
  }
  for (const seat of view.missed_takers) toAct.add(seat); // R8: the other team
  return { to_act: [...toAct].sort((a, b) => a - b), claims_open: view.phase === "claims" };
}

/** @param {number[]} scores @param {number} team @param {number} points */
function add(scores, team, points) {
  const out = [...scores];
  out[team] += points;
  return out;
}

/** @param {string[]} cards @param {string[]} gone @param {string} what */
function without(cards, gone, what) {
  const out = [...cards];
  for (const card of gone) {
    const at = out.indexOf(card);
    if (at < 0) throw new FollowError(`${card} is not in the ${what} it leaves`);
    out.splice(at, 1);
  }
  return out;
}

/** @type {Record<string, (view: WireView, event: WireEvent) => WireView>} */
const STEPS = {
  dealer_drawn: (_, e) => ({ draw_start: e.start, draw_cards: [...e.cards], dealer: e.dealer }),
  hand_started: (v, e) => ({ // R4: a fresh pack and an empty table; scores carry over
    hand_number: e.hand, dealer: e.dealer, packet: -1, hand: v.viewer == null ? null : [],
    hand_sizes: Array(v.seats).fill(0), undealt: 0, table: [], piles: [0, 0], caida_target: null,
    missed: [], missed_takers: [], claims_ended: [false, false], claims: [], announced: [],
    rondas: [], cuarenta: null, history: [],
  }),
  packet_dealt: (v, e) => { // R4: 5 cards to every seat; the dealer's left acts first
    let hand = null;
    if (v.viewer != null) {
      const mine = e.hands[v.viewer];
      if (mine == null) throw new FollowError(`packet ${e.packet} came without our cards`);
      hand = [...mine];
    }
    return {
      hand_number: e.hand, packet: e.packet, dealer: e.dealer, hand,
      hand_sizes: Array(v.seats).fill(5), undealt: 40 - 5 * v.seats * (e.packet + 1),
      caida_target: null, announced: [], cuarenta: null,
      phase: v.options.announcements === "manual" ? "announce" : "play",
      turn: (e.dealer + 1) % v.seats,
    };
  },
  announced: (v, e) => {
    const announced = [...v.announced, [e.seat, e.call]];
    /** @type {WireView} */
    const out = { announced };
    if (e.call === "ronda") { // R6: who, never the rank
      out.rondas = [...v.rondas, [v.packet, e.seat]];
      out.scores = add(v.scores, e.seat & 1, e.points);
    } else if (e.call === "cuarenta") {
      out.cuarenta = [e.seat, [...e.cards]];
    }
    if (v.phase === "announce") { // R6 manual: every seat once, from the dealer's left
      const done = announced.length;
      if (done >= v.seats) Object.assign(out, { phase: "play", turn: (v.dealer + 1) % v.seats });
      else out.turn = (v.dealer + 1 + done) % v.seats;
    }
    return out;
  },
  played: (v, e) => { // R7-R9; the chance at missed cards ends with the play (R8)
    const team = e.seat & 1;
    /** @type {WireView} */
    const out = { missed: [], missed_takers: [] };
    if (v.viewer === e.seat) out.hand = without(v.hand ?? [], [e.card], "hand");
    const sizes = [...v.hand_sizes];
    if (sizes[e.seat] <= 0) throw new FollowError(`seat ${e.seat} played from an empty hand`);
    sizes[e.seat] -= 1;
    out.hand_sizes = sizes;
    let entry;
    if (!e.take.length) {
      out.table = [...v.table, e.card];
      out.caida_target = e.card;
      entry = { packet: v.packet, seat: e.seat, card: e.card, take: [], caida: false };
    } else {
      out.table = without(v.table, e.take, "table");
      out.piles = add(v.piles, team, 1 + e.take.length);
      out.caida_target = null;
      if (e.missed?.length) {
        out.missed = [...e.missed];
        out.missed_takers = [...Array(v.seats).keys()].filter((s) => s % 2 === 1 - team);
      }
      out.scores = add(v.scores, team, e.points);
      entry = { packet: v.packet, seat: e.seat, card: e.card, take: [...e.take], caida: e.caida };
    }
    out.history = [...v.history, entry];
    if (sizes.some((size) => size > 0)) out.turn = (e.seat + 1) % v.seats;
    return out;
  },
  missed_taken: (v, e) => { // R8: to the taker's pile, in the order the view lists them
    if ([...v.missed].sort().join() !== [...e.cards].sort().join()) {
      throw new FollowError("the missed cards taken are not the ones the view holds");
    }
    const taken = [...v.missed];
    return {
      table: without(v.table, taken, "table"), piles: add(v.piles, e.seat & 1, taken.length),
      missed: [], missed_takers: [],
      history: [...v.history, { packet: v.packet, seat: e.seat, card: null, take: taken, caida: false }],
    };
  },
  claims_opened: () => ({ phase: "claims", turn: null }),
  claimed: (v, e) => { // R10: a wrong claim ends the team's claiming
    /** @type {WireView} */
    const out = { claims: [...v.claims, [e.seat, e.rank, e.valid]], scores: add(v.scores, e.seat & 1, e.points) };
    if (!e.valid) out.claims_ended = v.claims_ended.map((/** @type {boolean} */ ended, /** @type {number} */ team) => ended || team === (e.seat & 1));
    return out;
  },
  claims_closed: () => ({}),
  awarded: (v, e) => ({ scores: add(v.scores, e.team, e.points) }),
  hand_counted: (v, e) => ({ // R11: the table's cards belong to nobody
    scores: [v.scores[0] + e.points[0], v.scores[1] + e.points[1]],
    table: [], missed: [], missed_takers: [], turn: null, phase: "waiting",
  }),
  misdeal_ruled: (v, e) => ({ scores: add(v.scores, 1 - (e.dealer & 1), e.points) }), // R5
  game_over: (_, e) => ({ phase: "finished", turn: null, winner: e.winner, scores: [...e.scores] }),
};
