// Every string the page shows comes from here: one dictionary per language (es.js, en.js, pt.js),
// the same keys in each (a test checks it). Missing keys are collected, never silently blank.
import es from "./es.js";
import en from "./en.js";
import pt from "./pt.js";

export const LANGUAGES = { es, en, pt };
const STORAGE_KEY = "cuarenta.lang";

/** Keys asked for but absent in the current language: the browser tests assert it stays empty. */
export const missing = new Set();
globalThis.__cuarentaMissingStrings = missing;

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

export function setLanguage(lang, { remember = false } = {}) {
  current = lang in LANGUAGES ? lang : "en";
  document.documentElement.lang = current;
  if (remember) safeStorageSet(STORAGE_KEY, current);
}

export function language() {
  return current;
}

/** Translate `key`, filling {name} placeholders from `params`. */
export function t(key, params = {}) {
  const text = LANGUAGES[current][key];
  if (text === undefined) {
    missing.add(`${current}:${key}`);
    return `⟦${key}⟧`;
  }
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

const LOCALES = { es: "es-EC", en: "en", pt: "pt-BR" };

/** A number written the chosen language's way: 10.038 in es and pt, 10,038 in en. */
export function formatNumber(n) {
  return new Intl.NumberFormat(LOCALES[current] ?? current).format(n);
}

/** Like t(), choosing "key.one" or "key.other" by count (enough for es, en and pt). */
export function tn(key, count, params = {}) {
  return t(`${key}.${count === 1 ? "one" : "other"}`, { count, ...params });
}

function safeStorageGet(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function safeStorageSet(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    /* private mode: the choice lasts for this page only */
  }
}
