// @ts-check
// The host's controls (PROTOCOL.md host messages): seats and bots, kick, lock, options before
// the start, start, and referee rulings (R5 misdeal) during the game.
import { foldingSummary, h } from "./dom.js";
import { t } from "../i18n/index.js";
import { BOT_LEVELS, TURN_TIMERS, optionsFor, parseOptionValue } from "./options.js";
import { compassOf, teamOf, teamPlayers } from "./seats.js";

/**
 * A chair as the felt names it: a person by name and compass ("Lucía · Sur"), a bot by its
 * compass alone ("Oeste", its badge says it is a bot), a free chair by its compass ("Norte · Libre").
 */
/** @param {import("./model-types.js").Occupant} occupant @param {number} seat @param {number} seats */
function chairWords(occupant, seat, seats) {
  const compass = t(`seat.${compassOf(seat, seats)}`);
  if (occupant.empty) return `${compass} · ${t("seat.state.empty")}`;
  if (occupant.bot || !occupant.name) return compass;
  return `${occupant.name} · ${compass}`;
}

/** Before the start the host moves anyone, person or bot, to another chair (a swap). */
/** @param {import("./model-types.js").TableModel} model @param {number} seat @param {(message: import("./wire.js").Message) => unknown} send */
function moveTo(model, seat, send) {
  const seats = model.table.seats;
  return h("select", {
    "aria-label": t("host.moveTo"), dataset: { focus: `move-${seat}`, action: `move-${seat}` },
    onchange: (/** @type {{target: HTMLSelectElement}} */ e) => { if (e.target.value !== "") send({ type: "swap", seat, other: Number(e.target.value) }); },
  }, h("option", { value: "" }, t("host.moveTo")),
  Array.from({ length: seats }, (_, other) => other).filter((other) => other !== seat).map((other) =>
    h("option", { value: String(other) }, chairWords(model.table.occupants[other], other, seats))));
}

/** @param {import("./model-types.js").TableModel} model @param {number} seat @param {(message: import("./wire.js").Message) => unknown} send */
function seatRow(model, seat, send) {
  const occupant = model.table.occupants[seat];
  const lobby = !model.table.started;
  const seats = model.table.seats;
  const team = teamOf(seat, seats);
  const teamWords = teamPlayers(team, seats, model.table.occupants);
  const level = /** @type {HTMLSelectElement} */ (h("select", { "aria-label": t("host.botLevel"), dataset: { focus: `level-${seat}` } },
    BOT_LEVELS.map((l) => h("option", { value: String(l), selected: l === 3 }, t(`bot.level.${l}`)))));
  /** @type {HTMLElement[]} */
  const controls = [];
  if (occupant.empty && lobby) {
    controls.push(level, h("button.btn.btn-small", {
      type: "button", dataset: { focus: `add-bot-${seat}`, action: "add-bot", seat: String(seat) },
      onclick: () => send({ type: "add_bot", seat, level: Number(level.value) }),
    }, t("host.addBot")));
  } else if (occupant.bot && !occupant.standIn && lobby) {
    controls.push(h("button.btn.btn-small.btn-quiet", {
      type: "button", dataset: { focus: `remove-bot-${seat}` },
      onclick: () => send({ type: "remove_bot", seat }),
    }, t("host.removeBot")));
  } else if (!occupant.empty && !occupant.bot && seat !== model.you) {
    controls.push(h("button.btn.btn-small.btn-quiet", {
      type: "button", dataset: { focus: `kick-${seat}` },
      onclick: () => send({ type: "kick", seat }),
    }, t("host.kick")));
  }
  if (lobby && !occupant.empty) controls.push(moveTo(model, seat, send));
  return h("li.host-seat", { dataset: { seat: String(seat) } },
    // The team as the score boxes show it: its colour dot, its players' names for a screen reader.
    h("span.host-seat-name", h(`span.sheet-dot.dot-${team}`, { "aria-hidden": "true", title: teamWords }),
      chairWords(occupant, seat, seats)),
    h("span.host-seat-team.visually-hidden", teamWords),
    occupant.bot ? h("span.badge.badge-bot", t("seat.bot", { level: occupant.bot })) : null,
    h("span.host-seat-controls", controls));
}

/** @param {import("./model-types.js").TableModel} model @param {(message: import("./wire.js").Message) => unknown} send */
function optionsForm(model, send) {
  const profile = model.table.profile;
  const fields = optionsFor(profile).map((option) => h("div.field",
    h("label", { for: `host-opt-${option.name}` }, t(`option.${option.name}`)),
    h("select", {
      id: `host-opt-${option.name}`,
      onchange: (/** @type {{target: HTMLSelectElement}} */ e) => send({ type: "set_options",
        options: { ...model.table.options, [option.name]: parseOptionValue(option, e.target.value) } }),
    }, option.values.map((v) => h("option", {
      value: String(v), selected: String(model.table.options[option.name] ?? option.values[0]) === String(v),
    }, t(`option.${option.name}.${v}`))))));
  fields.push(h("div.field",
    h("label", { for: "host-timer" }, t("home.timer")),
    h("select", { id: "host-timer",
      onchange: (/** @type {{target: HTMLSelectElement}} */ e) => send({ type: "set_options", options: model.table.options,
        turn_timer: Number(e.target.value) }) },
    TURN_TIMERS.map((s) => h("option", { value: String(s), selected: s === model.table.turnTimer },
      s === 0 ? t("home.timer.off") : t("home.timer.seconds", { s }))))));
  fields.push(h("div.field.field-inline", // rated or casual, until the start
    h("input#host-casual", { type: "checkbox", checked: model.table.casual,
      onchange: (/** @type {{target: HTMLInputElement}} */ e) => send({ type: "set_options", options: model.table.options,
        casual: e.target.checked }) }),
    h("label", { for: "host-casual" }, t("table.casualOption"))));
  return h("details.host-options", h("summary", t("host.options")), fields);
}

/** Hints at a casual table, on unless the host says no; before or during a game. */
/** @param {import("./model-types.js").Table} table @param {(message: import("./wire.js").Message) => unknown} send */
function hintsSwitch(table, send) {
  return h("div.field.field-inline",
    h("input#host-hints", { type: "checkbox", checked: table.hints, "aria-describedby": "host-hints-hint",
      onchange: (/** @type {{target: HTMLInputElement}} */ e) => send({ type: "set_hints", hints: e.target.checked }) }),
    h("label", { for: "host-hints" }, t("host.hints")),
    h("p#host-hints-hint.hint", t("host.hints.hint")));
}

/**
 * The panel; `send` sends a request and reports errors; `start` fills bots then starts, when
 * `fillBots` (the home form's choice). Without it the server refuses to start with a chair free:
 * the button waits, and the hint under it says what to do instead of promising bots.
 * In the game it folds under its title (`open`, kept by `onToggle`): the felt shows the chairs,
 * and the side column's room goes to the log and the chat.
 * @param {import("./model-types.js").TableModel} model
 * @param {{send: (message: import("./wire.js").Message) => unknown, start: () => unknown, fillBots?: boolean, open?: boolean,
 *   onToggle?: (open: boolean) => void}} how
 */
export function hostPanel(model, { send, start, fillBots = true, open = false, onToggle = () => {} }) {
  const table = model.table;
  const lobby = !table.started;
  const waiting = !fillBots && table.occupants.some((occupant) => occupant.empty);
  const seats = Array.from({ length: table.seats }, (_, seat) => seatRow(model, seat, send));
  const title = h("h2#host-title", t("host.title"));
  const panel = lobby ? h("section.panel.host-panel", { "aria-labelledby": "host-title" }, title)
    : h("details.panel.host-panel", { open: open || null }, foldingSummary(onToggle, title));
  panel.append(.../** @type {HTMLElement[]} */ ([
    h("ul.host-seats", seats),
    h("div.field.field-inline",
      h("input#host-lock", { type: "checkbox", checked: table.locked,
        onchange: (/** @type {{target: HTMLInputElement}} */ e) => send({ type: "lock", locked: e.target.checked }) }),
      h("label", { for: "host-lock" }, t("host.lock"))),
    table.casual ? hintsSwitch(table, send) : null,
    lobby ? optionsForm(model, send) : null,
    lobby ? h("button.btn.btn-primary.btn-wide", {
      type: "button", id: "start-game", dataset: { focus: "start" }, onclick: start,
      disabled: waiting || null, "aria-describedby": "start-hint",
    }, t("host.start")) : null,
    lobby ? h("p#start-hint.hint", waiting ? t("host.start.waiting", { button: t("host.addBot") })
      : t(fillBots ? "host.start.hint" : "host.start.ready")) : null,
    table.stage === "playing" && table.seats === 4 ? h("div.referee", // R14: none with two
      h("h3", t("host.referee")),
      h("button.btn.btn-small.btn-quiet", {
        type: "button", dataset: { focus: "misdeal" },
        onclick: () => { if (confirm(t("host.misdeal.confirm"))) send({ type: "misdeal" }); },
      }, t("host.misdeal")),
      h("p.hint", t("host.misdeal.hint"))) : null,
  ].filter(Boolean)));
  return panel;
}
