// The computer's analysis: a win-probability graph of the engine's points, each played move's
// judgement marked in the move list, and the engine's view of the position shown.
import { $, gid, names, page, say } from "./state.js";
import { PREPARING } from "./words.js";
import { goTo, stepTo } from "./moves.js";

// a win-probability graph of the engine's points, each played move's judgement marked, the
// engine's best move at the viewed position drawn on the board (by the server's snapshot)
const MARK = { inaccuracy: "?!", mistake: "?", blunder: "??" };
let analysis = null, analysisTimer = null;
// the last analysis asked for: an answer to an earlier request (a poll sent just before a
// cancel) is older than the one shown, and is dropped
let asked = 0;
const pct = (v) => (100 * v).toFixed(0) + "%";
// a loss in whole percents rounded down, as the judgements' thresholds count it: 5.75% is
// no inaccuracy (from 6%), and says 5%, not 6%
const lossPct = (v) => Math.floor(100 * v + 1e-9) + "%";

/** The analysis' state, shown; a screen reader is told it starts and how it ended, not
 * each position counted on the way (every 1.5 s). */
function analysisStatus(text, running) {
  $("analysis-status").textContent = text;
  say($("analysis-said"), running ? "Analysing…" : text);
}

async function loadAnalysis() {
  analysisTimer = null;
  const mine = ++asked;
  let a;
  try { a = await SG.get("/api/games/" + gid + "/analysis", page.key ? { "X-Seat-Secret": page.key } : {}); }
  catch (e) { if (mine === asked) analysisStatus(e.message); return; }
  if (mine !== asked) return;
  analysis = a;
  drawAnalysis();
  clearTimeout(analysisTimer);
  if (a.running) analysisTimer = setTimeout(loadAnalysis, 1500);
}

/** Whether the analysis loaded differs from the server's summary of it: points found, the
 * positions it covers (the game went on, or an undo) or whether it runs (a restart ends it). */
const stale = (sum) => !analysis || sum.points !== analysis.points.length || sum.of !== analysis.of
  || sum.running !== analysis.running;

/** "Request computer analysis", where this viewer may and positions are left to analyse.
 * Hidden under the keyboard's focus (asked for), it leaves the focus on the analysis' state,
 * read out there, rather than at the top of the page. */
function showAnalyse() {
  const button = $("analyse"), had = document.activeElement === button;
  button.hidden = !(page.snap && page.snap.analysis_open) || !!(analysis && (analysis.running || analysis.done))
    || overAtStart();
  if (had && button.hidden) focusStatus();
  // "Cancel the analysis", for the viewer the server lets cancel it (who asked, or a player)
  const cancel = $("analysis-cancel"), hadCancel = document.activeElement === cancel;
  cancel.hidden = !(analysis && analysis.running && analysis.can_cancel && page.snap && page.snap.analysis_open);
  if (hadCancel && cancel.hidden) focusStatus();
}

/** A button hidden under the keyboard's focus leaves it on the analysis' state, read out
 * there, rather than at the top of the page. */
function focusStatus() { $("analysis-status").tabIndex = -1; $("analysis-status").focus(); }

/** A game over by its rules before its first move (Blobs with one die): nothing to analyse
 * (the server refuses it). One ended otherwise (time, a resignation, an abort) is not over
 * by its rules: its first position has a move to find. */
const overAtStart = () => {
  const n = page.now || page.snap;
  return !!n && n.length === 0 && n.terminal && !["time", "resign", "aborted"].includes(n.reason);
};

export function renderAnalysis(s) {
  const allowed = s.analysis_open;  // the server's rule: who may see it, and when
  showAnalyse();
  $("analysis-closed").hidden = allowed;
  $("analysis-none").hidden = !overAtStart();
  if (!s.analysis && analysis && !analysisTimer) {  // none to see: a restart before any was stored
    const had = document.activeElement === $("analysis");
    analysis = null; noGraph(); analysisStatus(""); showAnalyse(); markMoves();
    // the graph went under the keyboard's focus: it goes to the analysis offered again (or
    // its state), not to the top of the page
    if (had) { if ($("analyse").hidden) focusStatus(); else $("analyse").focus(); }
  } else if (s.analysis && stale(s.analysis) && !analysisTimer) loadAnalysis();
  else if (analysis) drawAnalysis();
  const r = s.review, box = $("review-here");
  if (!r) {
    say(box, analysis && analysis.capped && s.ply >= analysis.of ? `The analysis covers the first ${SG.count(analysis.of - 1, "move")} only.` : "");
    return;
  }
  const parts = [];
  if (r.p1_win !== null) parts.push(`${names()[0]}'s winning chances: ${pct(r.p1_win)}`);
  // a loss is its mover's, who may be the other player: say whose, else it reads as player 1's
  const played = s.moves[s.ply - 1], mover = played && played.player ? names()[played.player - 1] : "";
  const cost = r.played_loss !== null && (lossPct(r.played_loss) === "0%" ? `it cost ${mover} nothing`
    : `it cost ${mover} ${lossPct(r.played_loss)} of winning chances`);
  if (r.judgement) parts.push(`${mover}'s move ${played.text} was ${r.judgement === "inaccuracy" ? "an" : "a"} ${r.judgement}: ${cost}`);
  else if (cost) parts.push(`${mover}'s move ${played.text}: ${cost}`);
  if (r.best_move) parts.push(`the engine's best move here: ${r.best_move}` + (r.cells && r.cells.length ? " (marked on the board)" : ""));  // a pass marks no cell
  say(box, parts.join("; ") + ".");  // said as the moves are stepped through
}

function drawAnalysis() {
  const a = analysis, box = $("analysis");
  const judged = a.points.filter((p) => p.judgement);
  // a longer game's later moves are not analysed: said, else they read as missing
  const moves = (page.now || page.snap || {}).length, covered = a.of - 1;
  const cut = a.capped && moves > covered ? ` (the first ${SG.count(covered, "move")} of ${moves})` : "";
  const count = (j) => SG.count(judged.filter((p) => p.judgement === j).length, j, j === "inaccuracy" ? "inaccuracies" : "");
  analysisStatus(a.error ? a.error
    : a.cancelled && !a.running ? `The analysis was cancelled: ${a.points.length} of ${SG.count(a.of, "position")} analysed${cut} `
      + "are kept (those of the job it stopped are not); ask for it again to go on from them."
    : a.running && a.queued ? `Analysing: ${a.points.length} of ${SG.count(a.of, "position")}${cut}; `
      + (page.engineReady ? `waits for a free worker${a.waiting ? ` (${SG.count(a.waiting, "job")} ahead)` : ""}…` : PREPARING)
    : a.running ? `Analysing: ${a.points.length} of ${SG.count(a.of, "position")}${cut}…`
    : a.done ? `${a.engine}, ${SG.count(a.points.length, "position")}${cut}; ` + (judged.length ? ["inaccuracy", "mistake", "blunder"].map(count).join(", ") : "no inaccuracies")
    : `${a.points.length} of ${SG.count(a.of, "position")} analysed${cut}`, a.running && !a.error);
  showAnalyse();
  const W = 300, H = 120, n = Math.max(1, a.of - 1);
  const x = (p) => (p / n * W).toFixed(1), y = (v) => ((1 - v) * H).toFixed(1);
  const known = a.points.filter((p) => p.p1_win !== null);
  const line = known.map((p) => `${x(p.ply)},${y(p.p1_win)}`).join(" ");
  const area = known.length ? `${x(known[0].ply)},${H} ${line} ${x(known[known.length - 1].ply)},${H}` : "";
  const first = names()[0].replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);  // whose chances: player 1's
  const dots = known.map((p) => `<circle class="apt${p.judgement ? " j-" + p.judgement : ""}" data-ply="${p.ply}" cx="${x(p.ply)}" cy="${y(p.p1_win)}" r="${p.judgement ? 4 : 2.5}"><title>after move ${p.ply}: ${pct(p.p1_win)} for ${first}${p.judgement ? ", " + p.judgement : ""}</title></circle>`).join("");
  // the position viewed; none past the moves analysed (the graph would draw it off its edge)
  const cur = page.snap && page.snap.ply <= n ? `<line class="graph-now" x1="${x(page.snap.ply)}" x2="${x(page.snap.ply)}" y1="0" y2="${H}"/>` : "";
  box.innerHTML = `<svg id="winprob" class="graph" viewBox="-34 -20 ${W + 44} ${H + 38}" width="100%" aria-hidden="true">` +
    `<text class="graph-title" x="0" y="-8" font-size="11">${first}'s winning chances</text>` +
    `<rect class="graph-bg" width="${W}" height="${H}"/><polygon class="graph-area" points="${area}"/>` +
    `<line class="graph-mid" x1="0" x2="${W}" y1="${H / 2}" y2="${H / 2}"/>${cur}` +
    `<text x="-4" y="6" font-size="10" text-anchor="end">100%</text><text x="-4" y="${H / 2 + 3}" font-size="10" text-anchor="end">50%</text><text x="-4" y="${H}" font-size="10" text-anchor="end">0%</text>` +
    `<text x="0" y="${H + 14}" font-size="10" text-anchor="middle">0</text><text x="${W}" y="${H + 14}" font-size="10" text-anchor="middle">${n}</text>` +
    `<text x="${W / 2}" y="${H + 14}" font-size="10" text-anchor="middle">move</text>` +
    `<polyline class="graph-line" points="${line}"/>${dots}</svg>`;
  // a click or a tap anywhere on the graph shows the position nearest it: its dots, 5 to 8 px
  // and a few px apart in a long game, were no target for a finger, and a tap between them
  // did nothing
  const svg = box.querySelector("svg");
  svg.addEventListener("click", (ev) => {
    const m = svg.getScreenCTM();
    if (!m) return;
    const at = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse());
    goTo(Math.max(0, Math.min(n, Math.round((at.x / W) * n))));
  });
  graphAsSlider(a, known);
  markMoves();
}

/** The graph from the keyboard and to a screen reader: a slider over the positions (its dots
 * were reached by a click alone, and a screen reader met one picture), at the position shown;
 * the winning chances there are said below it, as the moves are stepped through. */
function graphAsSlider(a, known) {
  const box = $("analysis"), moves = (page.now || page.snap || {}).length || 0, ply = page.snap ? page.snap.ply : 0;
  box.setAttribute("role", "slider");
  box.tabIndex = 0;
  box.setAttribute("aria-label", `${names()[0]}'s winning chances by move`);
  box.setAttribute("aria-valuemin", "0");
  box.setAttribute("aria-valuemax", String(moves));
  box.setAttribute("aria-valuenow", String(ply));
  const p = known.find((q) => q.ply === ply);
  const where = ply === 0 ? "the start" : `after move ${ply} of ${moves}`;
  box.setAttribute("aria-valuetext", where + (p ? `: ${pct(p.p1_win)}` + (p.judgement ? `, ${p.judgement === "inaccuracy" ? "an" : "a"} ${p.judgement}` : "")
    : ply > a.of - 1 ? " (not analysed)" : ""));
}

/** No graph: nothing to reach from the keyboard. */
function noGraph() {
  const box = $("analysis");
  box.textContent = "";
  for (const name of ["role", "tabindex", "aria-label", "aria-valuemin", "aria-valuemax", "aria-valuenow", "aria-valuetext"]) box.removeAttribute(name);
}

// Left, Right, Home and End step through the positions, as everywhere outside the board; Up
// and Down do too on the graph, as on any slider, and Page Up and Page Down ten moves at a time
$("analysis").addEventListener("keydown", (ev) => {
  if (ev.altKey || ev.ctrlKey || ev.metaKey || $("analysis").getAttribute("role") !== "slider") return;
  const step = { ArrowUp: 1, ArrowDown: -1, PageUp: 10, PageDown: -10 }[ev.key];
  if (!step) return;
  ev.preventDefault();
  stepTo((p, n) => Math.max(0, Math.min(n, p + step)));
});

export function markMoves() {
  // the list is kept from step to step: marks of an analysis no longer shown go too
  const by = new Map((analysis ? analysis.points : []).map((p) => [p.ply, p]));
  $("moves").querySelectorAll("li").forEach((li) => {
    const p = by.get(+li.dataset.ply);
    const button = li.querySelector("button");
    li.querySelector(".judgement")?.remove();
    button.setAttribute("aria-label", `Move ${li.dataset.ply}: ${button.textContent}`);  // the list's words
    if (!p || !p.judgement) return;
    const span = document.createElement("span"), mark = document.createElement("span"), words = document.createElement("span");
    span.className = "judgement j-" + p.judgement;
    span.title = `${p.judgement}: lost ${lossPct(p.played_loss)}; best was ${by.get(p.ply - 1)?.best_move ?? "?"}`;
    // the mark is shown; a screen reader (which may skip "?!", and never reads a title) says why
    mark.textContent = " " + MARK[p.judgement]; mark.setAttribute("aria-hidden", "true");
    words.className = "visually-hidden"; words.textContent = ` (${span.title})`;
    span.append(mark, words);
    button.append(span);
    button.setAttribute("aria-label", button.getAttribute("aria-label") + words.textContent);
  });
}

$("analysis-cancel").addEventListener("click", async () => {
  const mine = ++asked;  // a poll on its way answers from before the cancel
  clearTimeout(analysisTimer); analysisTimer = null;
  try {
    const a = await SG.post("/api/games/" + gid + "/analysis/cancel", page.key && page.snap && page.snap.you ? { secret: page.key } : {});
    if (mine !== asked) return;
    analysis = a;
    clearTimeout(analysisTimer); analysisTimer = null;
    drawAnalysis();
    if (analysis.running) analysisTimer = setTimeout(loadAnalysis, 1000);  // it stops soon
  } catch (e) { analysisStatus(e.message); }
});

$("analyse").addEventListener("click", async () => {
  analysisStatus("Starting the analysis…", true);
  ++asked;
  try {
    analysis = await SG.post("/api/games/" + gid + "/analysis", page.key && page.snap && page.snap.you ? { secret: page.key } : {});
    drawAnalysis();
    $("analyse").hidden = true;
    clearTimeout(analysisTimer); analysisTimer = setTimeout(loadAnalysis, 1000);
  } catch (e) { analysisStatus(e.message); }
});
