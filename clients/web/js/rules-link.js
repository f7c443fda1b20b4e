// @ts-check
// The top bar's Rules link opens the rules of the game on screen: a four-player table's link
// opens the four-player rules, a heads-up table's the heads-up ones (rules.html?game=<profile>).
const PROFILES = ["pagat-4p", "heads-up", "libre-2p"];

/** The rules page of `profile` (the three games' page when it is none of them). @param {string | null | undefined} profile */
export function rulesHref(profile) {
  return profile && PROFILES.includes(profile) ? `/rules.html?game=${profile}` : "/rules.html";
}

/** Point the page's Rules link at `profile`'s rules (idempotent: the views call it as they draw). @param {string | null | undefined} profile */
export function pointRulesAt(profile) {
  const link = document.querySelector("#rules-link");
  const href = rulesHref(profile);
  if (link && link.getAttribute("href") !== href) link.setAttribute("href", href);
}
