// @ts-check
// /me's smaller parts: the name and language, the ratings and the leaderboard, the tables the
// person sits at now, the move link to another device (with its QR code) and "forget me".
import { h } from "./dom.js";
import { LANGUAGES, t, tn } from "../i18n/index.js";
import { remember } from "./storage.js";
import { moveLink } from "./player.js";
import { qrCode } from "./share.js";

/** @typedef {import("./wire.js").Message} Message */

/** @param {Message} me @param {(change: {name?: string, language?: string}) => void} save */
export function profileSection(me, save) {
  const name = /** @type {HTMLInputElement} */ (h("input#me-name", { name: "name", maxlength: 32,
    autocomplete: "nickname", value: me.name, required: true }));
  const lang = /** @type {HTMLSelectElement} */ (h("select#me-language", { name: "language" },
    Object.keys(LANGUAGES).map((code) => h("option", { value: code, selected: code === me.language },
      LANGUAGES[code]["app.languageName"]))));
  return h("section.me-head", { "aria-labelledby": "me-title" },
    h("div.me-who",
      h("span.me-avatar", { "aria-hidden": "true" }, (me.name || "?").slice(0, 1).toUpperCase()),
      h("div", h("h1#me-title", h("span#me-shown-name", me.name)), ratingChips(me))),
    h("details.me-edit", h("summary", t("me.edit")),
      h("form.me-profile", { onsubmit: (/** @type {Event} */ e) => {
        e.preventDefault();
        const change = {};
        if (name.value.trim() && name.value.trim() !== me.name) Object.assign(change, { name: name.value.trim() });
        if (lang.value !== me.language) Object.assign(change, { language: lang.value });
        if (Object.keys(change).length) save(change);
      } },
      h("div.field", h("label", { for: "me-name" }, t("me.name")), name),
      h("div.field", h("label", { for: "me-language" }, t("app.language")), lang),
      h("button#me-save.btn", { type: "submit" }, t("me.save")))));
}

/** The ratings as the header shows them: each class, its rating and its rated games. @param {Message} me */
function ratingChips(me) {
  /** @type {{profile_class: string, rating: number, games: number}[]} */
  const ratings = me.ratings || [];
  return h("ul.me-rating-list", { "aria-label": t("me.ratings") }, ["pairs", "duel"].map((kind) => {
    const line = ratings.find((r) => r.profile_class === kind);
    return h("li.me-rating", { dataset: { kind } }, h("span.me-rating-class", t(`me.class.${kind}`)),
      h("strong", String(line?.rating ?? 1000)), h("span.hint", tn("me.games", line?.games ?? 0)));
  }));
}

/** @param {Message} me @param {Record<string, Message>} boards */
export function ratingsSection(me, boards) {
  const board = (/** @type {string} */ kind) => {
    const lines = boards[kind]?.lines || [];
    return h("div.me-board", { dataset: { kind } }, h("h3", t(`me.class.${kind}`)),
      lines.length ? h("ol.me-leaders", lines.map((/** @type {any} */ line) => h("li", {
        class: line.id === me.id ? "is-you" : null, dataset: { player: line.id } },
      h("span.me-rank", line.rank), h("span.me-leader-name", line.name),
      h("strong", String(line.rating)), h("span.hint", tn("me.games", line.games)))))
        : h("p.hint", t("me.boardEmpty", { games: boards[kind]?.min_games ?? "" })));
  };
  return h("section.panel.me-section.me-ratings", { "aria-labelledby": "me-ratings-title" },
    h("h2#me-ratings-title", t("me.leaderboard")),
    h("div.me-boards", board("pairs"), board("duel")));
}

/** The tables this browser holds a seat at: a link back to each. */
export function tablesSection() {
  const keys = remember.heldTables();
  return h("section.panel.me-section.me-tables", { "aria-labelledby": "me-tables-title" },
    h("h2#me-tables-title", t("me.tables")),
    keys.length ? h("ul.me-list", keys.map((key, i) => h("li",
      h("a.btn.btn-small", { href: `/t/${encodeURIComponent(key)}` }, t("me.backTo", { n: i + 1 })))))
      : h("p.hint", t("me.noTables"), " ", h("a", { href: "/" }, t("me.newTable"))));
}

/** "Use on another device" (the move link, folded, with its QR) and "forget me". @param {() => void} forget */
export function deviceSection(forget) {
  const link = moveLink();
  return h("section.panel.me-section.me-device", { "aria-labelledby": "me-device-title" },
    h("h2#me-device-title", t("me.device")),
    link ? h("details.me-move", h("summary#me-move", t("me.move")),
      h("p.hint", t("me.move.hint")),
      h("input#me-move-link", { type: "text", readonly: true, value: link, "aria-label": t("me.move"),
        onfocus: (/** @type {{target: HTMLInputElement}} */ e) => e.target.select() }),
      h("figure.share-qr", qrCode(link, t("me.move.qr")), h("figcaption", t("me.move.qr")))) : null,
    h("h3", t("me.forget")),
    h("p.hint", t("me.forget.hint")),
    h("button#me-forget.btn.btn-danger", { type: "button", onclick: forget }, t("me.forget")));
}
