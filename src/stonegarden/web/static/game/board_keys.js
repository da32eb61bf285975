// The board from the keyboard: one focusable cell at a time (roving tabindex), the arrows
// moving between cells, Enter choosing one, and a focus ring drawn over the board.
import { $, page, SVG } from "./state.js";
import { cellChosen } from "./builder.js";

function cells() { return [...$("board").querySelectorAll("[data-cell]")]; }
export function prepareBoardKeys(hadFocus) {
  const all = cells();
  if (!all.length) return;
  let current = all.find((c) => c.dataset.cell === page.focusCell) || $("board").querySelector("[data-cell].legal") || all[0];
  all.forEach((c) => c.setAttribute("tabindex", "-1"));
  current.setAttribute("tabindex", "0");
  if (hadFocus) current.focus({ preventScroll: true });  // the same cell, where it was
}
// the focused cell gets a ring drawn over the whole board (a cell's own outline would be
// hidden under its neighbours, and in blue it would read as the last-move mark)
function drawFocus(cell) {
  const svg = $("board").querySelector("svg");
  if (!svg) return;
  svg.querySelectorAll(".focus-ring").forEach((e) => e.remove());
  if (!cell || !cell.matches(":focus-visible")) return;
  const b = cell.getBBox(), pad = 3;
  for (const cls of ["focus-ring focus-under", "focus-ring focus-over"]) {
    const r = document.createElementNS(SVG, "rect");
    r.setAttribute("x", b.x - pad); r.setAttribute("y", b.y - pad);
    r.setAttribute("width", b.width + 2 * pad); r.setAttribute("height", b.height + 2 * pad);
    r.setAttribute("rx", 4); r.setAttribute("class", cls);
    svg.append(r);
  }
}
// a cell reached by Tab, a click or a screen reader's cursor is the one a re-render keeps
// focused (a snapshot arriving between reaching it and pressing Enter must not move it), and
// the board's one stop for Tab: else Tab or Shift+Tab from it went to the cell that was
// (another cell, not the Blobs faces or the controls after the board)
$("board").addEventListener("focusin", (ev) => {
  const cell = ev.target.closest("[data-cell]");
  if (cell) {
    page.focusCell = cell.dataset.cell;
    $("board").querySelectorAll('[data-cell][tabindex="0"]').forEach((c) => c.setAttribute("tabindex", "-1"));
    cell.setAttribute("tabindex", "0");
  }
  drawFocus(cell);
});
$("board").addEventListener("focusout", () => drawFocus(null));
const centre = (el) => { const r = el.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; };
// the line a run of arrows keeps to (an editor's goal column): on a hexagonal board each cell
// has two neighbours above and two below, and choosing by the cell alone drifted Up to the
// left, and Down did not come back where Up started
let goal = null;  // {cell, x, y}: the cell the last arrow reached, and the line kept
$("board").addEventListener("keydown", (ev) => {
  const cell = ev.target.closest("[data-cell]");
  if (!cell) return;
  if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); page.focusCell = cell.dataset.cell; cellChosen(cell, true); return; }
  const dir = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[ev.key];
  if (!dir) return;
  ev.preventDefault();
  ev.stopPropagation();
  const [x, y] = centre(cell);
  if (!goal || goal.cell !== cell) goal = { x, y };
  let best = null, bestScore = Infinity, bestOff = Infinity;
  for (const other of cells()) {
    if (other === cell) continue;
    const [ox, oy] = centre(other);
    const along = (ox - x) * dir[0] + (oy - y) * dir[1];
    const across = Math.abs((ox - x) * dir[1]) + Math.abs((oy - y) * dir[0]);
    // the arrow's way, within 45° of it: Left at a hexagonal row's end went up a row
    if (along <= 1 || across >= along) continue;
    // the nearest: a hexagon's neighbour above, not the cell straight up two rows (Up
    // skipped every other row of Blooms' board)
    const score = Math.hypot(along, across), off = Math.abs((ox - goal.x) * dir[1]) + Math.abs((oy - goal.y) * dir[0]);
    // of two as near (a hexagon's two neighbours above), the one nearer the line kept
    if (score < bestScore - 1 || (score <= bestScore + 1 && off < bestOff)) { bestScore = score; bestOff = off; best = other; }
  }
  if (!best) return;
  goal = { cell: best, x: dir[0] ? centre(best)[0] : goal.x, y: dir[1] ? centre(best)[1] : goal.y };
  best.focus({ preventScroll: true });  // focusin makes it the board's stop for Tab
  // in view whole: in the zoomed board's box, and clear of the bars stuck to a phone's screen
  // (the focus' own scrolling left a cell at the screen's edge under them, or all but out of
  // the box, one pixel of it in view)
  best.scrollIntoView({ block: "nearest", inline: "nearest" });
});
