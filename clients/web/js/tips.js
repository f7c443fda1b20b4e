// @ts-check
// How to play and tips (/?tips), in the game's own words: a short page for the solo player.
import { h, renderInto } from "./dom.js";
import { t } from "../i18n/index.js";

const HOW_TO = ["deal", "capture", "sum", "sequence", "caida", "limpia", "ronda", "count", "end"];
const TIPS = ["gold", "ronda30", "limpia38", "caida", "figures", "trail", "ladder"];

/** @param {HTMLElement} root */
export function renderTips(root) {
  renderInto(root, h("article.tips-page", { "aria-labelledby": "tips-title" },
    h("h1#tips-title", t("tips.title")),
    h("p.lede", t("tips.lede")),
    h("section", { "aria-labelledby": "howto-title" },
      h("h2#howto-title", t("tips.howto")),
      h("ol.tips-list", HOW_TO.map((key) => h("li", { dataset: { tip: key } }, t(`tips.howto.${key}`))))),
    h("section", { "aria-labelledby": "advice-title" },
      h("h2#advice-title", t("tips.advice")),
      h("ul.tips-list", TIPS.map((key) => h("li", { dataset: { tip: key } }, t(`tips.advice.${key}`))))),
    h("p", h("a.btn.btn-primary", { href: "/?solo" }, t("tips.play")))));
  return () => renderTips(root);
}
