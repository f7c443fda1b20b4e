// @ts-check
// The home page: open a table (profile, R13 house rules, turn timer, bots), then share its links.
import { h, renderInto } from "./dom.js";
import { t, tn } from "../i18n/index.js";
import {
  BOT_LEVELS, MOVE_DEADLINES, ON_DEADLINES, PROFILES, TURN_TIMERS, changedOptions, optionsFor, parseOptionValue,
} from "./options.js";
import { sharePanel, tableUrl } from "./share.js";
import { cardFace } from "./cards.js";

/**
 * What the home page is handed by main.js: the table it created (kept across a language switch),
 * how many turn-based games wait for the person's move, the remembered name, the words of a
 * refusal, and the request that creates a table.
 * @typedef {object} HomeApp
 * @property {{join: string, watch: string, host: string} | null} created
 * @property {number} waiting the person's turn-based games that wait for their move (/me lists them)
 * @property {() => string} playerName
 * @property {(error: import("./wire.js").Refusal) => string} errorText
 * @property {(request: CreateRequest) => Promise<{join: string, watch: string, host: string}>} createTable
 */
/**
 * @typedef {{name: string, profile: string, options: Record<string, string | number | boolean>,
 *   turnTimer: number, moveDeadline?: number, onDeadline?: string, fillBots: boolean, botLevel: number,
 *   public: boolean, casual: boolean}} CreateRequest
 */

/** A small fan of cards by the title: decoration only, hidden from screen readers. */
function heroFan() {
  return h("div.hero-fan", { "aria-hidden": "true" },
    ["AH", "7S", "KD"].map((code) => h("span.card", cardFace(code))));
}

/** @template {string | number} V @param {string} id @param {V[]} values @param {string} label @param {V} current @param {(value: V) => string} describe */
function select(id, values, label, current, describe) {
  return h("div.field",
    h("label", { for: id }, label),
    h("select", { id, name: id },
      values.map((v) => h("option", { value: String(v), selected: String(v) === String(current) },
        describe(v)))));
}

/** @param {string} profile @param {Record<string, string | number | boolean>} chosen */
function optionFields(profile, chosen) {
  return optionsFor(profile).map((option) =>
    select(`opt-${option.name}`, option.values.map(String), t(`option.${option.name}`),
      String(chosen[option.name] ?? option.values[0]),
      (/** @type {string | number | boolean} */ v) => t(`option.${option.name}.${v}`)));
}

/**
 * Render the create form. `app.createTable(request)` resolves with the new table's keys.
 * A profile change re-renders the options it allows (R14 fixes most rules of 2-player games).
 * @param {HTMLElement} root
 * @param {HomeApp} app
 */
export function renderHome(root, app) {
  if (app.created) {
    renderCreated(root, app.created);
    return;
  }
  /** @type {{profile: string, options: Record<string, string | number | boolean>, name: string}} */
  const state = { profile: "pagat-4p", options: {}, name: app.playerName() };
  const field = (/** @type {string} */ selector) => /** @type {HTMLInputElement} */ (form.querySelector(selector));

  const form = h("form.create-form", { "aria-labelledby": "create-title" });
  const optionBox = h("fieldset.options");

  function drawOptions() {
    renderInto(optionBox, h("legend", t("home.houseRules")), optionFields(state.profile, state.options),
      h("p.hint", t(state.profile === "pagat-4p" ? "home.houseRules.hint" : "home.houseRules.hintTwo")));
  }

  form.append(
    heroFan(),
    h("h1#create-title", t("home.title")),
    h("p.lede", t("home.lede")),
    h("div.field",
      h("label", { for: "player-name" }, t("home.name")),
      h("input#player-name", { name: "name", maxlength: 32, autocomplete: "nickname", value: state.name,
        placeholder: t("home.name.placeholder") })),
    select("profile", PROFILES, t("home.profile"), state.profile, (p) => t(`profile.${p}`)),
    optionBox,
    select("pace", MOVE_DEADLINES, t("home.pace"), 0, (s) => t(`home.pace.${s}`)),
    h("p#pace-hint.hint", t("home.pace.hint")),
    // a live table has no deadline to miss: the rule is chosen once the table is turn-based
    h("div.field",
      h("label", { for: "on-deadline" }, t("home.onDeadline")),
      h("select", { id: "on-deadline", name: "on-deadline", disabled: true, "aria-describedby": "on-deadline-hint" },
        ON_DEADLINES.map((rule) => h("option", { value: rule }, t(`home.onDeadline.${rule}`))))),
    h("p#on-deadline-hint.hint", t("home.onDeadline.hint")),
    select("turn-timer", TURN_TIMERS, t("home.timer"), 30,
      (s) => (s === 0 ? t("home.timer.off") : t("home.timer.seconds", { s }))),
    h("div.field.field-inline",
      h("input#fill-bots", { type: "checkbox", checked: true }),
      h("label", { for: "fill-bots" }, t("home.bots"))),
    select("bot-level", BOT_LEVELS, t("home.botLevel"), 3, (l) => t(`bot.level.${l}`)),
    h("div.field.field-inline", // listed in the lobby of public tables (/tables)
      h("input#public-table", { type: "checkbox" }),
      h("label", { for: "public-table" }, t("lobby.publicOption"))),
    h("div.field.field-inline", // a casual table's games change nobody's rating
      h("input#casual-table", { type: "checkbox" }),
      h("label", { for: "casual-table" }, t("table.casualOption"))),
    h("div.form-actions", h("button.btn.btn-primary", { type: "submit" }, t("home.create")),
      h("a#home-tables.btn", { href: "/tables" }, t("lobby.join"))),
    h("p.form-error", { role: "alert", id: "create-error" }),
  );
  drawOptions();

  form.addEventListener("change", (event) => {
    const target = /** @type {HTMLSelectElement} */ (event.target);
    if (target.id === "pace") field("#on-deadline").disabled = target.value === "0";
    if (target.id === "profile") {
      state.profile = target.value;
      drawOptions();
    } else if (target.id.startsWith("opt-")) {
      const option = optionsFor(state.profile).find((o) => `opt-${o.name}` === target.id);
      if (option) state.options[option.name] = parseOptionValue(option, target.value);
    }
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = field("button[type=submit]");
    button.disabled = true;
    field("#create-error").textContent = "";
    const name = field("#player-name").value.trim();
    try {
      const keys = await app.createTable({
        name,
        profile: state.profile,
        options: changedOptions(state.profile, state.options),
        turnTimer: Number(field("#turn-timer").value),
        moveDeadline: Number(field("#pace").value),
        onDeadline: field("#pace").value === "0" ? "stand_in" : field("#on-deadline").value,
        fillBots: field("#fill-bots").checked,
        botLevel: Number(field("#bot-level").value),
        public: field("#public-table").checked,
        casual: field("#casual-table").checked,
      });
      renderCreated(root, keys);
    } catch (error) {
      field("#create-error").textContent = t("error.create", { reason: app.errorText(/** @type {import("./wire.js").Refusal} */ (error)) });
      button.disabled = false;
    }
  });

  renderInto(root, h("div.home", form));
  showWaiting(root, app.waiting);
  field("#player-name").focus();
}

/**
 * "2 games wait for your move", a link to /me, above the form; nothing at 0. Drawn into the
 * page as it is (the count comes after the form: what the person typed stays).
 * @param {HTMLElement} root @param {number} count
 */
export function showWaiting(root, count) {
  root.querySelector(".home-turns")?.remove();
  if (!count) return;
  root.querySelector(".home")?.prepend(h("p.home-turns",
    h("a#home-turns.btn.btn-primary", { href: "/me" }, tn("home.turns", count))));
}

/** After creating: the links to share, and the way to the table (as its host). */
/** @param {HTMLElement} root @param {{join: string, watch: string, host?: string}} keys */
function renderCreated(root, keys) {
  const go = h("a.btn.btn-primary", { href: tableUrl(keys.join), id: "go-to-table" }, t("home.goToTable"));
  renderInto(root, h("div.home",
    h("section.created", { "aria-labelledby": "created-title" },
      h("h1#created-title", { tabindex: "-1" }, t("home.created")),
      h("p.lede", t("home.created.lede")),
      sharePanel(keys),
      h("div.form-actions", go))));
  /** @type {HTMLElement | null} */ (root.querySelector("#created-title"))?.focus();
}
