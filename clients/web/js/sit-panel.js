// @ts-check
// Before the start, a visitor watching through the join link chooses a chair under a name: the
// free chairs around the table say with whom and against whom each one plays (seat-choice.js),
// a click on one sits there, and "any chair" (this panel's button) takes the first free one.
// What is typed survives the redraws that others' arrivals cause: the view keeps it.
import { h } from "./dom.js";
import { t } from "../i18n/index.js";
import { remember } from "./storage.js";
import { paceNote } from "./pace.js";

/** @typedef {import("./model-types.js").Model} Model */

/** @param {(name: string) => void} sit sit down under `name` in the first free chair */
export function sitPanelView(sit) {
  /** @type {string | null} the name being typed */
  let typed = null;

  /** @param {Model} model */
  function draw(model) {
    const table = model.table;
    if (!table || model.role !== "spectator" || !model.canSit || model.joinRefused || table.started) {
      return null; // a watch link's viewer is not offered a chair the server would refuse
    }
    if (!table.occupants.some((o) => o.empty)) return null;
    if (typed === null) typed = remember.name();
    const input = /** @type {HTMLInputElement} */ (h("input#sit-name", { maxlength: 32,
      autocomplete: "nickname", required: true, value: typed, dataset: { focus: "sit-name" },
      oninput: (/** @type {Event} */ event) => { typed = /** @type {HTMLInputElement} */ (event.target).value; } }));
    return h("form.panel.sit-panel", {
      "aria-labelledby": "sit-title",
      onsubmit: (/** @type {Event} */ event) => {
        event.preventDefault();
        const name = input.value.trim();
        if (name) sit(name);
      },
    },
    h("h2#sit-title", t("sit.title")),
    paceNote(model), // a turn-based table's time per move and its rule, before anyone sits
    h("div.sit-row",
      h("div.field", h("label", { for: "sit-name" }, t("home.name")), input),
      h("button.btn", { type: "submit", id: "sit-down" }, t("sit.button"))),
    h("p.hint", t(table.seats === 4 ? "sit.hint" : "sit.hint.two", { button: t("seat.sitHere") })));
  }
  return { draw };
}

/**
 * A redraw put the focus back in the name field: the caret goes back after what was typed.
 * @param {HTMLElement} root
 */
export function keepCaretAtEnd(root) {
  const input = /** @type {HTMLInputElement | null} */ (root.querySelector("#sit-name"));
  if (input && document.activeElement === input) input.setSelectionRange(input.value.length, input.value.length);
}
