// @ts-check
// The misclick guard (a setting, off by default): a play chosen is shown selected with a «Jugar»
// button, and nothing is sent until it is pressed; «Cambiar» lets go of it. The switch sits under the chat.
import { h } from "./dom.js";
import { t } from "../i18n/index.js";
import { cardName } from "./cards.js";

/** @typedef {import("./model-types.js").TableModel} TableModel */
/** @typedef {import("./wire.js").LegalAction} LegalAction */

/** The held play in words: "Llevar 7 de corazones, 3 de picas" / "Tirar 5 de oros". */
/** @param {TableModel} model @param {LegalAction} action */
export function heldWords(model, action) {
  const take = action.take || [];
  if (take.length) return t("action.captureThese", { cards: take.map(cardName).join(", ") });
  return t(model.table.seats === 2 ? "action.trail2p" : "action.trail", { card: cardName(String(action.card)) });
}

/**
 * The action bar's part while a play waits for its confirmation.
 * @param {TableModel} model
 * @param {LegalAction} held
 * @param {{confirm: () => void, release: () => void}} how
 */
export function heldChoices(model, held, { confirm, release }) {
  return [
    h("p.prompt.is-held", t("confirm.prompt", { move: heldWords(model, held) })),
    h("div.choices",
      h("button#confirm-play.btn.btn-primary", {
        type: "button", dataset: { focus: "confirm-play", action: "confirm-play" }, onclick: confirm,
      }, t("confirm.play")),
      h("button#confirm-change.btn.btn-quiet", {
        type: "button", dataset: { focus: "confirm-change" }, onclick: release,
      }, t("confirm.change"))),
  ];
}

/** The guard's switch, under the chat (the toolbar is full on a phone). @param {TableModel} model @param {() => void} toggle */
export function confirmSwitch(model, toggle) {
  if (model.role !== "player") return null;
  return h("div.panel.prefs-panel",
    h("button#confirm-toggle.btn.btn-small.btn-quiet", {
      type: "button", "aria-pressed": String(model.confirmPlays), dataset: { focus: "confirm-toggle" },
      title: t("confirm.setting.tooltip"), onclick: toggle,
    }, t("confirm.setting")),
    h("p.hint", t("confirm.setting.tooltip")));
}
