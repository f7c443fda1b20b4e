// Every play seen: the played card travels from its seat (or your hand) to the table, or with the
// cards it took to the capturing team's pile; a caída, a limpia or a ronda gets a moment of its
// own. Pure decoration over the page (a fixed, click-through layer): the model and the server's
// messages never wait for it, and with prefers-reduced-motion nothing moves at all.
import { h } from "./dom.js";
import { t } from "../i18n/index.js";
import { cardElement } from "./cards.js";
import { teamOf } from "./seats.js";

const FLIGHT_MS = 520;
const BURST_MS = 1400;

function reduced() {
  return globalThis.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? true;
}

function layer() {
  let el = document.querySelector("#fx");
  if (!el) {
    el = h("div#fx.fx-layer", { "aria-hidden": "true" });
    document.body.append(el);
  }
  return el;
}

function rectOf(selector) {
  const el = document.querySelector(selector);
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return r.width && r.height ? r : null;
}

function cardSize() {
  const r = rectOf(".felt .card") || rectOf(".hand .card");
  return r ? { w: r.width, h: r.height } : { w: 56, h: 84 };
}

/** A card face that flies from box `from` to box `to` (viewport rects), then goes. */
function fly(code, from, to, { delay = 0, fade = false } = {}) {
  const size = cardSize();
  const x0 = from.left + from.width / 2 - size.w / 2;
  const y0 = from.top + from.height / 2 - size.h / 2;
  const scale = to.small ? 0.45 : 1;
  const dx = to.left + to.width / 2 - size.w / 2 - x0;
  const dy = to.top + to.height / 2 - size.h / 2 - y0;
  const el = cardElement(code, { marks: ["fly"] });
  el.classList.add("fly-card");
  Object.assign(el.style, { left: `${x0}px`, top: `${y0}px`, width: `${size.w}px`,
    transitionDelay: `${delay}ms`, transitionDuration: `${FLIGHT_MS}ms` });
  layer().append(el);
  el.getBoundingClientRect(); // start where it is, then move
  requestAnimationFrame(() => {
    el.style.transform = `translate(${dx}px, ${dy}px) scale(${scale})`;
    if (fade) el.style.opacity = "0.35";
  });
  setTimeout(() => el.remove(), FLIGHT_MS + delay + 120);
}

/** A short word over the felt for the moments that score: «¡Caída! +2». */
function burst(text, kind) {
  const felt = rectOf(".felt");
  if (!felt) return;
  const el = h(`div.fx-burst.fx-${kind}`, text);
  Object.assign(el.style, { left: `${felt.left + felt.width / 2}px`, top: `${felt.top + felt.height / 2}px` });
  layer().append(el);
  setTimeout(() => el.remove(), BURST_MS);
}

/**
 * One table's motion: `before(event)` is called when an event arrives (the page still shows the
 * table before it: where the card and the taken cards are), `after()` once the page is redrawn.
 */
export function motionFor(model) {
  let pending = [];

  function before(event) {
    if (event.type === "played") {
      const from = rectOf(`.hand [data-card="${event.card}"]`) || rectOf(`.seat[data-seat="${event.seat}"]`);
      const taken = event.take.map((code) => [code, rectOf(`.felt [data-card="${code}"]`)]);
      pending.push({ event, from, taken });
    } else if (event.type === "announced" && event.call === "ronda") {
      pending.push({ event });
    }
  }

  function after() {
    const jobs = pending;
    pending = [];
    if (reduced()) return;
    for (const { event, from, taken } of jobs) {
      if (event.type === "announced") {
        burst(`${t("fx.ronda")}${event.points ? ` +${event.points}` : ""}`, "ronda");
        continue;
      }
      const seats = model.table?.seats ?? 4;
      const pile = rectOf(`.scoreboard .team[data-team="${teamOf(event.seat, seats)}"] .team-pile`);
      if (!event.take.length) {
        const to = rectOf(`.felt [data-card="${event.card}"]`) || rectOf(".felt");
        if (from && to) fly(event.card, from, to);
      } else if (pile) {
        const felt = rectOf(".felt");
        if (from && felt) fly(event.card, from, { ...pile.toJSON(), small: true });
        taken.forEach(([code, rect], i) => {
          if (rect) fly(code, rect, { ...pile.toJSON(), small: true }, { delay: 120 + i * 60, fade: true });
        });
      }
      if (event.caida || event.limpia) {
        const words = [event.caida ? t("fx.caida") : null, event.limpia ? t("fx.limpia") : null]
          .filter(Boolean).join(" ");
        burst(`${words}${event.points ? ` +${event.points}` : ""}`, "score");
      }
    }
  }

  return { before, after };
}
