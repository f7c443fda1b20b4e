// @ts-check
// The one door the browser tests open into a page (tests/web, tests/server/ladder): each page
// hands what its tests read to `exposeForTests`, which puts it on globalThis under one name. A
// page never reads these back; nothing else in the client sets a global.

/**
 * The names the tests use: the table page's model with its socket drop and request (`__cuarenta`),
 * the strings asked for but missing in the language (`__cuarentaMissingStrings`), the replay's
 * state (`__replay`), how many games wait for the person as the home page was told (`__cuarentaHome`).
 * @typedef {"__cuarenta" | "__cuarentaMissingStrings" | "__replay" | "__cuarentaMe" | "__pocket"
 *   | "__cuarentaHome"} HookName
 */

/** @param {HookName} name @param {unknown} value */
export function exposeForTests(name, value) {
  /** @type {Record<string, unknown>} */ (globalThis)[name] = value;
}
