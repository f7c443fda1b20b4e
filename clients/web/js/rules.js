// @ts-check
// The rules of the three games (rules.html?game=<profile>): four players in partnerships
// (pagat-4p), heads-up against the bots and free two-player (R14), each with what it shares with
// the others (R2, R7, R9, R11) and what is its own. The game asked for is the one open; every
// word of the game's own (caída, limpia, ronda, tantos and perros) opens with a tap, as a
// <details>, never a hover-only tooltip a phone cannot show.
import { h, renderInto } from "./dom.js";
import { t } from "../i18n/index.js";
import { pageChrome } from "./page-chrome.js";

/** Each game's own rules, in the order a newcomer needs them. */
const OWN = {
  "pagat-4p": ["players", "deal", "capture", "ronda", "cuarenta", "r38", "award", "end"],
  "heads-up": ["players", "deal", "capture", "ronda", "four", "r38", "end"],
  "libre-2p": ["players", "deal", "capture", "ronda", "four", "r38", "end"],
};
/** @type {Record<string, string>} */
const PREFIX = { "pagat-4p": "rules.4p", "heads-up": "rules.hu", "libre-2p": "rules.l2" };
const SHARED = ["cards", "capture", "sum", "sequence", "caida", "limpia", "count"];
const WORDS = ["caida", "limpia", "ronda", "tantos"];

function asked() {
  const game = new URLSearchParams(location.search).get("game") || "";
  return game in OWN ? game : null;
}

/** One game: its own rules, then the ones all three share. @param {string} game @param {boolean} open */
function gameSection(game, open) {
  const own = OWN[/** @type {keyof typeof OWN} */ (game)];
  return h("details.rules-game", { id: game, open: open || null, dataset: { game } },
    h("summary", h("h2", t(`profile.${game}`))),
    h("ol.tips-list.rules-own", own.map((key) => h("li", { dataset: { rule: key } }, t(`${PREFIX[game]}.${key}`)))),
    h("h3", t("rules.shared")),
    h("ol.tips-list.rules-shared", SHARED.map((key) => h("li", { dataset: { rule: key } }, t(`rules.all.${key}`)))));
}

/** The game's words, each opened by a tap. */
function glossary() {
  return h("section.rules-words", { "aria-labelledby": "rules-words-title" },
    h("h2#rules-words-title", t("rules.words")),
    WORDS.map((word) => h("details.rules-word", { id: `word-${word}` },
      h("summary", t(`rules.word.${word}`)), h("p", t(word === "tantos" ? "tally.tooltip" : `rules.all.${word}`)))));
}

function draw() {
  const root = /** @type {HTMLElement} */ (document.querySelector("#main"));
  const game = asked();
  document.title = game ? `${t("rules.title")} · ${t(`profile.${game}`)}` : t("rules.title");
  renderInto(root, h("article.tips-page.rules", { "aria-labelledby": "rules-title", dataset: { game: game || "" } },
    h("h1#rules-title", game ? t("rules.titleOf", { game: t(`profile.${game}`) }) : t("rules.title")),
    h("p.lede", t("rules.lede")),
    h("nav.rules-nav", { "aria-label": t("rules.games") }, Object.keys(OWN).map((g) =>
      h("a.btn.btn-small", { href: `/rules.html?game=${g}`, "aria-current": g === game ? "page" : null },
        t(`profile.${g}`)))),
    Object.keys(OWN).map((g) => gameSection(g, game ? g === game : g === "pagat-4p")),
    glossary(),
    h("p", h("a.btn.btn-primary", { href: "/" }, t("rules.play")), " ",
      h("a.btn", { href: "/tables" }, t("lobby.link")))));
}

pageChrome(draw);
draw();
