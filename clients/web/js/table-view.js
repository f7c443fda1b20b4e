// @ts-check
// The table as everyone sees it: seats around a green felt, partners opposite, scores and piles,
// the cards on the table with the caída target marked, and (for a player) the hand and controls.
import { h } from "./dom.js";
import { formatNumber, t, tn } from "../i18n/index.js";
import { cardBack, cardElement, cardShort } from "./cards.js";
import { compassOf, screenPositions, seatName, teamOf } from "./seats.js";
import { tantosAndPerros } from "./tally.js";
import { actionBar, handView, tableCardMarks } from "./play.js";
import { pickTableCard } from "./table-choices.js";

/**
 * What the table's views are handed besides the model: the move to send, the redraw after a
 * choice, the names of the moment, the toolbar, R10's "nothing to claim", who may take a chair.
 * @typedef {object} TableContext
 * @property {(action: import("./wire.js").LegalAction) => void} act
 * @property {() => void} redraw
 * @property {import("./seats.js").Names} names
 * @property {HTMLElement} tools
 * @property {() => void} passClaims
 * @property {() => void} askHint ask the coach what it would play (casual and solo tables)
 * @property {import("./table-seating.js").ChairChoice | null} chooseChair
 * @property {() => void} confirm send the play held by the misclick guard
 * @property {() => void} release let go of the held play
 * @property {((id: string) => void) | null} [befriend] ask another person at the table to be friends
 */
import { emptyChair } from "./seat-choice.js";
import { plusFriend } from "./table-friends.js";

const PILE_GOLD = 20; // R11: from 20 cards a pile scores the count

/** Seconds left until `deadline` (ms since the epoch), never negative. */
/** @param {number} deadline */
export function secondsLeft(deadline, now = Date.now()) {
  return Math.max(0, Math.ceil((deadline - now) / 1000));
}

/** The time left as a person reads it: seconds at a live table, minutes, hours or days at a
 * turn-based one. @param {number} deadline ms since the epoch */
export function timeLeft(deadline, now = Date.now()) {
  const s = secondsLeft(deadline, now);
  if (s < 120) return `${s} s`;
  if (s < 2 * 3600) return t("time.minutes", { n: Math.floor(s / 60) });
  if (s < 2 * 86400) return t("time.hours", { n: Math.floor(s / 3600) });
  return t("time.days", { n: Math.floor(s / 86400) });
}

/** @param {number | null} deadline @param {string} labelKey */
function countdown(deadline, labelKey) {
  if (!deadline) return null;
  return h("span.countdown", { dataset: { deadline: String(deadline) }, "aria-label": t(labelKey) },
    timeLeft(deadline));
}

/** @param {number} score */
function tally(score) {
  const { perros, tantos } = tantosAndPerros(score);
  return h("span.tally", {
    title: t("tally.tooltip"),
    "aria-label": t("tally.aria", { perros, tantos }),
    tabindex: "0",
  },
  Array.from({ length: perros }, () => h("span.chip.is-perro", { "aria-hidden": "true" })),
  Array.from({ length: tantos }, () => h("span.chip.is-tanto", { "aria-hidden": "true" })),
  perros + tantos === 0 ? h("span.tally-zero", "—") : null);
}

/** @param {import("./model-types.js").TableModel} model @param {TableContext} ctx */
function scoreboard(model, { tools, names }) {
  const g = model.game;
  const seats = model.table.seats;
  const yourTeam = model.you === null ? null : teamOf(model.you, seats);
  return h("section.scoreboard", { "aria-label": t("score.label") },
    [0, 1].map((team) => {
      const pile = g ? g.piles[team] : 0;
      return h(`div.team.team-${team}`, { dataset: { team: String(team) },
        class: yourTeam === team ? "is-yours" : null },
      h("div.team-name", h("span.team-label", names.teamOf(team)), yourTeam === team ? h("span.badge", t("score.us")) : null),
      h("div.team-score", { role: "group", "aria-label": t("score.points", { points: g ? g.scores[team] : 0 }) },
        model.tallyMode ? tally(g ? g.scores[team] : 0)
          : h("span.score-number", { dataset: { score: String(team) } }, formatNumber(g ? g.scores[team] : 0))),
      h("div.team-pile", { class: pile >= PILE_GOLD ? "is-gold" : null,
        title: t("score.pile.tooltip") },
      h("span.pile-icon", { "aria-hidden": "true" }),
      h("span", { dataset: { pile: String(team) } }, tn("score.pile", pile))));
    }),
    h("div.score-meta",
      g ? h("span", t("score.hand", { hand: g.handNumber + 1, packet: g.packet + 1 })) : null,
      tools || null,
      h("span.target", t("score.target"))));
}

/** @param {import("./model-types.js").TableModel} model @param {number} seat @param {string} position @param {TableContext} ctx */
function seatPanel(model, seat, position, ctx) {
  const g = model.game;
  const seats = model.table.seats;
  /** @type {Partial<import("./model-types.js").Occupant>} */
  const occupant = model.table.occupants[seat] || { empty: true };
  // The claim window (R10) is everyone's at once: the felt shows its countdown, not the seats.
  const isTurn = g && (g.phase === "play" || g.phase === "announce") &&
    (g.turn === seat || (g.toAct || []).includes(seat));
  const handSize = g ? (g.handSizes?.[seat] ?? 0) : 0;
  const you = seat === model.you;
  const badges = [
    you ? h("span.badge.badge-you", t("seat.you")) : null,
    occupant.bot ? h("span.badge.badge-bot", { title: t("seat.bot.tooltip") },
      t("seat.bot", { level: occupant.bot })) : null,
    g && (g.announced || []).some(([who, call]) => who === seat && call === "ronda")
      ? h("span.badge.badge-ronda", { title: t("seat.ronda.tooltip") }, t("announce.ronda")) : null,
    g && g.dealer === seat ? h("span.badge.badge-dealer", { title: t("seat.dealer.tooltip") },
      t("seat.dealer")) : null,
    model.table.started && !occupant.bot && !occupant.empty && !occupant.connected
      ? h("span.badge.badge-away", t("seat.away")) : null,
  ];
  const state = occupant.empty ? "empty" : occupant.bot ? "bot"
    : occupant.connected ? "online" : "offline";
  return h(`section.seat.seat-${position}`, {
    dataset: { seat: String(seat), state },
    class: [isTurn ? "is-turn" : null, `team-${teamOf(seat, seats)}`,
      model.lastPlay?.seat === seat && g?.phase !== "finished" ? "is-last" : null].filter(Boolean).join(" "),
    "aria-label": t("seat.aria", { name: seatName(occupant, seat, seats), compass:
      t(`seat.${compassOf(seat, seats)}`) }),
    "aria-current": isTurn ? "true" : null,
  },
  h("div.seat-head",
    h("span.presence", { role: "img", title: t(`seat.state.${state}`), "aria-label": t(`seat.state.${state}`) }),
    h("span.seat-name", occupant.empty ? t("seat.empty") : seatName(occupant, seat, seats)),
    occupant.bot || occupant.empty ? null : h("span.seat-compass", t(`seat.${compassOf(seat, seats)}`)),
    plusFriend(model, occupant, ctx?.befriend)),
  h("div.seat-badges", badges),
  isTurn ? h("div.seat-turn", t("seat.turn"), " ", countdown(g.deadline, "seat.timeLeft")) : null,
  occupant.empty && !model.table.started ? emptyChair(model, seat, ctx?.chooseChair) : null,
  !you && g && handSize ? h("div.seat-cards", { role: "img", "aria-label": tn("seat.cards", handSize) },
    Array.from({ length: handSize }, () => cardBack())) : null);
}

/** The last play in words, until the next one: who, which card, what it took, what it scored. */
/** @param {import("./model-types.js").TableModel} model @param {import("./seats.js").Names} names */
function lastPlayLine(model, names) {
  const e = model.lastPlay;
  if (!e || !model.game || model.game.phase === "finished") return null;
  const name = names.nameOf(e.seat);
  const extras = [e.caida ? t("fx.caida") : null, e.limpia ? t("fx.limpia") : null,
    e.points ? `+${e.points}` : null].filter(Boolean).join(" ");
  return h("p.last-play", { dataset: { seat: String(e.seat), card: e.card } },
    h("span.last-play-label", t("table.last")), " ",
    e.take.length
      ? t("table.lastTook", { name, card: cardShort(e.card), cards: e.take.map(cardShort).join(" ") })
      : t("table.lastTrailed", { name, card: cardShort(e.card) }),
    extras ? h("strong.last-play-points.has-tip", { title: [e.caida ? t("explain.caida") : null,
      e.limpia ? t("explain.limpia") : null].filter(Boolean).join(" ") || null }, ` ${extras}`) : null);
}

/** @param {import("./model-types.js").TableModel} model @param {TableContext} ctx */
function felt(model, { redraw, names }) {
  const g = model.game;
  const selection = model.selection;
  const marks = g && model.you !== null ? tableCardMarks(model, g) : (/** @type {string} */ code) => ({
    marks: g && g.phase === "play" && code === g.caidaTarget ? ["caida-target"] : /** @type {string[]} */ ([]),
    pickable: false });
  const cards = g ? g.table : [];
  return h("section.felt", { "aria-label": t("table.label") },
    cards.length ? h("div.table-cards", { role: "group", "aria-label": tn("table.cards", cards.length) },
      cards.map((code) => {
        const m = marks(code);
        const last = model.lastPlay && !model.lastPlay.take.length && model.lastPlay.card === code;
        return cardElement(code, {
          marks: last ? [...m.marks, "last"] : m.marks,
          onPick: m.pickable ? (c) => { pickTableCard(model, c); redraw(); } : null,
          pressed: m.pickable ? selection.take.includes(code) : null,
          focusKey: `table-${code}`,
        });
      })) : h("p.felt-empty", g ? t("table.empty") : t("table.notStarted")),
    lastPlayLine(model, names),
    g && g.caidaTarget && g.phase === "play" ? h("p.caida-note", { "aria-live": "polite" },
      h("span.caida-dot", { "aria-hidden": "true" }), t("table.caidaTarget")) : null,
    g && g.phase === "claims" ? h("p.window-note", t("table.claimWindow"), " ",
      countdown(g.deadline, "seat.timeLeft")) : null);
}

/** The whole table for one viewer; `ctx` carries the selection, actions and redraw. */
/** @param {import("./model-types.js").TableModel} model @param {TableContext} ctx */
export function tableView(model, ctx) {
  const seats = model.table.seats;
  const positions = screenPositions(model.you, seats, String(model.table.options.direction ?? "clockwise"));
  const bySeat = Object.entries(positions).map(([seat, position]) =>
    seatPanel(model, Number(seat), position, ctx));
  const game = model.game;
  return h(`div.table-layout.seats-${seats}`, { class: model.screenMode ? "is-screen" : null },
    scoreboard(model, ctx),
    h("div.ring", bySeat, felt(model, ctx)),
    model.you !== null && game && game.phase !== "finished" ? h("section.mine", { "aria-label": t("hand.section") },
      h("p#hand-keys.visually-hidden", t("access.handKeys")),
      handView(model, ctx.redraw),
      actionBar(model, game, ctx)) : null);
}
