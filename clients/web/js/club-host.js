// @ts-check
// The host's panel on the club page, shown once the club's host key was accepted: register pairs
// (two members, or a member and a bot), start the night (Swiss or groups), start the next round,
// rule a stuck table, withdraw a pair. The night's pace is chosen at its start (live, or turn-based
// with a deadline per move) and each round's when starting it (the night's preselected). Each command travels over the WebSocket with the key in
// the message, never in a URL; the server's refusal is shown as it words it.
import { h } from "./dom.js";
import { t } from "../i18n/index.js";
import { DEADLINES, currentRound, matchDone, paceText } from "./club-night.js";

/** @typedef {Record<string, any>} Doc */
/** @typedef {(message: Doc) => Promise<unknown>} Send */

/** @param {string} id @returns {string} */
function value(id) {
  return /** @type {HTMLInputElement | HTMLSelectElement | null} */ (document.querySelector(`#${id}`))?.value.trim() ?? "";
}

/**
 * @param {Doc | null} night
 * @param {Doc[]} members
 * @param {Send} send a host command (club and key are added); rejects with the refusal
 */
export function hostPanel(night, members, send) {
  const started = Boolean(night?.tournament);
  const round = night ? currentRound(night) : null;
  const roundDone = !round || round.matches.every(matchDone);
  const next = (round?.number ?? 0) + 1;
  const names = h("datalist#club-member-names", members.map((/** @type {Doc} */ m) => h("option", { value: m.name })));
  const register = () => {
    const members = [value("club-pair-1"), value("club-pair-2")].filter(Boolean);
    const level = Number(value("club-pair-bot"));
    return send({ type: "club_pair", members, bot_level: members.length < 2 ? level : null });
  };
  return h("section.club-host", { "aria-labelledby": "club-host-title" },
    h("h2#club-host-title", t("clubnight.hostPanel")),
    h("p#club-host-note.club-host-note", { role: "status" }, noteText),
    names,
    night?.finished || !started || night?.tournament?.format === "swiss"
      ? h("form#club-pair-form.club-host-form", { onsubmit: submit(register) },
        h("h3", t("clubnight.registerPair")),
        h("label", { for: "club-pair-1" }, t("clubnight.member1")),
        h("input#club-pair-1", { list: "club-member-names", required: true, maxlength: 32 }),
        h("label", { for: "club-pair-2" }, t("clubnight.member2")),
        h("input#club-pair-2", { list: "club-member-names", maxlength: 32, placeholder: t("clubnight.orBot") }),
        h("label", { for: "club-pair-bot" }, t("clubnight.botLevel")),
        h("select#club-pair-bot", [1, 2, 3, 4, 5, 6].map((level) => h("option", { value: String(level), selected: level === 3 }, level))),
        h("button#club-pair-add.btn", { type: "submit" }, t("clubnight.add")))
      : null,
    !started || night?.finished ? h("form#club-start-form.club-host-form", {
      onsubmit: submit(() => send({ type: "club_start", format: value("club-format"), rounds: Number(value("club-rounds")),
        move_deadline: Number(value("club-pace")) })) },
    h("h3", t("clubnight.startNight")),
    h("label", { for: "club-format" }, t("clubnight.format")),
    h("select#club-format", h("option", { value: "swiss" }, t("clubnight.swiss")), h("option", { value: "groups" }, t("clubnight.groups"))),
    h("label", { for: "club-rounds" }, t("clubnight.rounds")),
    h("input#club-rounds", { type: "number", min: 1, max: 12, value: 3 }),
    h("label", { for: "club-pace" }, t("clubnight.paceLabel")),
    paceSelect("club-pace", 0, "club-pace-hint"),
    h("p#club-pace-hint.hint", t("clubnight.paceHint")),
    h("button#club-start.btn.btn-primary", { type: "submit" }, t("clubnight.start"))) : null,
    night && round ? h("p.club-host-pace", t("clubnight.roundPace", { round: round.number, pace: paceText(night, round.number) }))
      : null,
    started && !night?.finished ? h("div.club-host-round",
      h("label", { for: "club-round-pace" }, t("clubnight.roundPaceLabel", { round: next })),
      paceSelect("club-round-pace", night?.pace?.move_deadline ?? 0),
      h("button#club-next-round.btn.btn-primary", { type: "button", disabled: !roundDone,
        onclick: () => report(send({ type: "club_round", round: next, move_deadline: Number(value("club-round-pace")) })) },
      t("clubnight.startRound", { round: next }))) : null,
    started && round && !roundDone ? ruleForm(round, send) : null,
    started && !night?.finished ? h("form#club-withdraw-form.club-host-form", {
      onsubmit: submit(() => send({ type: "club_withdraw", pair: value("club-withdraw") })) },
    h("label", { for: "club-withdraw" }, t("clubnight.withdraw")),
    h("select#club-withdraw", (night?.pairs || []).filter((/** @type {Doc} */ p) => p.withdrawn == null)
      .map((/** @type {Doc} */ p) => h("option", { value: p.id }, `${p.id} · ${p.members.join(", ")}`))),
    h("button.btn", { type: "submit" }, t("clubnight.withdrawGo"))) : null);
}

/**
 * Live, or turn-based with one of the deadlines, worded as the round's title words it.
 * @param {string} id @param {number} chosen @param {string} [hint] the id of the hint describing it
 */
function paceSelect(id, chosen, hint) {
  const label = (/** @type {number} */ seconds) => {
    const text = t(`clubnight.pace.${seconds}`);
    return text.charAt(0).toUpperCase() + text.slice(1);
  };
  return h(`select#${id}`, hint ? { "aria-describedby": hint } : {},
    DEADLINES.map((seconds) => h("option", { value: String(seconds), selected: seconds === chosen }, label(seconds))));
}

/** The ruling on a stuck table: a score awarded, or the game ended as it stands. */
/** @param {Doc} round @param {Send} send */
function ruleForm(round, send) {
  const open = round.matches.filter((/** @type {Doc} */ m) => !matchDone(m));
  const rule = (/** @type {boolean} */ asItStands) => {
    const table = Number(value("club-rule-table"));
    if (asItStands) return send({ type: "club_rule", table });
    return send({ type: "club_rule", table, score_a: Number(value("club-rule-a")), score_b: Number(value("club-rule-b")) });
  };
  return h("form#club-rule-form.club-host-form", { onsubmit: submit(() => rule(false)) },
    h("h3", t("clubnight.rule")),
    h("label", { for: "club-rule-table" }, t("clubnight.tableLabel")),
    h("select#club-rule-table", open.map((/** @type {Doc} */ m) => h("option", { value: String(m.table) }, m.table))),
    h("label", { for: "club-rule-a" }, t("clubnight.scoreA")),
    h("input#club-rule-a", { type: "number", min: 0, max: 999, value: 0 }),
    h("label", { for: "club-rule-b" }, t("clubnight.scoreB")),
    h("input#club-rule-b", { type: "number", min: 0, max: 999, value: 0 }),
    h("button.btn", { type: "submit" }, t("clubnight.award")),
    h("button.btn", { type: "button", onclick: () => report(rule(true)) }, t("clubnight.asItStands")));
}

/** @param {() => Promise<unknown>} action */
function submit(action) {
  return (/** @type {Event} */ event) => {
    event.preventDefault();
    report(action());
  };
}

/** The panel's status line, kept across redraws (the page redraws whole when the night changes). */
let noteText = "";

/** Show the refusal's sentence (or clear it) in the panel's status line. @param {Promise<unknown>} done */
function report(done) {
  /** @param {string} text */
  const show = (text) => {
    noteText = text;
    const note = document.querySelector("#club-host-note");
    if (note) note.textContent = text;
  };
  done.then(() => show(""), (/** @type {Error} */ error) => show(error.message));
}
