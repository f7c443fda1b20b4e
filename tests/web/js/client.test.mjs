// Unit tests of the web client's pure modules, run by node's test runner (tests/web/test_units.py).
import { test } from "node:test";
import assert from "node:assert/strict";

import { setLanguage, t } from "../../../clients/web/i18n/index.js";
import { tantosAndPerros } from "../../../clients/web/js/tally.js";
import {
  captureMatching, playableCards, playsOf, takeableCards, trailOf,
} from "../../../clients/web/js/captures.js";
import { screenPositions, teamOf } from "../../../clients/web/js/seats.js";
import { applyEvent, applySnapshot, emptyModel } from "../../../clients/web/js/state.js";
import { describeEvent, quietEvents } from "../../../clients/web/js/event-text.js";
import { byRank } from "../../../clients/web/js/cards.js";
import { unfold } from "../../../clients/web/js/connection.js";
import { yourHeadline } from "../../../clients/web/js/game-over-you.js";
import { followEvent } from "../../../clients/web/js/follow.js";

globalThis.document = { documentElement: {} }; // setLanguage sets <html lang>; nothing else runs
setLanguage("es");

test("tantos and perros: 26 points are 2 perros (10 each) and 3 tantos (2 each)", () => {
  assert.deepEqual(tantosAndPerros(26), { perros: 2, tantos: 3 });
  assert.deepEqual(tantosAndPerros(0), { perros: 0, tantos: 0 });
  assert.deepEqual(tantosAndPerros(38), { perros: 3, tantos: 4 });
  assert.deepEqual(tantosAndPerros(40), { perros: 4, tantos: 0 });
});

const LEGAL = [
  { type: "play", card: "6S", take: ["2C", "4D", "7H", "JC"] },
  { type: "play", card: "6S", take: ["2C", "4D"] },
  { type: "play", card: "6S", take: [] },
  { type: "play", card: "KH", take: [] },
];

test("R7: a hand card's plays list its captures (largest first) then the trail", () => {
  const plays = playsOf(LEGAL, "6S");
  assert.equal(plays.length, 3);
  assert.deepEqual(plays[0].take, ["2C", "4D", "7H", "JC"]);
  assert.deepEqual(trailOf(plays).take, []);
  assert.deepEqual(new Set(takeableCards(plays)), new Set(["2C", "4D", "7H", "JC"]));
  assert.deepEqual(playableCards(LEGAL), new Set(["6S", "KH"]));
});

test("R8 manual sequence: clicked table cards select the legal take with exactly those cards", () => {
  const plays = playsOf(LEGAL, "6S");
  assert.deepEqual(captureMatching(plays, ["4D", "2C"]).take, ["2C", "4D"]);
  assert.equal(captureMatching(plays, ["2C"]), null);
  assert.equal(captureMatching(plays, []), null);
});

test("R1: partners sit opposite, the viewer at the bottom, the next seat on the left", () => {
  assert.deepEqual(screenPositions(1, 4), { 1: "bottom", 2: "left", 3: "top", 0: "right" });
  assert.deepEqual(screenPositions(1, 4, "counterclockwise"),
    { 1: "bottom", 2: "right", 3: "top", 0: "left" });
  assert.deepEqual(screenPositions(null, 2), { 0: "bottom", 1: "top" });
  assert.equal(teamOf(0, 4), teamOf(2, 4));
  assert.notEqual(teamOf(1, 4), teamOf(2, 4));
  assert.equal(teamOf(1, 2), 1);
});

test("R2: a hand is shown in sequence order, J after 7", () => {
  assert.deepEqual(["KS", "JD", "7H", "AC", "2C"].sort(byRank), ["AC", "2C", "7H", "JD", "KS"]);
});

const INFO = { table: "x", profile: "pagat-4p", options: {}, turn_timer: 0, locked: false, stage: "playing",
  game: 1, seats: [0, 1, 2, 3].map((seat) => ({ seat, occupant: "bot", bot_level: 1 })), spectators: 0,
  rematch_asked: [] };

function viewWith(fields) {
  return { phase: "play", hand: ["5D"], hand_sizes: [1, 1, 1, 1], table: ["5C", "KH"], scores: [0, 0],
    piles: [0, 0], dealer: 3, turn: 1, to_act: [1], hand_number: 0, packet: 0, winner: null,
    announced: [], history: [], claims: [], caida_target: null, missed: [], ...fields };
}

test("R9/R8: the caída target and the missed cards are the snapshot's, and the next one's", () => {
  const model = emptyModel();
  const snapshot = (n, view) => applySnapshot(model, { last_event: n, legal: [], deadlines: [],
    you: { role: "player", seat: 1, host: false, name: "Ana" }, info: INFO, view });
  snapshot(2, viewWith({ caida_target: "5C" }));
  assert.equal(model.game.caidaTarget, "5C");
  assert.deepEqual(model.game.missed, []);
  applyEvent(model, 3, { type: "played", seat: 1, card: "5D", take: ["5C"], caida: true, limpia: false,
    points: 2, missed: [] });
  snapshot(3, viewWith({ table: ["KH"], caida_target: null, missed: ["KH"] }));
  assert.equal(model.game.caidaTarget, null);
  assert.deepEqual(model.game.missed, ["KH"]);
});

test("numbered events: a repeat is ignored, a gap is reported (invariant 2)", () => {
  const model = emptyModel();
  assert.equal(applyEvent(model, 1, { type: "game_started", game: 1, names: [] }), "ok");
  assert.equal(applyEvent(model, 1, { type: "game_started", game: 1, names: [] }), "old");
  assert.equal(applyEvent(model, 3, { type: "claims_closed" }), "gap");
  assert.equal(model.lastEvent, 1);
});

test("a resumed snapshot then its missed events: the missed events still reach the log state", () => {
  const model = emptyModel();
  applySnapshot(model, {
    last_event: 12, legal: [], deadlines: [],
    you: { role: "player", seat: 0, host: false, name: "Ana" },
    info: { table: "x", profile: "pagat-4p", options: {}, turn_timer: 0, locked: false, stage: "playing",
      game: 1, seats: [0, 1, 2, 3].map((seat) => ({ seat, occupant: "bot", bot_level: 1 })), spectators: 0 },
    view: null,
  });
  assert.equal(applyEvent(model, 11, { type: "played", seat: 3, card: "QS", take: [], caida: false,
    limpia: false, points: 0, missed: [] }), "ok");
  assert.equal(model.lastPlay.card, "QS");
  assert.equal(applyEvent(model, 13, { type: "claims_closed" }), "ok");
  assert.equal(applyEvent(model, 15, { type: "claims_closed" }), "gap");
});

test("the log tells a caída as players say it: 'Norte hace caída: +2'", () => {
  const names = { nameOf: () => "Norte", teamOf: () => "Norte–Sur" };
  const told = describeEvent({ type: "played", seat: 2, card: "5D", take: ["5C"], caida: true, limpia: false,
    points: 2 }, names);
  assert.equal(told.text, "Norte hace caída: +2");
  assert.equal(told.banner, true);
  setLanguage("en");
  assert.equal(describeEvent({ type: "played", seat: 2, card: "5D", take: [], caida: false, limpia: false,
    points: 0 }, names).text, "Norte trails Five of diamonds");
  assert.equal(t("card.name", { rank: t("rank.J"), suit: t("suit.S") }), "Jack of spades");
  setLanguage("es");
});

test("the pocket's log tells the reader's own plays in the second person: 'Botas', 'You trail'", () => {
  const names = { nameOf: (seat) => (seat === 0 ? "Tú" : "Bot de nivel 3"), teamOf: () => "", seats: 2, you: 0 };
  const trail = (seat) => ({ type: "played", seat, card: "4S", take: [], caida: false, limpia: false, points: 0 });
  assert.equal(describeEvent(trail(0), names).text, "Botas Cuatro de picas");
  assert.equal(describeEvent(trail(1), names).text, "Bot de nivel 3 bota Cuatro de picas");
  assert.equal(describeEvent({ type: "hand_started", hand: 0, dealer: 0 }, names).text, "Mano 1: repartes tú");
  const over = { type: "game_over", winner: 0, scores: [40, 22] };
  assert.equal(describeEvent(over, { ...names, teamOf: () => "Tú" }).text, "Ganas 40–22");
  setLanguage("en");
  assert.equal(describeEvent(trail(0), names).text, "You trail Four of spades");
  assert.equal(describeEvent({ type: "announced", seat: 0, call: "pass", points: 0 }, names).text, "You pass");
  setLanguage("es");
});

test("the log names a seated bot by its chair, as the felt does, not 'Bot 3 (bot 3)'", () => {
  const names = { nameOf: () => "Oeste", teamOf: () => "Norte–Sur", seats: 4 };
  const bot = { type: "seat_taken", seat: 1, name: "Bot 3", bot_level: 3 };
  assert.equal(describeEvent(bot, names).text, "Se sienta un bot de nivel 3 en Oeste");
  assert.equal(describeEvent({ ...bot, bot_level: null, name: "Ana" }, names).text, "Ana se sienta");
  setLanguage("en");
  assert.equal(describeEvent(bot, names).text, "A level 3 bot sits down at West");
  setLanguage("es");
});

test("an update is handled as its ack, then its events in order, then its snapshot", () => {
  const events = [{ type: "event", n: 7, event: {} }, { type: "event", n: 8, event: {} }];
  const snapshot = { type: "snapshot", last_event: 8, info: { stage: "playing" }, view: null };
  assert.deepEqual(unfold({ type: "update", rid: 3, events, snapshot }).map((m) => m.type),
    ["ack", "event", "event", "snapshot"]);
  assert.equal(unfold({ type: "update", rid: 3, events, snapshot })[0].rid, 3);
  assert.deepEqual(unfold({ type: "update", rid: null, events, snapshot }).map((m) => m.n ?? m.type),
    [7, 8, "snapshot"]);
  const ack = { type: "ack", rid: 1 };
  assert.deepEqual(unfold(ack), [ack]);
});

test("an update's snapshot keeps the previous info and history it leaves out (protocol 3)", () => {
  const entry = (card) => ({ packet: 0, seat: 0, card, take: [], caida: false });
  const previous = { type: "snapshot", last_event: 4, info: { stage: "playing" },
    view: { hand: ["AC"], history: [entry("2C"), entry("3C")] } };
  const change = { type: "snapshot", last_event: 5, info: null, history_from: 2,
    view: { hand: [], history: [entry("AC")] } };
  const got = unfold({ type: "update", rid: null, events: [], snapshot: change }, previous).at(-1);
  assert.deepEqual(got, { type: "snapshot", last_event: 5, info: { stage: "playing" },
    view: { hand: [], history: [entry("2C"), entry("3C"), entry("AC")] } });
  assert.deepEqual(previous.view.history.length, 2, "the previous snapshot is left as it was");
  assert.throws(() => unfold({ type: "update", rid: null, events: [], snapshot: change }, null),
    /table info/);
  const longer = { ...change, info: { stage: "playing" }, history_from: 3 };
  assert.throws(() => unfold({ type: "update", rid: null, events: [], snapshot: longer }, previous),
    /history of 3 entries/);
});

test("R10 claim choices: only the ranks the player's team caught by a caída this hand", async () => {
  const { caughtByCaida } = await import("../../../clients/web/js/play.js");
  const model = emptyModel();
  model.you = 2; // team 0 (R1)
  model.game = {
    history: [
      { seat: 0, card: "7H", take: ["7C"], caida: true }, // partner's caída: 7
      { seat: 1, card: "QS", take: ["QD"], caida: true }, // the other team's: not ours
      { seat: 2, card: "3D", take: ["3S"], caida: false }, // a capture, no caída
      { seat: 2, card: "KC", take: ["KH", "AS"], caida: true }, // ours: K
      { seat: 0, card: null, take: ["2C"], caida: false }, // missed cards taken (R8)
    ],
    claims: [[0, "K", true]], // K already claimed, validly
  };
  assert.deepEqual(caughtByCaida(model), ["7"]);
  model.game.claims = [];
  assert.deepEqual(caughtByCaida(model), ["7", "K"]);
  model.you = null; // a spectator claims nothing
  assert.deepEqual(caughtByCaida(model), []);
});

test("the log leaves out a stand-in that never played and a claim window nobody could use", () => {
  const played = (seat, caida = false) => ({ type: "played", seat, card: "5D", take: caida ? ["5C"] : [], caida });
  const away = { type: "stand_in", seat: 0, active: true, reason: "disconnected" };
  const back = { type: "stand_in", seat: 0, active: false, reason: "returned" };
  const numbered = (events) => events.map((e, i) => [i + 1, e]);
  const quiet = (events, viewer = { you: 0, seats: 4 }) => [...quietEvents(numbered(events), viewer)].sort();
  // A reload: away and back with no decision of seat 0 between (the others' plays do not count).
  assert.deepEqual(quiet([played(1), away, played(1), back]), [2, 4]);
  // Still away, nothing played for the seat yet: the badge tells it, not the log.
  assert.deepEqual(quiet([away, played(1)]), [1]);
  // The bot played for seat 0: both lines are told, and a stand-in still playing too.
  assert.deepEqual(quiet([away, played(0), back]), []);
  assert.deepEqual(quiet([away, played(0)]), []);
  // An automatic announcement is nobody's decision; a manual one is the stand-in's.
  const ronda = { type: "announced", seat: 0, call: "ronda", points: 4 };
  assert.deepEqual(quiet([away, ronda, back]), [1, 3]);
  assert.deepEqual(quiet([away, ronda, back], { you: 0, seats: 4, options: { announcements: "manual" } }), []);
  // A return whose start was never told (the game began with the seat empty-handed): left out.
  assert.deepEqual(quiet([{ type: "game_started" }, back]), [2]);
  // R10: the window is told around a claim, or to the team that made a caída this hand.
  const opened = { type: "claims_opened", hand: 0 };
  const closed = { type: "claims_closed" };
  const hand = [{ type: "hand_started", hand: 0 }, played(1, true)];
  assert.deepEqual(quiet([...hand, opened, closed]), [3, 4]);
  assert.deepEqual(quiet([...hand, opened, closed], { you: 3, seats: 4 }), []);
  assert.deepEqual(quiet([...hand, opened, closed], { you: null, seats: 4 }), [3, 4]);
  const claim = { type: "claimed", seat: 2, rank: "5", valid: false, points: 0 };
  assert.deepEqual(quiet([...hand, opened, claim, closed], { you: null, seats: 4 }), []);
  // Last hand's caída does not make this hand's window worth a line; an open window is judged too.
  assert.deepEqual(quiet([...hand, opened, closed, { type: "hand_started", hand: 1 }, opened],
    { you: 1, seats: 4 }), [6]);
  // Heads-up (R14): the team is the seat.
  assert.deepEqual(quiet([...hand, opened, closed], { you: 1, seats: 2 }), []);
});

test("protocol 4: a change's unchanged deadlines count on from the snapshot before it", () => {
  const previous = {
    type: "snapshot", last_event: 4, you: { role: "spectator", seat: null, name: "Eva" },
    info: { table: "t", profile: "pagat-4p", options: {} }, view: null, legal: [],
    deadlines: [{ kind: "turn", seat: 1, at: 10, remaining_ms: 30000 }],
  };
  const change = {
    type: "change", rid: null, events: [{ type: "event", n: 5, event: { type: "lock_changed", locked: true } }],
    you: null, info: null, view: null, legal: [], deadlines: null,
  };
  const [, snapshot] = unfold(change, previous, 4000);
  assert.equal(snapshot.type, "snapshot");
  assert.equal(snapshot.last_event, 5);
  assert.deepEqual(snapshot.deadlines, [{ kind: "turn", seat: 1, at: 10, remaining_ms: 26000 }]);
  assert.throws(() => unfold({ ...change, events: [{ ...change.events[0], n: 7 }] }, previous));
});

test("a forfeit: the table says who forfeited, each side reads its own words, the log tells it", () => {
  const model = emptyModel();
  applySnapshot(model, {
    type: "snapshot", last_event: 40, you: { role: "player", seat: 0, host: false, name: "Ana" }, legal: [],
    deadlines: [], view: null,
    info: { table: "x", profile: "pagat-4p", options: {}, turn_timer: 0, locked: false, stage: "finished",
      game: 1, seats: ["Ana", "Beto", "Caro", "Dani"].map((name, seat) => ({ seat, occupant: "person", name })),
      spectators: 0, move_deadline: 86400, on_deadline: "forfeit", missed: [2, 0], ended: { by: "forfeit", team: 0 } },
  });
  assert.equal(model.table.forfeited, 0);
  assert.equal(model.table.onDeadline, "forfeit");
  model.game = { winner: 1, scores: [12, 20], phase: "finished" };
  assert.equal(yourHeadline(model), "Perdiste por abandono (12–20): dos plazos seguidos sin jugar");
  model.you = 1;
  assert.equal(yourHeadline(model), "¡Ganaste por abandono (20–12)!");
  const names = { nameOf: () => "Ana", teamOf: () => "Ana y Caro", seats: 4 };
  const told = describeEvent({ type: "forfeited", team: 0, winner: 1, scores: [12, 20] }, names);
  assert.equal(told.text, "Ana y Caro pierden por abandono: dos plazos seguidos sin jugar");
  assert.equal(told.banner, true);
  const playing = { phase: "play", turn: 3, to_act: [3], claims_open: false, winner: null, scores: [12, 20] };
  const over = followEvent(playing, { type: "forfeited", team: 0, winner: 1, scores: [12, 20] }, null, 0);
  assert.deepEqual(over, { phase: "finished", turn: null, to_act: [], claims_open: false, winner: 1, scores: [12, 20] });
});
