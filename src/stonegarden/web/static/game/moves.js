// The score bars, the list of moves and stepping through them.
import { $, page, short } from "./state.js";
import { refresh } from "./main.js";
import { markMoves } from "./analysis.js";

export function renderScore(sc) {
  const box = $("score");
  box.textContent = "";
  const cap = document.createElement("div"); cap.className = "muted"; cap.textContent = sc.label; box.append(cap);
  const scale = sc.scale || sc.target || Math.max(1, ...sc.scores);
  sc.scores.forEach((v, i) => {
    const row = document.createElement("div"); row.className = "track";
    const who = document.createElement("span"); who.className = "who"; who.textContent = short(i + 1);
    const bar = document.createElement("span"); bar.className = "bar";
    const fill = document.createElement("span"); fill.className = (sc.colours || [])[i] || "p" + (i + 1);
    fill.style.width = Math.min(100, (100 * v) / scale) + "%";  // CSSOM, allowed by a strict CSP
    bar.append(fill);
    const val = document.createElement("span"); val.className = "val"; val.dataset.score = i + 1;
    val.textContent = v + (sc.target ? " / " + sc.target : "");
    row.append(who, bar, val);
    box.append(row);
  });
}

// the moves listed, in words: a step through the same moves only moves the current mark (the
// list of a long game, rebuilt and laid out again at each step, held every step for a second)
let listed = null;
const moveWords = (m) => (m.player ? short(m.player) + " " : "") + m.text + (m.auto && m.auto.length ? ` (auto ${m.auto.join(" ")})` : "") + (m.words ? ` (${m.words})` : "");

export function renderMoves(s) {
  const ol = $("moves"), words = s.moves.map(moveWords), all = words.join("\n");
  // the focus on a move (Tab to the list, or Up and Down in it) stays on the list as it changes
  const focused = ol.contains(document.activeElement) ? +document.activeElement.closest("li").dataset.ply : null;
  const wasShown = ol.querySelector(".current");
  if (all !== listed || ol.children.length !== words.length) {
    ol.textContent = "";
    // each move a button (a click on its row alone was no control for the keyboard or a
    // screen reader), one Tab stop for the list: the position shown
    words.forEach((text, i) => {
      const li = document.createElement("li"), button = document.createElement("button");
      button.type = "button"; button.className = "move"; button.tabIndex = -1;
      button.textContent = text;
      // its number, which the list draws and a screen reader on the button does not say
      button.setAttribute("aria-label", `Move ${i + 1}: ${text}`);
      button.addEventListener("click", () => goTo(i + 1));
      li.dataset.ply = i + 1;
      li.append(button);
      ol.append(li);
    });
    listed = all;
    ol.style.setProperty("--digits", String(words.length).length);
    markMoves();
  }
  const was = ol.querySelector(".current"), cur = ol.children[s.ply - 1] || null;
  if (was !== cur) {
    if (was) { was.classList.remove("current"); was.querySelector("button").removeAttribute("aria-current"); }
    if (cur) { cur.classList.add("current"); cur.querySelector("button").setAttribute("aria-current", "step"); scrollWithin(ol, cur); }
  }
  const stop = cur || ol.firstElementChild;
  ol.querySelectorAll('button[tabindex="0"]').forEach((b) => { b.tabIndex = -1; });
  if (stop) stop.querySelector("button").tabIndex = 0;
  if (focused === null) return;
  // stepping (the arrows, Home, End) from the list takes its focus along; a new move or an
  // analysis leaves it on the move it was on
  const moved = (wasShown ? +wasShown.dataset.ply : 0) !== s.ply;
  const target = moved ? stop : ol.children[focused - 1] || stop;
  if (target) target.querySelector("button").focus({ preventScroll: true });
}

// Up and Down move the focus along the list (Enter or a click shows that position); Left and
// Right step through the positions, as everywhere outside the board
$("moves").addEventListener("keydown", (ev) => {
  const li = ev.target.closest("li"), next = { ArrowUp: li?.previousElementSibling, ArrowDown: li?.nextElementSibling }[ev.key];
  if (!li || !(ev.key in { ArrowUp: 1, ArrowDown: 1 })) return;
  ev.preventDefault();
  if (!next) return;
  li.querySelector("button").tabIndex = -1;
  const b = next.querySelector("button");
  b.tabIndex = 0; b.focus(); scrollWithin($("moves"), next);
});

/** Scroll a list to show its item, never the page (scrollIntoView would move the board away). */
function scrollWithin(list, item) {
  const box = list.getBoundingClientRect(), r = item.getBoundingClientRect();
  if (r.top < box.top) list.scrollTop -= box.top - r.top;
  else if (r.bottom > box.bottom) list.scrollTop += r.bottom - box.bottom;
}

// -- stepping through the moves -----------------------------------------------------------
export function goTo(p) { if (!page.snap) return; page.viewPly = p >= page.snap.length ? null : Math.max(0, p); refresh(); }
// a step goes from the position asked for last, not the one shown: keys pressed (or held)
// faster than the server answers each step from the one before
const asking = () => (page.viewPly === null ? page.snap.length : page.viewPly);
/** Go to the position ``f(asked, length)``, from the one asked for last. */
export function stepTo(f) { if (page.snap) goTo(f(asking(), page.snap.length)); }
const nav = (f) => () => stepTo(f);
$("nav-first").addEventListener("click", nav(() => 0));
$("nav-prev").addEventListener("click", nav((p) => p - 1));
$("nav-next").addEventListener("click", nav((p, n) => Math.min(n, p + 1)));
$("nav-last").addEventListener("click", nav((p, n) => n));
document.addEventListener("keydown", (ev) => {
  if (ev.altKey || ev.ctrlKey || ev.metaKey || !page.snap) return;
  // on the board the arrows move between cells (its own handler); Home and End work there too,
  // as Enter on a cell of an earlier position tells
  if (ev.target.closest && ev.target.closest("input, textarea, select, .ask")) return;
  const step = { ArrowLeft: (p) => p - 1, ArrowRight: (p, n) => Math.min(n, p + 1), Home: () => 0, End: (p, n) => n }[ev.key];
  if (!step) return;
  ev.preventDefault();
  goTo(step(asking(), page.snap.length));
});
