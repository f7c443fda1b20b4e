// @ts-check
// Every string the page shows comes from here: one dictionary per language (es.js, en.js, pt.js),
// the same keys in each (a test checks it). Missing keys are collected, never silently blank.
import es from "./es.js";
import en from "./en.js";
import pt from "./pt.js";
import { exposeForTests } from "../js/test-hooks.js";

/** @type {Record<string, Record<string, string>>} */
export const LANGUAGES = { es, en, pt };
const STORAGE_KEY = "cuarenta.lang";

/** Keys asked for but absent in the current language: the browser tests assert it stays empty. */
export const missing = new Set();
exposeForTests("__cuarentaMissingStrings", missing);

let current = "es";

/**
 * Pick the language: an explicit ?lang=, then the player's earlier choice, then the browser's
 * preferences (Spanish for Spanish-speaking browsers), else English.
 */
export function detectLanguage(search = location.search, preferred = navigator.languages) {
  const asked = new URLSearchParams(search).get("lang");
  if (asked && asked in LANGUAGES) return asked;
  const saved = safeStorageGet(STORAGE_KEY);
  if (saved && saved in LANGUAGES) return saved;
  for (const tag of preferred || []) {
    const base = tag.toLowerCase().split("-")[0];
    if (base in LANGUAGES) return base;
  }
  return "en";
}

/** @param {string} lang */
export function setLanguage(lang, { remember = false } = {}) {
  current = lang in LANGUAGES ? lang : "en";
  document.documentElement.lang = current;
  if (remember) safeStorageSet(STORAGE_KEY, current);
}

export function language() {
  return current;
}

/** Translate `key`, filling {name} placeholders from `params`. */
/** @param {string} key @param {Record<string, string | number>} [params] @returns {string} */
export function t(key, params = {}) {
  const text = LANGUAGES[current][key];
  if (text === undefined) {
    missing.add(`${current}:${key}`);
    return `⟦${key}⟧`;
  }
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/** @type {Record<string, string>} */
const LOCALES = { es: "es-EC", en: "en", pt: "pt-BR" };

/** @type {Map<string, Intl.NumberFormat>} */
const numberFormats = new Map();

/**
 * A number written the chosen language's way: 10.038 in es and pt, 10,038 in en. One formatter
 * per language: making one costs more than the table's whole redraw around it.
 * @param {number} n
 */
export function formatNumber(n) {
  const locale = LOCALES[current] ?? current;
  let format = numberFormats.get(locale);
  if (!format) {
    format = new Intl.NumberFormat(locale);
    numberFormats.set(locale, format);
  }
  return format.format(n);
}

/** Like t(), choosing "key.one" or "key.other" by count (enough for es, en and pt). */
/** @param {string} key @param {number} count @param {Record<string, string | number>} [params] */
export function tn(key, count, params = {}) {
  return t(`${key}.${count === 1 ? "one" : "other"}`, { count, ...params });
}

/** @param {string} key */
function safeStorageGet(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** @param {string} key @param {string} value */
function safeStorageSet(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    /* private mode: the choice lasts for this page only */
  }
}
