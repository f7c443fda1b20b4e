// @ts-check
// The top bar of the pages outside the table (the replay, the lobby, the rules): the brand, the
// lobby, the rules and the language (es/en/pt), as the table page has them. A language chosen
// here is remembered for the next pages, and the page is redrawn in it at once.
import { LANGUAGES, detectLanguage, language, setLanguage, t } from "../i18n/index.js";
import { h, renderInto } from "./dom.js";

/**
 * Fill the page's `header.topbar` and pick the language; `redraw` runs after a change.
 * @param {() => void} redraw
 * @param {{rules?: string}} [links] the rules page to point at (a game's own, from a replay)
 */
export function pageChrome(redraw, links = {}) {
  setLanguage(detectLanguage(), { remember: new URLSearchParams(location.search).has("lang") });
  const bar = /** @type {HTMLElement | null} */ (document.querySelector("header.topbar"));
  if (!bar) return;
  const fill = () => {
    renderInto(bar,
      h("a.brand", { href: "/" }, h("span.brand-mark", { "aria-hidden": "true" }, "40"),
        h("span.brand-name", "Cuarenta")),
      h("span.topbar-status"),
      h("a#tables-link.topbar-rules", { href: "/tables" }, t("lobby.link")),
      h("a#rules-link.topbar-rules", { href: links.rules || "/rules.html" }, t("rules.link")),
      h("label.lang-picker", h("span#lang-label.visually-hidden", t("app.language")),
        h("select#lang", { "aria-labelledby": "lang-label", onchange: (/** @type {{target: HTMLSelectElement}} */ e) => {
          setLanguage(e.target.value, { remember: true });
          fill();
          redraw();
        } }, Object.keys(LANGUAGES).map((code) => h("option", { value: code, selected: code === language() },
          LANGUAGES[code]["app.languageName"])))));
  };
  fill();
}
