// Brief banners for events worth a glance ("Norte hace caída: +2"); the log keeps them all.
import { h } from "./dom.js";

const SHOW_MS = 3200;
const MAX_VISIBLE = 3;

export function toast(text, kind = "info") {
  const box = document.querySelector("#toasts");
  if (!box) return;
  const item = h(`div.toast.toast-${kind}`, { role: kind === "error" ? "alert" : null }, text);
  box.append(item);
  while (box.children.length > MAX_VISIBLE) box.firstElementChild.remove();
  setTimeout(() => item.remove(), SHOW_MS);
}
