// The move builder: cells chosen on the board (two stones of Blooms, a point, a die's face),
// shown as ghosts until played, and the move form with Pass, Resign and Clear.
import { $, info, page, playing, say, SVG } from "./state.js";
import { settings, store } from "./settings.js";
import { statusText } from "./words.js";
import { ask, play } from "./main.js";

let pending = [];       // hex builder: [{letter, cell}]
let colour = null;      // hex builder: selected colour letter
let typed = false;      // the text field was edited by hand
let chosenCell = null;  // die-face builder (Blobs): the frontier cell whose faces are offered
let chosen = null;      // confirm-moves mode: {text, cell} chosen, not yet played

export function clearChoice() { pending = []; chosen = null; chosenCell = null; typed = false; $("move-text").value = ""; }
// a choice kept for Confirm is dropped when Confirm moves is turned off
$("confirm-moves").addEventListener("change", (ev) => { settings.confirmMoves = ev.target.checked; store("sg-confirm-moves", settings.confirmMoves); chosen = null; if (page.snap) renderBuilder(page.snap); });

export function renderBuilder(s) {
  const b = s.builder;
  const live = s.can_play;
  $("builder").hidden = !playing(s) || s.over;  // nothing to play
  ["confirm", "clear"].forEach((id) => { $(id).disabled = !live; });
  $("resign").disabled = !s.can_resign;  // between two people, on either's turn
  $("move-text").disabled = !live;
  // a view's example of this position (Blobs: after a Tumbling Dice roll, a move of the face
  // rolled) replaces the page's, which is the first decision's
  if (b.example) $("move-text").placeholder = `or type a move, e.g. ${b.example}`;
  $("pass").hidden = !(live && b.can_pass);
  const box = $("colours"), held = builderButton(box);
  box.textContent = "";
  if (b.kind === "hex-two-colour" && live) {
    if (!colour || !b.colours.some((c) => c.letter === colour)) colour = b.colours[0].letter;
    for (const c of b.colours) {
      const btn = document.createElement("button");
      btn.type = "button"; btn.className = "colour" + (c.letter === colour ? " selected" : "");
      btn.dataset.colour = c.letter;
      btn.setAttribute("aria-pressed", String(c.letter === colour));
      btn.innerHTML = `<svg width="26" height="26" viewBox="-16 -16 32 32" aria-hidden="true"><use href="#sg-stone-${c.letter}"/></svg> ${c.letter} ${c.name}`;
      btn.title = `${c.name} (${c.mark})`;
      btn.addEventListener("click", () => { colour = c.letter; renderBuilder(page.snap); });
      box.append(btn);
    }
    const note = document.createElement("span"); note.className = "muted";
    // a click never plays here (a second stone may follow): say what does, where the eye is
    note.textContent = b.max_stones === 1 ? "first turn: one stone, then Confirm"
      : "one or two stones (one of each colour), then Confirm";
    box.append(note);
  }
  if (b.kind === "die-face" && live) {
    const note = document.createElement("span"); note.className = "muted"; note.id = "blobs-info";
    const opts = chosenCell ? b.options[chosenCell] || [] : [];
    // the view's words for what to do (a roll to place, say), until a cell is chosen
    note.textContent = opts.length ? `faces that fit ${chosenCell}:` : b.prompt;
    box.append(note);
    for (const o of opts) {
      const btn = document.createElement("button"); btn.type = "button";
      const picked = !!(chosen && chosen.text === o.text);
      btn.className = "face-option" + (picked ? " selected" : "");
      btn.dataset.move = o.text;
      // with Confirm moves a face is chosen, then played: its button says whether it is chosen
      if (settings.confirmMoves) btn.setAttribute("aria-pressed", String(picked));
      btn.innerHTML = o.svg;
      btn.querySelector("svg")?.setAttribute("aria-hidden", "true");
      btn.append(` ${o.label} (${o.text})`);
      // the shown words first (voice control), then which way round the face lies
      btn.setAttribute("aria-label", `${o.label} (${o.text}), ${o.words.replace(/^[^:]*: /, "")}`);
      btn.addEventListener("click", () => choose(o.text, chosenCell));
      box.append(btn);
    }
    if (b.dice_left !== null && b.dice_left !== undefined) { const d = document.createElement("span"); d.className = "muted"; d.textContent = ` · dice left: ${b.dice_left}`; box.append(d); }
  }
  if (info.click_to_play && live && settings.confirmMoves) {
    const note = document.createElement("span"); note.className = "muted";
    note.textContent = chosen ? `${chosen.text} chosen: Confirm to play it` : "Confirm moves is on: choose, then Confirm";
    box.append(note);
  }
  drawPending();
  say($("choice"), choiceText(s));
  if (!typed) $("move-text").value = chosen ? chosen.text : pendingText(s);
  if (held) box.querySelector(`button[${held}]`)?.focus();
}

/** The move being built, for a screen reader (the page shows it as ghost stones). */
function choiceText(s) {
  const b = s.builder;
  if (!s.can_play) return "";
  if (b.kind === "hex-two-colour" && pending.length) {
    const name = (letter) => b.colours.find((c) => c.letter === letter)?.name || letter;
    const placed = pending.map((p) => `${name(p.letter)} on ${p.cell}`).join(" and ");
    const more = pending.length < b.max_stones ? `Choose a cell for ${name(colour)}, or Confirm.` : "Confirm to play it.";
    return `Chosen: ${placed} (${pendingText(s)}). ${more}`;
  }
  if (chosen) return `${chosen.text} chosen: Confirm to play it.`;
  const opts = b.kind === "die-face" && chosenCell ? b.options[chosenCell] || [] : [];
  if (opts.length > 1) return `${opts.length} faces fit ${chosenCell}: choose one with the buttons after the board.`;
  return "";
}

/** The builder button holding the focus, as a selector attribute: its buttons are made anew
 * on each change, and the focus goes back to the same one (else it would fall to the page). */
function builderButton(box) {
  const b = document.activeElement;
  if (!box.contains(b)) return null;
  if (b.dataset.colour) return `data-colour="${b.dataset.colour}"`;
  return b.dataset.move ? `data-move="${CSS.escape(b.dataset.move)}"` : null;
}

/** Play a chosen move at once, or keep it for Confirm when "confirm moves" is on. */
function choose(text, cell) {
  if (settings.confirmMoves) { chosen = { text, cell }; typed = false; renderBuilder(page.snap); return; }
  chosenCell = null;
  play(text);
}

function pendingText(s) {
  if (!s || s.builder.kind !== "hex-two-colour") return "";
  const order = s.builder.colours.map((c) => c.letter);
  return pending.slice().sort((a, b) => order.indexOf(a.letter) - order.indexOf(b.letter)).map((p) => p.letter + p.cell).join(",");
}

function ghost(g, href) {
  const use = document.createElementNS(SVG, "use");
  use.setAttribute("href", href);
  use.setAttribute("x", g.dataset.x); use.setAttribute("y", g.dataset.y);
  use.setAttribute("class", "ghost");
  const ring = document.createElementNS(SVG, "circle");
  ring.setAttribute("cx", g.dataset.x); ring.setAttribute("cy", g.dataset.y); ring.setAttribute("r", "19");
  ring.setAttribute("class", "ghost-ring");
  g.append(use, ring);
  g.classList.add("pending");
}

/** A chosen cell's name says so (its picture shows a ghost stone or a dashed frame). */
function nameChosen(g, words) {
  g.dataset.label = g.getAttribute("aria-label");
  g.setAttribute("aria-label", `${g.dataset.label}, chosen${words ? ": " + words : ""}`);
}

function drawPending() {
  const svg = $("board").querySelector("svg");
  if (!svg) return;
  svg.querySelectorAll(".ghost, .ghost-ring").forEach((e) => e.remove());
  svg.querySelectorAll(".pending").forEach((e) => e.classList.remove("pending"));
  svg.querySelectorAll("[data-label]").forEach((e) => { e.setAttribute("aria-label", e.dataset.label); delete e.dataset.label; });
  const colourName = (letter) => (page.snap.builder.colours || []).find((c) => c.letter === letter)?.name;
  for (const p of pending) {
    const g = svg.querySelector(`[data-cell="${p.cell}"]`);
    if (g) { ghost(g, "#sg-stone-" + p.letter); nameChosen(g, `${colourName(p.letter) || p.letter} stone`); }
  }
  const cell = chosen ? chosen.cell : chosenCell;
  const g = cell ? svg.querySelector(`[data-cell="${cell}"]`) : null;
  if (g && page.snap.builder.kind === "point" && chosen) ghost(g, "#" + page.snap.builder.ghost);
  else if (g) g.classList.add("pending");
  if (g) nameChosen(g, chosen && page.snap.builder.kind === "die-face" ? chosen.text : "");  // the face
}

/** Why a cell chosen does nothing, said (an alert) rather than ignored in silence. */
function refuseCell(why) { $("move-error").textContent = why; }

/** A cell clicked, or chosen with Enter. ``sayWhy``: whether a cell that cannot be chosen
 * now (not your turn, an earlier position shown) is said to be so: from Enter and from a
 * single click, not from a double click's second, which comes after the move its first
 * played and is no mistake to point out. */
export function cellChosen(cell, sayWhy) {
  if (!page.snap || page.moving) return;
  const name = cell.dataset.cell, b = page.snap.builder;
  if (!page.snap.can_play) {
    if (!sayWhy) return;
    if (page.viewPly !== null && page.snap.you) refuseCell("this is an earlier position: End (or ▶▶) comes back to the game");
    else if (page.now && page.now.you && !page.now.terminal) refuseCell(`not your turn: ${statusText(page.now)}`);
    return;
  }
  $("move-error").textContent = "";
  if (b.kind === "point") {
    if (cell.classList.contains("legal")) choose(name, name);
    else if (cell.dataset.content) refuseCell(`${name} is taken`);
    else refuseCell(b.refused && b.refused[name] ? `${name} cannot be played: ${b.refused[name]}` : `nothing can be played on ${name}`);
    return;
  }
  if (b.kind === "die-face") {
    const opts = b.options[name];
    if (!opts) { refuseCell(`no die fits ${name}: the highlighted cells take one`); return; }
    chosen = null;
    chosenCell = name;
    if (opts.length === 1) { choose(opts[0].text, name); return; }  // only one face fits
    renderBuilder(page.snap);
    return;
  }
  if (b.kind !== "hex-two-colour") return;
  if (cell.dataset.content) { refuseCell(`${name} is taken`); return; }
  typed = false;
  const here = pending.findIndex((p) => p.cell === name);
  // a stone taken back: its colour is the one to place next (the other is placed already)
  if (here >= 0) { colour = pending[here].letter; pending.splice(here, 1); renderBuilder(page.snap); return; }
  pending = pending.filter((p) => p.letter !== colour);
  if (pending.length >= b.max_stones) pending = [];
  pending.push({ letter: colour, cell: name });
  const other = b.colours.find((c) => c.letter !== colour);
  if (b.max_stones > 1 && other && !pending.some((p) => p.letter === other.letter)) colour = other.letter;
  renderBuilder(page.snap);
}

$("board").addEventListener("click", (ev) => {
  const cell = ev.target.closest("[data-cell]");
  // ev.detail counts the clicks of a double click: its second says nothing
  if (cell) { page.focusCell = cell.dataset.cell; cellChosen(cell, ev.detail <= 1); }
});

$("move-text").addEventListener("input", () => { typed = true; });
$("move-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  if (page.moving) return;  // Confirm tapped twice
  const text = $("move-text").value.trim();
  if (!text) { $("move-error").textContent = "choose a move first (click cells, or type it)"; return; }
  if (/^pass$/i.test(text)) { ask(passQuestion("Really pass?"), () => play(text)); return; }
  if (/^resign$/i.test(text)) { ask("Really resign?", () => play(text)); return; }
  play(text);
});
$("clear").addEventListener("click", () => {
  const had = !!(pending.length || chosen || chosenCell || $("move-text").value);
  pending = []; chosen = null; chosenCell = null; typed = false; $("move-text").value = ""; renderBuilder(page.snap);
  if (had) say($("choice"), "Cleared: nothing is chosen.");  // else only the stones would go, unsaid
});
// after the opponent's pass, a second one ends the game: say so before it is played
const passQuestion = (first) => (page.snap && page.snap.builder.pass_ends
  ? `${first} Your opponent passed: passing too ends the game, and the score is counted.` : first);
$("pass").addEventListener("click", () => ask(passQuestion("Pass your turn?"), () => play("pass")));
$("resign").addEventListener("click", () => ask("Resign this game?", () => play("resign")));
