// The game page: the snapshot fetched from the server and drawn, the players' actions posted
// back, and the page's parts (clock, builder, moves, analysis...) brought up to date.
import { $, baseTitle, bothSeats, foreign, gid, invited, keyInLink, names, page, playing, say } from "./state.js";
import { beep, settings } from "./settings.js";
import { hintText, lastMoveText, PREPARING, resultText, statusText, undoneText, watchEngine, renderThinking } from "./words.js";
import { renderClock, stopClock } from "./clock.js";
import { renderOnline } from "./online.js";
import { renderMoves, renderScore } from "./moves.js";
import { clearChoice, renderBuilder } from "./builder.js";
import { prepareBoardKeys } from "./board_keys.js";
import { sizeBoard } from "./board_zoom.js";
import { renderAnalysis } from "./analysis.js";

// every module loaded and ran (common.js says so on the page when they did not)
document.body.dataset.modules = "ran";

// -- talking to the server ---------------------------------------------------------------
// the live snapshot, and the viewed ply's when browsing back; a new position clears an old error.
// While the server can't be reached (a restart, the network) it is asked again, backing off.
const reload = SG.backoff(() => refresh());
let asked = 0;
export async function refresh() {
  const mine = ++asked, headers = page.key ? { "X-Seat-Secret": page.key } : {};
  // a friend's link checked here is not the friend arriving: their first move is waited
  // for from when they open it
  if (page.key && invited(page.key)) headers["X-Seat-Present"] = "0";
  try {
    const current = await SG.get("/api/games/" + gid, headers);
    const other = studyTurn(current);
    if (other) {  // this page plays the side to move of a record studied here: its link
      page.key = other; history.replaceState(null, "", "#key=" + other);
      refresh();
      return;
    }
    if (page.viewPly !== null && page.viewPly >= current.length) page.viewPly = null;
    const shown = page.viewPly === null ? current : await SG.get(`/api/games/${gid}?ply=${page.viewPly}`, headers);
    if (mine !== asked) return;  // a later refresh answers instead
    reload.reset();
    page.now = current;
    // an error stays while its position does (a name, a presence, a clock's news redraw the
    // page: the player is still reading why a cell was refused); "can't reach" goes at once
    const error = $("move-error").textContent;
    if (!samePosition(page.snap, shown) || error.startsWith(SG.OFFLINE)) $("move-error").textContent = "";
    render(shown);
  } catch (e) {
    if (mine !== asked) return;
    if (e.status === 404 && page.snap) { gone(); return; }
    $(page.snap ? "move-error" : "status").textContent = e.offline ? SG.OFFLINE + " — retrying…" : e.message;
    if (e.offline) reload.later();
  }
}

function samePosition(a, b) {
  return Boolean(a && b) && a.ply === b.ply && a.length === b.length && a.terminal === b.terminal && a.to_move === b.to_move;
}

/** The key of the seat to move in a game both of whose seats this browser holds (an uploaded
 * record, studied), where this page holds the other: its moves are played here too, else they
 * could be played only from the other seat's own link. */
function studyTurn(s) {
  if (!bothSeats() || !s.to_move || s.seats.some((seat) => seat !== "human")) return null;
  const key = SG.keys()[gid][String(s.to_move)];
  return key !== page.key ? key : null;
}

/** The game shown is no longer stored: its creator withdrew it before anyone joined (the
 * only way a game goes). Nothing on the page can act on it any more. */
export function gone() {
  const focused = document.activeElement;
  stopClock();
  document.body.dataset.gone = "true";
  $("status").textContent = "This game was withdrawn: its creator took it back before anyone joined.";
  $("status").className = "status over";
  for (const id of ["waiting", "rematch-offer", "rematch", "clocks", "first-move", "builder", "study-card", "thinking-box"]) $(id).hidden = true;
  $("result").hidden = false;
  $("move-error").textContent = "";
  document.title = baseTitle;
  if (focused && focused !== document.body) keepFocus();  // Take the open seat, say, is gone
}

const MOVED_ON = "The game had moved on (a move from another tab or device, or an update this page missed): here it is now. Your move was not played.";
export async function act(name, extra) {
  $("move-error").textContent = "";
  const before = page.now;
  page.acting = true;  // what this request changes is this page's doing: no alert of it
  try {
    const data = await SG.post("/api/games/" + gid + "/" + name, Object.assign({ secret: page.key }, extra || {}));
    if (name === "move" || name === "undo" || name === "redo") clearChoice();
    if (name === "undo" && before) page.undone = { length: data.length, moves: before.moves.slice(data.length) };
    page.viewPly = null;  // the answer is the live position
    render(data);
    keepFocus();
    // a refresh asked before this answer came may have shown a newer position (an agent's
    // quick reply) that this answer has just covered: ask again, after it
    refresh();
    return data;
  } catch (e) {
    // refused as out of date (another tab, a missed update): show the game as it is now
    if (e.status === 409) { clearChoice(); await refresh(); }
    // a move made for a position the game has left: said in a player's words, not the API's
    // ("the game has moved on: ply 1, not 0")
    const behind = e.status === 409 && name === "move" && page.now && page.now.length !== extra.ply;
    $("move-error").textContent = e.offline ? SG.OFFLINE + ": try again in a moment" : behind ? MOVED_ON : e.message;
    return null;
  } finally { page.acting = false; }
}

export async function play(text) {
  if (page.moving) return;  // a double click or tap: the first one is being played
  page.moving = true;
  try { await act("move", { move: text, ply: page.snap.length }); } finally { page.moving = false; }
}

/** After an action or a new snapshot, the control that held the focus may be disabled or
 * gone (Confirm, a face, Pass, Undo, Cancel): the focus goes back to the board, where the
 * next move is chosen, rather than to the top of the page. */
export function keepFocus() {
  const f = document.activeElement;
  // without scrolling: on a phone the board may be above, and the page must not jump
  if (!f || f === document.body || f.disabled || !f.getClientRects().length) $("board").querySelector('[data-cell][tabindex="0"]')?.focus({ preventScroll: true });
}

export function render(s) {
  if (s !== page.snap) watchEngine(s);
  page.snap = s;
  if (page.viewPly === null) page.now = s;
  const n = page.now || s;  // the live position, also while an old one is shown
  document.body.dataset.ply = s.ply;
  document.body.dataset.length = n.length;
  document.body.dataset.terminal = s.terminal;
  const focused = document.activeElement, hadFocus = $("board").contains(focused);
  const scrolled = $("board").scrollLeft;  // a zoomed board's box, scrolled sideways
  $("board").innerHTML = s.svg;
  sizeBoard(scrolled, false);
  boardForScreenReaders();
  if (s.you && page.key && !invited(page.key)) SG.saveKey(gid, String(s.you), page.key);  // "my games" knows the seat
  const person = (p) => (s.names && s.names[p] ? SG.isolate(s.names[p]) : "a person");
  // a computer's seat in words ("computer, level 3"), as the lists of games say it
  const who = (p) => `${names()[p - 1]} (${s.seats[p - 1] === "human" ? person(p) : s.seats[p - 1] === "open" ? "open seat" : s.seat_words[p - 1]})`;
  const you = playing(s) && foreign(page.key) ? ` — this link plays ${names()[s.you - 1]}, your opponent's seat`
    : playing(s) ? (bothSeats() ? ` — you hold both seats; this link plays ${names()[s.you - 1]}` : ` — you play ${names()[s.you - 1]}`) : s.you || !page.key ? " — watching" : " — (this link's key is not valid)";
  // an uploaded record's time control: the game was played under it, no clock runs here
  const under = s.played_under ? ` — played at ${s.played_under}` : "";
  $("seats").textContent = `${who(1)} · ${who(2)}${under}${you}`;
  let status = statusText(n);
  if (s !== n) status = `Viewing the position after move ${s.ply} of ${n.length} — ` + status;
  say($("status"), status);
  say($("last-move"), (undoneText(s) + lastMoveText(s)).trim());
  $("status").className = "status" + (n.can_play ? " your-turn" : "") + (n.terminal ? " over" : "");
  $("result").hidden = !n.terminal;
  renderClock(n);
  renderOnline(n);
  renderScore(s.score);
  renderMoves(s);
  renderThinking(n);
  renderAnalysis(s);
  say($("notice"), s.notice || "");
  // undo, redo and hints are the players' (a spectator, or a link to a computer's seat, has
  // none), and none once it is over
  $("study-row").hidden = s.over || !playing(s);
  $("study-card").hidden = $("study-row").hidden && !s.notice;
  $("undo").disabled = !s.can_undo;
  $("redo").disabled = !s.can_redo;
  // a hint is only ever given to a player on their turn, where the game allows hints
  $("hint").hidden = !(playing(s) && s.hints_allowed);
  $("hint").disabled = !(s === n && s.can_play);
  say($("hint-text"), s.hint ? hintText(s.hint) : "");
  renderBuilder(s);
  prepareBoardKeys(hadFocus);
  if (!$("ask").hidden && offered && !offered.still()) {  // asked about what is no longer offered
    const why = offered.why;
    closeAsk();
    if (!n.terminal) $("move-error").textContent = why;  // over: the status says how
  }
  // a control this snapshot hid or disabled under the focus (Take the open seat once taken,
  // the move field when the opponent resigns, Cancel once the agent has moved): the focus
  // goes to the board, not to the top of the page
  if (focused && focused !== document.body) keepFocus();
  alertTurn(n);
  const other = s.you ? String(3 - s.you) : null;
  const passOn = (SG.invites()[gid] || {})[other] || (SG.keys()[gid] || {})[other];
  if (other && passOn && !invited(page.key) && s.seats[other - 1] === "human") {
    $("invite-url").value = new URL(SG.url("/game/" + gid + "#key=" + passOn), location.href).href;
    $("invite-link").hidden = false;
  }
}

/** The board as a screen reader meets it: a group of cell buttons (an image's content is
 * read as one picture, its buttons unreachable), without the coordinates drawn around it
 * (each cell's name says them). */
function boardForScreenReaders() {
  const svg = $("board").querySelector("svg");
  if (!svg || !svg.querySelector("[data-cell]")) return;
  svg.setAttribute("role", "group");
  if (!svg.getAttribute("aria-label")) svg.setAttribute("aria-label", svg.querySelector("title")?.textContent || "board");
  svg.querySelectorAll("text").forEach((t) => { if (!t.closest("[data-cell]")) t.setAttribute("aria-hidden", "true"); });
}

function alertTurn(s) {
  // an uploaded record studied (both seats this browser's) waits for no one: no alert, as my
  // games says "Studying"
  const mine = s.can_play && !bothSeats() && !foreign(page.key);
  document.title = (mine ? "● Your turn · " : s.terminal ? "Game over · " : "") + baseTitle;
  if (mine && !page.wasMyTurn && settings.sound) beep();
  if (mine && !page.wasMyTurn && settings.notify && document.hidden) {
    try { new Notification("Your turn · " + baseTitle, { tag: "sg-" + gid }); } catch (e) { /* not allowed here */ }
  }
  page.wasMyTurn = mine;
  // a game ended by the other side (its winning move, a resignation, a clock run out) or by a
  // clock while this page was hidden is said as a turn is, by the sound and the notification
  const ended = s.terminal && page.wasOver === false && playing(s) && !bothSeats()
    && (!page.acting || document.hidden);
  if (ended && settings.sound) beep();
  if (ended && settings.notify && document.hidden) {
    try { new Notification("Game over · " + baseTitle, { body: resultText(s), tag: "sg-" + gid }); } catch (e) { /* not allowed here */ }
  }
  page.wasOver = !!s.terminal;
}

// -- buttons ------------------------------------------------------------------------------
let onYes = null, asker = null, offered = null;
/** Ask a question (Pass, Resign, Abort) before doing yes(); guard: {still(), why}, whether
 * what it asks about is still offered, checked at each update, and why not (an opponent's
 * first move ends the right to abort: the question went on asking, and a Yes was refused). */
export function ask(question, yes, guard) {
  $("ask-text").textContent = question;
  onYes = yes;
  offered = guard || null;
  asker = document.activeElement;  // the focus goes back there once answered
  $("ask").hidden = false;
  $("ask-no").focus();
}
function closeAsk() {
  const back = $("ask").contains(document.activeElement) ? asker : null;
  $("ask").hidden = true; onYes = null; asker = null; offered = null;
  if (back && !back.disabled && back.getClientRects().length) back.focus();
}
$("ask-yes").addEventListener("click", () => { const f = onYes; closeAsk(); if (f) f(); });
$("ask-no").addEventListener("click", closeAsk);
// a question waits for its answer: Tab goes between Yes and No (it went on to the move form,
// the question left open behind it, where Escape no longer closed it), Escape says No
$("ask").addEventListener("keydown", (ev) => {
  if (ev.key === "Escape") closeAsk();
  if (ev.key !== "Tab") return;
  ev.preventDefault();
  (document.activeElement === $("ask-yes") ? $("ask-no") : $("ask-yes")).focus();
});

$("abort").addEventListener("click", () => ask("Abort this game? No one wins or loses.", () => act("abort"),
  { still: () => !$("abort").hidden, why: "Both players have moved: the game can no longer be aborted (Resign ends it)." }));
$("undo").addEventListener("click", () => act("undo"));
$("redo").addEventListener("click", () => act("redo"));
$("hint").addEventListener("click", async () => {
  $("hint-text").textContent = page.engineReady ? "thinking…" : PREPARING;
  if (!(await act("hint"))) $("hint-text").textContent = "";  // refused: the error says why
});
$("cancel").addEventListener("click", () => act("cancel"));
$("resume").addEventListener("click", () => act("resume"));
// said, as on the home page (the button's new word alone was not, and a refusal nothing)
$("copy-invite").addEventListener("click", async () => {
  try { await navigator.clipboard.writeText($("invite-url").value); $("copy-note").textContent = "Copied."; }
  catch (e) { $("invite-url").select(); $("copy-note").textContent = "Select the link and copy it (Ctrl+C)."; }
});

// a seat link opened in a tab that shows this game (as a spectator, or another seat): only the
// fragment changes, so the page takes the new key itself
addEventListener("hashchange", () => {
  const k = keyInLink();
  if (!k || k === page.key) return;
  page.key = k;
  if (!invited(page.key)) SG.saveKey(gid, "?", page.key);
  clearChoice(); page.viewPly = null; page.wasMyTurn = false; page.named = false;
  refresh();
});

// loaded at once (and again while the server can't be reached), whatever the stream does;
// each stream opened sends an update, which loads it again
refresh();
SG.live("/api/games/" + gid + "/events", () => refresh());
