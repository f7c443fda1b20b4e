// @ts-check
// The player's controls: the hand, choosing what a card captures, trailing, and the windows of
// R6 (announcements), R8 (missed cards) and R10 (claims). Everything offered comes from the
// snapshot's legal actions; the client never guesses a rule.
import { h } from "./dom.js";
import { t } from "../i18n/index.js";
import { byRank, cardElement, cardName, cardShort, RANKS } from "./cards.js";
import { clearTake, pickHandCard } from "./table-choices.js";
import { isOffline } from "./state.js";
import { heldChoices } from "./confirm-play.js";
import { hintNow, hintParts } from "./coach-hint.js";
import {
  capturesOf, captureMatching, legalOfType, playableCards, playsOf, takeableCards, trailOf,
} from "./captures.js";

/** @param {string[]} take */
export function describeTake(take) {
  return take.map(cardName).join(", ");
}

/** The player's hand at the bottom: each playable card a button (R7). */
/** @param {import("./model-types.js").TableModel} model @param {() => void} redraw */
export function handView(model, redraw) {
  const selection = model.selection;
  // While the socket is down no card can be chosen: the prompt says why (actionBar).
  const playable = isOffline(model) ? new Set() : playableCards(model.legal);
  const hinted = hintNow(model)?.play.card;
  const cards = [...(model.game?.hand ?? [])].sort(byRank);
  return h("div.hand", { role: "group", "aria-label": t("hand.label"), "aria-describedby": "hand-keys" },
    cards.map((code) => cardElement(code, {
      onPick: playable.has(code) ? (c) => { pickHandCard(model, c); redraw(); } : null,
      pressed: playable.has(code) ? selection.card === code : null,
      marks: [selection.card === code ? "selected" : "", playable.has(code) ? "playable" : "",
        hinted === code ? "hinted" : ""].filter(Boolean),
      focusKey: `hand-${code}`,
    })));
}

/** Table cards, marked as the caída target (R9) and, after choosing a hand card, as takeable. */
/** @param {import("./model-types.js").TableModel} model @param {import("./model-types.js").Game} game @returns {(code: string) => {marks: string[], pickable: boolean}} */
export function tableCardMarks(model, game) {
  const selection = model.selection;
  const plays = selection.card ? playsOf(model.legal, selection.card) : [];
  const takeable = new Set(takeableCards(plays));
  return (code) => {
    /** @type {string[]} */
    const marks = [];
    if (game.phase === "play" && code === game.caidaTarget) marks.push("caida-target");
    if (takeable.has(code)) marks.push("takeable");
    if (selection.take.includes(code)) marks.push("chosen");
    if (game.missed.includes(code)) marks.push("missed");
    return { marks, pickable: takeable.has(code) && !isOffline(model) };
  };
}

/** The bar under the hand: what you can do now, in words and buttons. */
/** @param {import("./model-types.js").TableModel} model @param {import("./model-types.js").Game} game @param {import("./table-view.js").TableContext} ctx */
export function actionBar(model, game, ctx) {
  const { act, names } = ctx;
  const selection = model.selection;
  const legal = model.legal;
  /** @type {HTMLElement[]} */
  const parts = [];
  if (isOffline(model)) {
    return h("div.action-bar.is-offline", { role: "region", "aria-label": t("actions.label") },
      h("p.prompt.is-offline", t("offline.prompt")));
  }

  const announces = legalOfType(legal, "announce");
  if (announces.length) {
    parts.push(h("p.prompt", t("prompt.announce")),
      h("div.choices", announces.map((a) => h("button.btn", {
        type: "button", dataset: { focus: `announce-${a.call}`, action: `announce-${a.call}` },
        onclick: () => act(a),
      }, t(`announce.${a.call}`)))));
  }

  const claims = legalOfType(legal, "claim");
  if (claims.length) parts.push(...claimChoices(model, game, claims, act, ctx.passClaims));

  const missed = legalOfType(legal, "take_missed");
  if (missed.length) {
    parts.push(h("button.btn.btn-gold", {
      type: "button", dataset: { focus: "take-missed", action: "take-missed" },
      onclick: () => act(missed[0]),
    }, t("action.takeMissed", { count: game.missed.length })));
  }

  if (model.held) parts.push(...heldChoices(model, model.held, ctx));
  else if (selection.card) parts.push(...playChoices(model, selection.card, ctx));
  else if (playableCards(legal).size) parts.push(h("p.prompt", t("prompt.chooseCard")));
  if (!model.held) parts.push(...hintParts(model, ctx.askHint));

  if (!parts.length) parts.push(h("p.prompt.is-waiting", waitingText(model, names)));
  return h("div.action-bar", { role: "region", "aria-label": t("actions.label") }, parts);
}

/**
 * R10's window: offer only the ranks this team caught by a caída this hand (public: the plays
 * are on the record everyone saw), and always a plain "nothing to claim" that ends the wait.
 */
/** @param {import("./model-types.js").TableModel} model */
export function caughtByCaida(model) {
  const g = model.game;
  if (!g || model.you === null) return [];
  const team = model.you % 2;
  const claimed = new Set((g.claims || []).filter(([seat, , valid]) => valid && seat % 2 === team)
    .map(([, rank]) => rank));
  const ranks = new Set((g.history || []).filter((e) => e.caida && e.card && e.seat % 2 === team)
    .map((e) => String(e.card)[0]));
  return RANKS.split("").filter((r) => ranks.has(r) && !claimed.has(r));
}

/** @param {import("./model-types.js").TableModel} model @param {import("./model-types.js").Game} game @param {import("./wire.js").LegalAction[]} claims @param {(action: import("./wire.js").LegalAction) => void} act @param {() => void} passClaims */
function claimChoices(model, game, claims, act, passClaims) {
  if (model.claimPassed === game.handNumber) return [h("p.prompt.is-waiting", t("prompt.claimPassed"))];
  const ranks = caughtByCaida(model).filter((r) => claims.some((c) => c.rank === r));
  const none = passClaims ? h("button.btn.btn-primary", {
    type: "button", dataset: { focus: "claim-none", action: "claim-none" }, onclick: passClaims,
  }, t("claim.none")) : null;
  return [
    h("p.prompt", ranks.length
      ? t("prompt.claim", { ranks: ranks.map((r) => t(`rank.${r}`)).join(", ") })
      : t("prompt.claimNothing")),
    h("div.choices", ranks.map((r) => h("button.btn", {
      type: "button", dataset: { focus: `claim-${r}`, action: `claim-${r}` },
      "aria-label": t("claim.rank", { rank: t(`rank.${r}`) }),
      onclick: () => act(/** @type {import("./wire.js").LegalAction} */ (claims.find((c) => c.rank === r))),
    }, t("claim.rank", { rank: t(`rank.${r}`) }))), none),
  ];
}

/** @param {import("./model-types.js").TableModel} model @param {string} card @param {import("./table-view.js").TableContext} ctx */
function playChoices(model, card, { act, redraw }) {
  const selection = model.selection;
  const plays = playsOf(model.legal, card);
  const captures = capturesOf(plays);
  const trail = trailOf(plays);
  /** @type {HTMLElement[]} */
  const out = [];
  const chosen = captureMatching(plays, selection.take);
  if (captures.length) {
    out.push(h("p.prompt", captures.length === 1
      ? t("prompt.oneCapture", { card: cardName(card) })
      : t("prompt.manyCaptures", { card: cardName(card), count: captures.length })));
    out.push(h("div.choices.capture-choices", captures.map((a, i) => h("button.btn.btn-capture", {
      type: "button",
      dataset: { focus: `capture-${i}`, action: "capture", take: a.take.join(" ") },
      // the name holds the visible text (WCAG 2.5.3: "Capture K♠ 3♣"), then the cards in words
      "aria-label": `${t("action.capture")} ${a.take.map(cardShort).join(" ")}: ${describeTake(a.take)}`,
      onmouseenter: () => highlight(a.take, true),
      onmouseleave: () => highlight(a.take, false),
      onfocus: () => highlight(a.take, true),
      onblur: () => highlight(a.take, false),
      onclick: () => act(a),
    }, h("span.capture-label", t("action.capture")), " ",
    h("span.capture-cards", { "aria-hidden": "true" }, a.take.map(cardShort).join(" "))))));
    if (selection.take.length) {
      out.push(h("div.choices",
        h("button.btn.btn-primary", {
          type: "button", disabled: !chosen, dataset: { focus: "capture-picked", action: "capture-picked" },
          onclick: () => chosen && act(chosen),
        }, chosen ? t("action.captureThese", { cards: describeTake(chosen.take) }) : t("prompt.pickMore")),
        h("button.btn.btn-quiet", { type: "button", onclick: () => { clearTake(model); redraw(); } },
          t("action.clearPick"))));
    }
  }
  if (trail) {
    out.push(h("div.choices", h("button.btn.btn-trail", {
      type: "button", dataset: { focus: "trail", action: "trail" }, onclick: () => act(trail),
    }, t(model.table?.seats === 2 ? "action.trail2p" : "action.trail", // R14: «Tirar»
      { card: cardName(card) }))));
  } else if (captures.length) {
    out.push(h("p.hint", t("hint.mustCapture")));
  }
  return out;
}

/** @param {string[]} take @param {boolean} on */
function highlight(take, on) {
  for (const code of take) {
    document.querySelector(`.felt [data-card="${code}"]`)?.classList.toggle("is-preview", on);
  }
}

/** @param {import("./model-types.js").TableModel} model @param {import("./seats.js").Names} names */
function waitingText(model, names) {
  const g = model.game;
  if (!g) return t("prompt.waitingStart");
  if (g.phase === "finished") return t("prompt.finished");
  if (g.phase === "claims") return t("prompt.claimsOpen");
  if (g.turn === null || g.turn === undefined) return t("prompt.wait");
  return t("prompt.waitingFor", { name: names.nameOf(g.turn) });
}
