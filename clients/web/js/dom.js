// @ts-check
// Build DOM nodes declaratively, so views read as the markup they produce (no framework, no build step).

/** What a view may put in a node: nodes, text, numbers, nothing (skipped), or lists of them. */
/** @typedef {Node | string | number | boolean | null | undefined | any[]} Child */
/** Attributes, listeners ("on…"), `class`, `dataset` and `style`. @typedef {Record<string, any>} Attrs */

/**
 * h("button#id.card.is-on", {onclick, "aria-label": "…"}, child, …) → HTMLElement.
 * Attributes starting with "on" become listeners; `false`/`null` attributes and children are skipped,
 * so conditional parts stay inline.
 * @param {string} tag
 * @param {Attrs | Child} [attrs]
 * @param {Child[]} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  if (!isAttributes(attrs)) {
    children.unshift(attrs);
    attrs = {};
  }
  const [head, ...classes] = tag.split(".");
  const [name, id] = head.split("#");
  const el = document.createElement(name || "div");
  if (id) el.id = id;
  if (classes.length) el.className = classes.join(" ");
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "class") el.classList.add(...String(value).split(/\s+/).filter(Boolean));
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style" && typeof value === "object") setStyle(el, value);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

/**
 * Inline styles; a custom property ("--card-w") needs setProperty: assigning it is ignored.
 * @param {HTMLElement} el
 * @param {Record<string, string>} style
 */
function setStyle(el, style) {
  for (const [name, value] of Object.entries(style)) {
    if (name.startsWith("--")) el.style.setProperty(name, value);
    else /** @type {Record<string, any>} */ (el.style)[name] = value;
  }
}

/**
 * A plain object is attributes; a node, text, number, array or nothing is already a child.
 * @param {unknown} value
 * @returns {value is Attrs}
 */
function isAttributes(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof Node);
}

/** @param {Element} el @param {Child[]} children */
function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * A <details>' summary that tells `onToggle(open)` when the person folds or unfolds it: from the
 * click, since a toggle event also follows every redraw that draws the details open, and late.
 * @param {(open: boolean) => void} onToggle
 * @param {Child[]} children
 */
export function foldingSummary(onToggle, ...children) {
  return h("summary", { onclick: (/** @type {MouseEvent} */ event) => onToggle(
    !(/** @type {HTMLDetailsElement} */ (/** @type {HTMLElement} */ (event.currentTarget).parentElement)).open) },
  ...children);
}

/**
 * Like h() for SVG elements (no classes shorthand: pass "class").
 * @param {string} tag
 * @param {Attrs | Child} [attrs]
 * @param {Child[]} children
 * @returns {SVGElement}
 */
export function s(tag, attrs = {}, ...children) {
  if (!isAttributes(attrs)) {
    children.unshift(attrs);
    attrs = {};
  }
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value !== false && value !== null && value !== undefined) el.setAttribute(key, String(value));
  }
  for (const child of /** @type {Child[]} */ (children.flat())) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/**
 * Replace a container's children while keeping keyboard focus on the "same" control:
 * re-rendering must never throw a keyboard user back to the top of the page.
 * @param {Element} container
 * @param {Child[]} children
 */
export function renderInto(container, ...children) {
  const active = /** @type {HTMLElement | null} */ (document.activeElement);
  const focusKey = active && container.contains(active) ? active.dataset.focus : null;
  container.replaceChildren();
  append(container, children);
  if (focusKey) {
    const again = container.querySelector(`[data-focus="${CSS.escape(focusKey)}"]`);
    if (again) /** @type {HTMLElement} */ (again).focus({ preventScroll: true });
  }
}
