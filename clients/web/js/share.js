// @ts-check
// The table's links as people share them: copy buttons, and a QR code of the join link so
// players sitting at the same physical table join from their phones.
import qrcode from "/vendor/qrcode.mjs";
import { h, s } from "./dom.js";
import { t } from "../i18n/index.js";

/** @param {string} key */
export function tableUrl(key) {
  return `${location.origin}/t/${encodeURIComponent(key)}`;
}

/** A QR code drawn as SVG squares (error correction M survives a phone camera at a distance). */
/** @param {string} text @param {string} label */
export function qrCode(text, label) {
  const qr = qrcode(0, "M");
  qr.addData(text);
  qr.make();
  const n = qr.getModuleCount();
  const quiet = 4;
  const size = n + quiet * 2;
  const path = [];
  for (let row = 0; row < n; row += 1) {
    for (let col = 0; col < n; col += 1) {
      if (qr.isDark(row, col)) path.push(`M${col + quiet} ${row + quiet}h1v1h-1z`);
    }
  }
  return s("svg", { viewBox: `0 0 ${size} ${size}`, class: "qr", role: "img", "aria-label": label,
    "shape-rendering": "crispEdges" },
  s("rect", { width: size, height: size, fill: "#fff" }),
  s("path", { d: path.join(""), fill: "#111" }));
}

/** @param {string} text @param {HTMLElement} button */
async function copy(text, button) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // No clipboard permission (plain http on a LAN): select the text so a long-press copies it.
    const field = button.closest(".link-row")?.querySelector("input");
    field?.select();
  }
  button.textContent = t("share.copied");
  setTimeout(() => { button.textContent = t("share.copy"); }, 1500);
}

/** One link with its label, a read-only field (selectable on phones) and a copy button. */
/** @param {string} kind @param {string} url */
export function linkRow(kind, url) {
  const id = `link-${kind}`;
  const button = h("button.btn.btn-quiet", { type: "button", dataset: { focus: `copy-${kind}` } },
    t("share.copy"));
  button.addEventListener("click", () => copy(url, button));
  return h("div.link-row", { dataset: { link: kind } },
    h("label", { for: id }, t(`share.${kind}`)),
    h("div.link-field",
      h("input", { id, type: "text", readonly: true, value: url, onfocus: (/** @type {{target: HTMLInputElement}} */ e) => e.target.select() }),
      button),
    h("p.hint", t(`share.${kind}.hint`)));
}

/** Join link, watch link, the host link (once, for whoever created the table) and the join QR. */
/** @param {{join: string, watch: string, host?: string}} keys */
export function sharePanel(keys) {
  const join = tableUrl(keys.join);
  const watch = tableUrl(keys.watch);
  return h("section.share", { "aria-label": t("share.title") },
    h("div.share-links", linkRow("join", join), linkRow("watch", watch),
      keys.host ? linkRow("host", tableUrl(keys.host)) : null),
    h("figure.share-qr", qrCode(join, t("share.qr")), h("figcaption", t("share.qr"))));
}
