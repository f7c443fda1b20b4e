// @ts-check
// The table screen for a club's TV: what the watch link shows in full-screen mode,
// legible from three metres. Both scores and both teams' card piles huge, whose turn, the table
// cards large, the last play and what it took, the hand's score sheet after each hand, the whole
// log of the game so far (fetched from /watch-log/<key> when the screen joins mid-game: the
// spectator's redacted forms only) and a QR code of the watch link in a corner. It shows only
// what a spectator receives, so it can never show a hidden card; it follows the table into a
// rematch by itself (the next game's events arrive on the same watch connection).
import { h, renderInto } from "./dom.js";
import { t } from "../i18n/index.js";
import { cardElement, cardShort } from "./cards.js";
import { describeEvent, quietEvents } from "./event-text.js";
import { finalScore } from "./panels.js";
import { teamOf } from "./seats.js";
import { sheetRows, sheetTable } from "./sheet.js";
import { qrCode, tableUrl } from "./share.js";

/**
 * @param {HTMLElement} root
 * @param {string} key the link the page was opened with (a watch link)
 * @param {import("./seats.js").Names} names
 */
export function openTv(root, key, names) {
  /** @type {Map<number, import("./wire.js").Message>} n -> event: the fetched public log, then each live event */
  const fetched = new Map();
  let asking = false;
  let known = 0; // the highest event number held
  let askedAt = -1; // the table's last event when the log was last asked for
  /** @type {[import("./model-types.js").Model, () => void] | null} */
  let last = null;

  /** The log so far: when the screen opens, and after a reconnect skipped events (a spectator
   * watches again and gets a snapshot, not the missed events). Live events land by number. */
  async function fetchLog() {
    asking = true;
    try {
      const answer = await (await fetch(`/watch-log/${encodeURIComponent(key)}`)).json();
      for (const { n, event } of answer.log) remember(n, event);
    } catch {
      /* the next redraw asks again */
    }
    asking = false;
    if (last) draw(...last);
  }

  /** @param {number} n @param {import("./wire.js").Message} event */
  function remember(n, event) {
    fetched.set(n, event);
    known = Math.max(known, n);
  }

  /** @param {import("./model-types.js").Model} model @param {() => void} leave */
  function draw(model, leave) {
    last = [model, leave];
    if (!model.table) return;
    const drawn = /** @type {import("./model-types.js").TableModel} */ (model);
    if (!asking && askedAt !== model.lastEvent && (known === 0 || model.lastEvent > known)) {
      askedAt = model.lastEvent;
      fetchLog();
    }
    renderInto(root, screen(drawn, gameEvents(fetched), names, key, leave));
  }
  return { draw, remember };
}

/** The current game's events in order: from its diamond draw (R3) on. */
/** @param {Map<number, import("./wire.js").Message>} fetched @returns {[number, import("./wire.js").Message][]} */
function gameEvents(fetched) {
  const all = [...fetched.entries()].sort((a, b) => a[0] - b[0]);
  let start = 0;
  all.forEach(([, event], index) => { if (event.type === "dealer_drawn") start = index; });
  return all.slice(start);
}

/** @param {import("./model-types.js").TableModel} model @param {[number, import("./wire.js").Message][]} events @param {import("./seats.js").Names} names @param {string} key @param {() => void} leave */
function screen(model, events, names, key, leave) {
  const g = model.game;
  const seats = model.table.seats;
  const lastPlay = [...events].reverse().find(([, e]) => e.type === "played");
  // The room's screen reads the log as a spectator: no seat, no team to claim for.
  const quiet = quietEvents(events, { you: null, seats, options: model.table.options });
  return h("div.tv", { dataset: { stage: model.table.stage } },
    h("header.tv-top",
      teamBox(model, 0, names), centre(model, names), teamBox(model, 1, names)),
    h("section.tv-felt", { "aria-label": t("tv.table") },
      h("div.tv-seats", model.table.occupants.map((occupant, seat) => seatTag(model, seat, names))),
      h("div.tv-cards", { style: { "--card-w": cardWidth(g?.table.length || 0) } }, g && g.table.length
        ? g.table.map((code) => cardElement(code, { marks: g.caidaTarget === code ? ["caida-target"] : [] }))
        : h("p.tv-empty", t("tv.emptyTable"))),
      lastPlay ? lastPlayLine(lastPlay[1], names) : null,
      g?.phase === "finished" ? finalLine(g, names) : null),
    h("aside.tv-side",
      sheet(events, names, seats),
      h("section.tv-log", { "aria-labelledby": "tv-log-title" },
        h("h2#tv-log-title", t("tv.log", { count: events.length })),
        h("ol.tv-log-lines", events.map(([n, event]) => {
          const told = quiet.has(n) ? null : describeEvent(event, names);
          return told ? h(`li.log-${told.kind}`, { dataset: { n: String(n) } }, told.text) : null;
        }).reverse()))),
    h("figure.tv-qr", qrCode(tableUrl(key), t("tv.qr")), h("figcaption", t("tv.qr"))),
    h("button.btn.btn-small.btn-quiet.tv-leave", { type: "button", id: "screen-mode", onclick: leave },
      t("screen.leave")));
}

/**
 * Table cards as large as the felt allows: fewer cards, bigger cards, never one cut by the felt.
 * For each number of rows (one to four) the width that fits that many rows in the cards' room
 * (club.css: .tv-cards is a size container, so 100cqw and 100cqh are its room); the largest of
 * them, at most 18% of the screen's height. A width that fits `per` cards in a row leaves at
 * most `rows` rows, however the cards wrap.
 */
/** @param {number} count */
function cardWidth(count) {
  const fits = [1, 2, 3, 4].map((rows) => {
    const per = Math.ceil(Math.max(1, count) / rows);
    return `min((100cqw - ${per - 1} * var(--tv-gap) - var(--tv-dot)) / ${per}, `
      + `(100cqh - ${rows - 1} * var(--tv-gap) - var(--tv-dot)) / ${rows * 1.5})`;
  });
  return `min(18vh, max(${fits.join(", ")}))`;
}

/** @param {import("./model-types.js").TableModel} model @param {number} team @param {import("./seats.js").Names} names */
function teamBox(model, team, names) {
  const g = model.game;
  const turnTeam = g?.turn != null ? teamOf(g.turn, model.table.seats) : null;
  return h(`section.tv-team.tv-team-${team}`, { dataset: { team: String(team), turn: String(turnTeam === team) } },
    h("h2.tv-team-name", names.teamOf(team)),
    h("p.tv-score", { dataset: { score: String(team) } }, g ? g.scores[team] : 0),
    h("p.tv-pile", { dataset: { pile: String(team) } },
      h("span.tv-pile-icon", { "aria-hidden": "true" }), t("tv.pile", { count: g ? g.piles[team] : 0 }),
      h("span.visually-hidden", t("tv.pileWon"))));
}

/** @param {import("./model-types.js").TableModel} model @param {import("./seats.js").Names} names */
function centre(model, names) {
  const g = model.game;
  const target = Number(model.table.options?.target_score || 40);
  const turn = g?.turn != null ? t("tv.turn", { name: names.nameOf(g.turn) }) : "";
  return h("div.tv-centre",
    g ? h("p.tv-hand", t("tv.hand", { hand: g.handNumber + 1, packet: g.packet + 1 })) : null,
    h("p.tv-target", t("tv.target", { target })),
    h("p.tv-turn", { role: "status" }, g?.phase === "finished" ? t("tv.over") : turn),
    model.table.spectators ? h("p.tv-watchers", t("tv.watchers", { count: model.table.spectators })) : null);
}

/** @param {import("./model-types.js").TableModel} model @param {number} seat @param {import("./seats.js").Names} names */
function seatTag(model, seat, names) {
  const g = model.game;
  const cards = g?.handSizes?.[seat] ?? 0;
  return h("p.tv-seat", { dataset: { seat: String(seat), team: String(teamOf(seat, model.table.seats)),
    turn: String(g?.turn === seat) } },
  h("span.tv-seat-name", names.nameOf(seat)), h("span.tv-seat-cards", t("tv.inHand", { count: cards })));
}

/** @param {import("./wire.js").Message} event @param {import("./seats.js").Names} names */
function lastPlayLine(event, names) {
  const who = names.nameOf(event.seat);
  const took = event.take.length ? event.take.map(cardShort).join(" ") : null;
  const extras = [event.caida ? t("tv.caida") : null, event.limpia ? t("tv.limpia") : null,
    event.points ? `+${event.points}` : null].filter(Boolean).join(" · ");
  return h("p.tv-last", { dataset: { last: event.card } },
    h("span.tv-last-label", t("tv.last")),
    took ? t("tv.lastTook", { name: who, card: cardShort(event.card), take: took })
      : t("tv.lastTrailed", { name: who, card: cardShort(event.card) }),
    extras ? h("strong.tv-last-points", ` ${extras}`) : null);
}

/** The end of the game over the felt (the same final score the players' panel shows). */
/** @param {import("./model-types.js").Game} g @param {import("./seats.js").Names} names */
function finalLine(g, names) {
  return h("section.game-over.tv-final", { "aria-labelledby": "end-title" },
    h("h2#end-title", typeof g.winner !== "number" ? t("end.draw")
      : t(names.seats === 2 ? "end.oneWins" : "end.teamWins", { team: names.teamOf(g.winner) })),
    finalScore(g, names));
}

/**
 * The score sheet as the players' (sheet.js): labelled columns, one pair of lines per hand, the
 * hand being played (or the one the game ended in) with its count still open.
 */
/** @param {[number, import("./wire.js").Message][]} events @param {import("./seats.js").Names} names @param {number} seats */
function sheet(events, names, seats) {
  const rows = sheetRows(events, seats);
  return h("section.tv-sheet", { "aria-labelledby": "tv-sheet-title" },
    h("h2#tv-sheet-title", t("tv.sheet")),
    rows.length ? sheetTable(rows, names) : h("p.hint", t("tv.sheetEmpty")));
}
