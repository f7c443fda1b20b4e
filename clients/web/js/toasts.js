// Brief notices for events worth a glance ("Ana hace caída: +2"), in their own strip under the
// top bar: in the page's flow, so a notice can never cover a seat, a score or the hand. The
// strip shows the newest notice of each lane (a warning for this person, a chat line, the
// table's news), so a chat line is not pushed out by the next caída; the log keeps them all.
import { h } from "./dom.js";

const SHOW_MS = 4000;
const MAX_VISIBLE = 1;

export function toast(text, kind = "info") {
  const box = document.querySelector("#toasts");
  if (!box) return;
  // A warning for this person ("a bot played for you") is not pushed out by the table's news.
  const urgent = kind === "warn" || kind === "error";
  const lane = urgent ? "urgent" : kind === "chat" ? "chat" : "news";
  const item = h(`div.toast.toast-${kind}`, { role: kind === "error" ? "alert" : null, title: text,
    dataset: { urgent: String(urgent), lane } }, text);
  box.append(item);
  const same = [...box.children].filter((el) => el.dataset.lane === lane);
  while (same.length > MAX_VISIBLE) same.shift().remove();
  setTimeout(() => item.remove(), urgent ? SHOW_MS * 2 : SHOW_MS);
}

/** Clear the strip: a language switch or a new page must not leave an old sentence behind. */
export function clearToasts() {
  document.querySelector("#toasts")?.replaceChildren();
}
