// @ts-check
// The connection's state in the top bar ("reconnecting in 3 s"), and the screens that replace
// the table when there is none to show: a table that is gone, a table that cannot be opened.
import { h, renderInto } from "./dom.js";
import { t } from "../i18n/index.js";

/** @typedef {import("./model-types.js").Model} Model */

/**
 * @param {Model} model
 * @param {number | undefined} retryAt when the connection tries again (ms since the epoch)
 */
export function statusText(model, retryAt) {
  if (model.status === "open") return "";
  if (model.status === "lost" && retryAt) {
    return t("status.retrying", { s: Math.max(1, Math.ceil((retryAt - Date.now()) / 1000)) });
  }
  return t(`status.${model.status}`);
}

/**
 * @param {HTMLElement} root
 * @param {Model} model
 * @param {number | undefined} retryAt
 */
export function drawStatus(root, model, retryAt) {
  const status = /** @type {HTMLElement | null} */ (document.querySelector("#status"));
  if (!status) return;
  status.dataset.status = model.status;
  status.textContent = statusText(model, retryAt);
  const loading = root.querySelector(".loading");
  if (loading && model.status !== "open") loading.textContent = statusText(model, retryAt) || t("status.connecting");
}

/**
 * The table no longer exists (a server restart on the memory store, or an expired table): say
 * so plainly and offer a new table (the home page keeps the name).
 * @param {HTMLElement} root
 */
export function drawGone(root) {
  document.body.classList.remove("screen-mode");
  renderInto(root, h("div.home", h("section.created.table-gone",
    h("h1#gone-title", t("gone.title")), h("p.lede", t("gone.text")),
    h("div.form-actions", h("a#new-table.btn.btn-primary", { href: "/" }, t("gone.newTable"))),
    h("p.hint", t("gone.hint")))));
}

/** @param {HTMLElement} root @param {string} reason */
export function drawFailure(root, reason) {
  renderInto(root, h("div.home", h("section.created",
    h("h1", t("table.unavailable")), h("p.lede", reason), h("a.btn.btn-primary", { href: "/" },
      t("table.backHome")))));
}

/** Tell screen-reader users it is their move (the banner is for eyes, this for ears). */
/** @param {string} text */
export function announce(text) {
  const region = document.querySelector("#announcer");
  if (region && text) region.textContent = text;
}
