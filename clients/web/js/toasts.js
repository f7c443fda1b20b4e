// Brief notices for events worth a glance ("Ana hace caída: +2"), in their own strip under the
// top bar: in the page's flow, so a notice can never cover a seat, a score or the hand. The
// strip shows the newest notice; the log keeps them all.
import { h } from "./dom.js";

const SHOW_MS = 4000;
const MAX_VISIBLE = 1;

export function toast(text, kind = "info") {
  const box = document.querySelector("#toasts");
  if (!box) return;
  const item = h(`div.toast.toast-${kind}`, { role: kind === "error" ? "alert" : null, title: text }, text);
  box.append(item);
  while (box.children.length > MAX_VISIBLE) box.firstElementChild.remove();
  setTimeout(() => item.remove(), SHOW_MS);
}

/** Clear the strip: a language switch or a new page must not leave an old sentence behind. */
export function clearToasts() {
  document.querySelector("#toasts")?.replaceChildren();
}
