// @ts-check
// The host's warning that the server's disk is nearly full (issue 43). The page asks /readyz now
// and then (it is public and holds no key) and reads its `key: value` lines (server/disk.py):
// `disk: low|full`, `disk_free_bytes: N`, `store: not writing (...)`; a 503 "storage unavailable"
// means the store does not answer. The banner says what it means and what to do.
import { h } from "./dom.js";
import { language, t } from "../i18n/index.js";

export const DISK_POLL_MS = 15000;

/** @typedef {{disk: string, free: number | null, writing: boolean, reachable: boolean}} DiskState */

/** @type {DiskState} */
export const DISK_FINE = { disk: "ok", free: null, writing: true, reachable: true };

/** /readyz's answer as a state. @param {number} status @param {string} text @returns {DiskState} */
export function diskState(status, text) {
  /** @type {Record<string, string>} */
  const fields = {};
  for (const line of text.split("\n")) {
    const at = line.indexOf(": ");
    if (at > 0) fields[line.slice(0, at)] = line.slice(at + 2);
  }
  const free = fields.disk_free_bytes ? Number(fields.disk_free_bytes) : null;
  return {
    disk: fields.disk === "low" || fields.disk === "full" ? fields.disk : "ok",
    free: Number.isFinite(free) ? free : null,
    writing: !(fields.store || "").startsWith("not writing"),
    reachable: !(status === 503 && text.startsWith("storage unavailable")),
  };
}

/** Ask /readyz once; a page that cannot reach the server at all keeps what it knew. */
/** @returns {Promise<DiskState | null>} */
export async function readDisk() {
  try {
    const answer = await fetch("/readyz", { cache: "no-store" });
    return diskState(answer.status, await answer.text());
  } catch {
    return null;
  }
}

/** Bytes as "850 MB" or "12.5 GB", the language's way. @param {number} bytes */
export function sizeText(bytes) {
  const giga = bytes >= 1e10;
  const locale = { es: "es-EC", en: "en", pt: "pt-BR" }[language()] ?? "en";
  return new Intl.NumberFormat(locale, { style: "unit", unit: giga ? "gigabyte" : "megabyte",
    maximumFractionDigits: giga ? 1 : 0 }).format(giga ? bytes / 1e9 : bytes / 1e6);
}

/** The banner, or null while all is well. @param {DiskState} state */
export function diskBanner(state) {
  const size = sizeText(state.free ?? 0);
  const text = !state.reachable ? t("disk.unreachable")
    : !state.writing ? t("disk.notWriting")
      : state.disk === "full" ? t("disk.full", { size })
        : state.disk === "low" ? t("disk.low", { size }) : "";
  if (!text) return null;
  const serious = state.disk === "full" || !state.writing || !state.reachable;
  // the page redraws whole: a polite status for "low", an alert only when writes fail
  return h(`p#disk-notice.disk-notice${serious ? ".is-serious" : ""}`, { role: serious ? "alert" : "status" }, text);
}
