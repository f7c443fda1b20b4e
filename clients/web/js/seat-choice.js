// @ts-check
// Choosing a chair before the start (R1): who you partner matters, so every free chair
// says who you would play with (the chair opposite) and against (the chairs beside it), and one
// click takes it (a visitor of the join link) or moves you there (a seated player: the protocol's
// sit). Once the game starts there is no chair to choose; the host still arranges people (swap).
import { h } from "./dom.js";
import { t } from "../i18n/index.js";
import { compassOf, seatName } from "./seats.js";

/** How a chair's neighbour is called: a person by name, a bot as "a bot" (they share names). */
/** @param {import("./model-types.js").Occupant} occupant @param {number} seat @param {number} seats */
function called(occupant, seat, seats) {
  return occupant.bot ? t("seat.aBot") : seatName(occupant, seat, seats);
}

/**
 * Who sits around `seat`: the partner opposite and the opponents beside it (R1; with two players
 * the other chair is the opponent, R14). The chair `you` hold counts as free, since moving
 * leaves it.
 */
/** @param {import("./model-types.js").Occupant[]} occupants @param {number} seat @param {number | null} [you] */
export function company(occupants, seat, you = null) {
  const seats = occupants.length;
  const taken = (/** @type {number} */ other) => other !== you && occupants[other] && !occupants[other].empty;
  const named = (/** @type {number} */ other) => called(occupants[other], other, seats);
  const beside = seats === 2 ? [1 - seat] : [(seat + 1) % 4, (seat + 3) % 4].sort(); // in seat order
  const partner = seats === 4 && taken((seat + 2) % 4) ? named((seat + 2) % 4) : null;
  return { partner, opponents: beside.filter(taken).map(named) };
}

/** "Pareja de Ana", "Contra Beto y un bot": the lines that name a chair by its company. */
/** @param {import("./model-types.js").Occupant[]} occupants @param {number} seat @param {number | null} [you] @returns {string[]} */
export function companyLines(occupants, seat, you = null) {
  const { partner, opponents } = company(occupants, seat, you);
  const against = opponents.length === 2 ? t("team.pair", { a: opponents[0], b: opponents[1] })
    : opponents[0];
  return [
    partner ? t("seat.partnerOf", { name: partner }) : null,
    against ? t("seat.against", { names: against }) : null,
  ].filter((line) => line !== null);
}

/**
 * An empty chair before the start: its company and, for whoever may take it (`choose`: a
 * visitor's sit or a player's move, null for anyone else), the button that takes it. For a
 * player moving, the company is the one they would have there; for the others (the host seats
 * bots and moves people from the host panel), the one whoever sits there will have.
 */
/** @param {import("./model-types.js").TableModel} model @param {number} seat @param {import("./table-seating.js").ChairChoice | null | undefined} choose */
export function emptyChair(model, seat, choose) {
  const you = choose?.moving ? model.you : null;
  return [
    companyLines(model.table.occupants, seat, you).map((line) => h("div.seat-with", line)),
    choose ? h("button.btn.btn-small.btn-primary", {
      type: "button", dataset: { action: `sit-${seat}`, focus: `sit-${seat}` },
      onclick: () => choose.take(seat),
    }, t(choose.moving ? "seat.moveHere" : "seat.sitHere")) : null,
  ];
}

/**
 * A seated guest before the start (placed in the first free chair by the link): which chair is
 * theirs, with whom and against whom, and that another free chair is one click away.
 */
/** @param {import("./model-types.js").TableModel} model */
export function yourChairNote(model) {
  const table = model.table;
  if (model.role !== "player" || model.you === null || table.started) return null;
  if (!table.occupants.some((occupant) => occupant.empty)) return null;
  const lines = companyLines(table.occupants, model.you);
  return h("section.panel.chair-note", { "aria-labelledby": "chair-note-title" },
    h("p.chair-note-head",
      h("strong#chair-note-title", t("chair.yours", { compass: t(`seat.${compassOf(model.you, table.seats)}`) })),
      " · ", h("span.chair-company", lines.length ? lines.join(" · ") : t("chair.alone"))),
    h("p.hint", t("chair.hint", { button: t("seat.moveHere") })));
}
