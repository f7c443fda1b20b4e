// @ts-check
// The table's chat: players talk to the whole table, spectators among spectators
// only — the server keeps the two apart (PROTOCOL.md `chat`), this panel shows which is which.
// One persistent panel: each redraw of the table moves the same node into the side column, so
// a line being typed, the scroll position and the focus survive the game's updates. Every name
// and line is set as text (h() makes text nodes), never parsed as markup.
import { h } from "./dom.js";
import { t } from "../i18n/index.js";
import { toast } from "./toasts.js";

const KEEP = 100;
const QUICK_WORDS = ["chat.quick.nice", "chat.quick.caida", "chat.quick.laugh", "chat.quick.wow",
  "chat.quick.gg"];
const PHONE = "(max-width: 720px)";

/**
 * @param {{request: (message: import("./wire.js").Message) => Promise<import("./wire.js").Message>, model: import("./model-types.js").Model}} table
 * @returns {{element: HTMLElement, receive: (line: import("./wire.js").Message) => void,
 *   restore: (kept: import("./model-types.js").ChatLine[]) => void, refresh: () => void}}
 */
export function openChat({ request, model }) {
  /** @type {import("./wire.js").Message[]} */
  const lines = [];
  let unread = 0;
  const list = h("ol.chat-lines", { "aria-live": "polite", "aria-label": t("chat.lines"), tabindex: "0" });
  const note = h("p.chat-note", { role: "status" });
  const input = /** @type {HTMLInputElement} */ (h("input#chat-input", {
    maxlength: 280, autocomplete: "off", dataset: { focus: "chat-input" }, enterkeyhint: "send",
  }));
  const target = h("span.chat-target");
  const counter = h("span.chat-unread");
  const title = h("span.chat-title");
  const summary = h("summary.chat-summary", title, counter);
  const quick = h("div.chat-quick");
  const form = h("form.chat-form", { onsubmit: (/** @type {Event} */ event) => { event.preventDefault(); say(input.value); } },
    h("label.visually-hidden", { for: "chat-input" }), input,
    h("button.btn.btn-small", { type: "submit", id: "chat-send" }));
  const element = /** @type {HTMLDetailsElement} */ (h("details#chat.panel.chat-panel", { open: !matchMedia(PHONE).matches },
    summary, h("div.chat-body", list, note, quick, target, form)));
  element.addEventListener("toggle", () => { if (element.open) { unread = 0; refresh(); } });
  /** @type {string | null} */
  let lastSaid = null;

  /** @param {string} text */
  async function say(text) {
    const line = text.trim();
    if (!line) return;
    try {
      lastSaid = line;
      await request({ type: "chat", text: line });
      if (line === input.value.trim()) input.value = "";
      note.textContent = "";
    } catch (caught) {
      const error = /** @type {import("./wire.js").Refusal} */ (caught);
      // The rate limit is a pause, not a failure: say so calmly, keep what was typed.
      note.textContent = error.code === "rate_limited" ? t("chat.slowDown") : t("chat.notSent");
      note.dataset.kind = error.code === "rate_limited" ? "calm" : "problem";
    }
  }

  /** @param {import("./wire.js").Message} message */
  function receive(message) {
    lines.push(message);
    if (lines.length > KEEP) lines.splice(0, lines.length - KEEP);
    if (!element.open) unread += 1;
    const item = lineOf(message);
    list.append(item);
    while (list.children.length > KEEP) list.firstElementChild?.remove();
    list.scrollTop = list.scrollHeight;
    // Folded, scrolled out of the side column, or below the table on a phone: a line its reader
    // cannot see there is told in the notice strip.
    const own = message.text === lastSaid && (message.seat ?? null) === (model.you ?? null);
    if (!own && !onScreen(item)) toast(t("chat.notice", { name: message.name, text: message.text }), "chat");
    refresh();
  }

  /**
   * The lines a whole snapshot kept for this viewer (a reload, a second tab, a resume): they
   * replace those shown, told neither as new nor in a notice.
   * @param {import("./model-types.js").ChatLine[]} kept
   */
  function restore(kept) {
    const same = kept.length === lines.length && kept.every((line, i) =>
      line.text === lines[i].text && line.name === lines[i].name && line.channel === lines[i].channel);
    if (same) return;
    lines.splice(0, lines.length, ...kept.map((line) => ({ type: "chat", ...line })));
    list.replaceChildren(...lines.map(lineOf));
    list.scrollTop = list.scrollHeight;
  }

  /** Whether any of `el` shows: inside the window and every clipping box around it (none if closed). */
  /** @param {Element} el */
  function onScreen(el) {
    // A folded chat's lines still have boxes in chromium (details hides them unrendered).
    if (!element.open) return false;
    let { left, top, right, bottom } = el.getBoundingClientRect();
    if (right - left < 1 || bottom - top < 1) return false;
    for (let box = el.parentElement; box; box = box.parentElement) {
      if (getComputedStyle(box).overflow === "visible") continue;
      const r = box.getBoundingClientRect();
      left = Math.max(left, r.left); top = Math.max(top, r.top);
      right = Math.min(right, r.right); bottom = Math.min(bottom, r.bottom);
    }
    return right > Math.max(left, 0) && bottom > Math.max(top, 0) && left < innerWidth && top < innerHeight;
  }

  /** @param {import("./wire.js").Message} message */
  function lineOf(message) {
    const spectator = message.channel === "spectators";
    const who = message.name;
    return h(`li.chat-line.chat-${message.channel}`, { dataset: { channel: message.channel,
      team: message.seat != null ? String(message.seat % 2) : "" } },
    h("span.chat-who", who), spectator ? h("span.chat-tag", t("chat.spectatorTag")) : null,
    h("span.chat-text", message.text));
  }

  /** Words that depend on the language and on who we are (a player or a spectator). */
  function refresh() {
    const spectator = model.role === "spectator";
    // Read while watching, then seated: a player's panel keeps the table's lines only.
    if (model.role === "player" && lines.some((line) => line.channel === "spectators")) {
      restore(lines.filter((line) => line.channel !== "spectators")
        .map((line) => ({ channel: line.channel, name: line.name, seat: line.seat, text: line.text })));
    }
    title.textContent = t("chat.title");
    counter.textContent = unread ? t("chat.unread", { count: unread }) : "";
    target.textContent = spectator ? t("chat.toSpectators") : t("chat.toTable");
    input.placeholder = spectator ? t("chat.placeholderSpectator") : t("chat.placeholder");
    const label = form.querySelector("label");
    if (label) label.textContent = t("chat.label");
    const send = form.querySelector("button");
    if (send) send.textContent = t("chat.send");
    list.setAttribute("aria-label", t("chat.lines"));
    quick.replaceChildren(...QUICK_WORDS.map((word) => {
      const text = t(word);
      return h("button.btn.btn-small.btn-quiet.chat-react", { type: "button", onclick: () => say(text) }, text);
    }));
    quick.setAttribute("aria-label", t("chat.quick"));
  }

  refresh();
  return { element, receive, restore, refresh };
}
