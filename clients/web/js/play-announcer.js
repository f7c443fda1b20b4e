// @ts-check
// Every line the log tells (the same words, js/event-text.js) said politely to screen readers as
// it happens, through index.html's live region: a line is added, never replaced, so plays that
// arrive together are all read; only the last few are kept.

const KEEP = 6;

/** @param {string} text */
export function announcePlay(text) {
  const region = document.querySelector("#plays-live");
  if (!region || !text) return;
  const line = document.createElement("p");
  line.textContent = text;
  region.append(line);
  while (region.children.length > KEEP) region.firstElementChild?.remove();
}
