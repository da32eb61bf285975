// The board on a small screen. Fitted to a phone's width, a big board has cells smaller than
// a fingertip (a 19x19 board at 375 px: 17 px a point, Blooms' size 12: 14 px a cell, less in
// landscape, where the board's height is the limit). Where the fitted cells are under COMFORT
// px, "Zoom in" is offered: the board is drawn with cells of ZOOMED px in a box that scrolls
// sideways (the page still scrolls up and down, and pinch-zoom still works); "Whole board"
// fits it again. The choice is kept in this browser.
import { $ } from "./state.js";
import { store } from "./settings.js";

export const COMFORT = 24;  // px: WCAG 2.2's minimum target size
export const ZOOMED = 28;   // px: above it, and a 19x19 board still fits a landscape phone's width
let zoomed = (() => { try { return localStorage.getItem("sg-board-zoom") === "on"; } catch (e) { return false; } })();
let lastShown = "";  // the last move's cells at the previous drawing
let wasOn = false;   // the previous drawing was zoomed in

/** The smallest cell (or point's target) of the board drawn, in CSS px. */
function smallestCell(svg) {
  let least = Infinity;
  for (const c of svg.querySelectorAll("[data-cell]")) {
    const r = c.getBoundingClientRect();
    if (r.width && r.height) least = Math.min(least, r.width, r.height);
  }
  return least;
}

/** Scroll the board's box sideways to centre ``cell`` (the page itself never moves). */
function centreOn(box, cell) {
  const b = box.getBoundingClientRect(), r = cell.getBoundingClientRect();
  box.scrollLeft += r.left + r.width / 2 - (b.left + b.width / 2);
}

/** Size the board just drawn: fitted, or zoomed in where that is offered and chosen, with
 * the box scrolled where it was (``scrollLeft``, before the drawing replaced the board), or to
 * the last move when it is new and out of sight, or to the last move (else the centre) as the
 * zoom is turned on or the page opens zoomed in. */
export function sizeBoard(scrollLeft, turnedOn) {
  const box = $("board"), svg = box.querySelector("svg"), button = $("board-zoom");
  box.classList.remove("zoomed");
  if (!svg || !svg.querySelector("[data-cell]")) { button.hidden = true; wasOn = false; return; }
  svg.style.width = "";
  // the drawing's width, not the element's: in landscape the height limits it, centred
  const r = svg.getBoundingClientRect(), vb = svg.viewBox.baseVal;
  const width = vb && vb.width && vb.height ? vb.width * Math.min(r.width / vb.width, r.height / vb.height) : r.width;
  const fitted = smallestCell(svg);
  button.hidden = !(fitted < COMFORT);
  const on = zoomed && !button.hidden, first = on && !wasOn;
  wasOn = on;
  button.textContent = on ? "Whole board" : "Zoom in: bigger cells";
  const last = [...svg.querySelectorAll("[data-cell].last")], shown = last.map((c) => c.dataset.cell).join(" ");
  const moved = shown !== lastShown;
  lastShown = shown;
  if (!on) return;
  box.classList.add("zoomed");
  svg.style.width = (width * ZOOMED) / fitted + "px";  // CSSOM, allowed by a strict CSP
  box.scrollLeft = scrollLeft;
  const target = last[0] || null;
  // zoomed in now, or at the page's first drawing (the choice kept): where the game is
  if (turnedOn || first) { centreOn(box, target || svg); return; }
  if (moved && target) {  // a new move out of sight (the opponent's, far off): brought in view
    const b = box.getBoundingClientRect(), r = target.getBoundingClientRect();
    if (r.right < b.left || r.left > b.right) centreOn(box, target);
  }
}

$("board-zoom").addEventListener("click", () => {
  zoomed = !zoomed;
  store("sg-board-zoom", zoomed);
  sizeBoard($("board").scrollLeft, zoomed);
});
// a phone turned (portrait, landscape): fitted or zoomed anew for its width
addEventListener("resize", () => { sizeBoard($("board").scrollLeft, false); keepClearOfBars(); });

// On a phone held upright the status row (with the clocks) and the move bar stick to the
// screen's top and foot (style.css). A cell or control reached from the keyboard was scrolled
// only to the screen's edge, under a bar, out of sight (WCAG 2.2: focus not obscured): the
// page's scroll padding is the room the bars take, which the focus and scrollIntoView keep.
const bars = [document.querySelector(".status-row"), document.querySelector(".builder-bar")];
const GAP = 6;  // px clear of a bar's edge (and its shadow)
function keepClearOfBars() {
  const [top, foot] = bars.map((bar) => {
    if (!bar || !bar.getClientRects().length || getComputedStyle(bar).position !== "sticky") return 0;
    return Math.ceil(bar.getBoundingClientRect().height) + GAP;
  });
  document.documentElement.style.scrollPaddingTop = top + "px";  // CSSOM: a strict CSP allows it
  document.documentElement.style.scrollPaddingBottom = foot + "px";
}
// a bar grows or shrinks (a question asked, the clocks shown, a line wrapped) or stops sticking
new ResizeObserver(keepClearOfBars).observe(document.body);
bars.forEach((bar) => bar && new ResizeObserver(keepClearOfBars).observe(bar));
