// Online play: the open seat, the player's name, withdrawing a game, rematches.
import { $, bothSeats, foreign, gid, invited, names, ownOther, page, say } from "./state.js";
import { gone, refresh } from "./main.js";

export function renderOnline(s) {
  $("waiting").hidden = !s.open;
  // where the open seat is offered: the lobby lists a public game for a week, then its link alone
  $("in-lobby").hidden = !s.in_lobby;
  $("lobby-stale").hidden = !s.open || s.in_lobby || !s.public;
  $("withdraw").hidden = !s.you;
  const link = new URL(SG.url("/game/" + gid), location.href).href;
  if ($("open-link").textContent !== link) { $("open-link").href = link; $("open-link").textContent = link; }
  // this browser's own game opened without its key (its link, to check it): the open seat is
  // for someone else, and the creator's board is a click away
  const own = Object.entries(SG.keys()[gid] || {}).find(([seat]) => seat !== "?" && +seat !== s.open);
  $("waiting-own").hidden = !!s.you || !own;
  if (own) $("own-board").href = "#key=" + own[1];
  $("join").hidden = !!s.you || !!own;
  // the spectator's link of a game this browser plays (the one under Record, say): the page
  // watches it, and the player's own board is a click away, not lost
  $("own-seat").hidden = !!s.you || !!s.open || !own;
  if (own) $("own-seat-link").href = "#key=" + own[1];
  // a person's seat held without a name (a link opened before a name was chosen): name it
  // now (an agent's seat keeps the agent's name)
  // (not where this browser holds both seats: an uploaded record's players are not its uploader;
  // nor once the game is over: its record names who played it, and the server refuses)
  if (s.you && !s.terminal && s.seats[s.you - 1] === "human" && s.names && !s.names[s.you] && SG.name() && !page.named && !invited(page.key) && !bothSeats()) {
    page.named = true;
    SG.post("/api/games/" + gid + "/name", { secret: page.key, name: SG.name() }).catch(() => { /* shown unnamed */ });
  }
  // the opponent's seat link opened here (copied by mistake): said, with this browser's own
  // board a click away; it is not kept as this browser's
  const mineToo = s.you && foreign(page.key) ? ownOther(page.key) : null;
  $("foreign-seat").hidden = !mineToo;
  if (mineToo) {
    const whose = (s.names && s.names[s.you]) ? `${SG.isolate(s.names[s.you])}'s` : "your opponent's";
    say($("foreign-text"), `This is ${whose} seat link (${names()[s.you - 1]}), not yours: you play ${names()[mineToo[0] - 1]} in this game.`);
    $("foreign-own").href = "#key=" + mineToo[1];
  }
  // an aborted game never started: no rematch (a new game instead)
  // (nor from the opponent's link opened here: the rematch's seat would be theirs)
  $("rematch").hidden = !(s.you && s.terminal) || s.reason === "aborted" || bothSeats() || foreign(page.key);
  // a record studied here (both seats this browser's) is no game to abort: no one waits for it
  $("abort").hidden = !s.can_abort || bothSeats();
  $("rematch").textContent = s.rematch ? "Go to the rematch" : "Rematch";
  // offered to the opponent: whoever holds a seat of the rematch here offered or took it
  const inRematch = s.rematch && Object.keys(SG.keys()[s.rematch] || {}).some((seat) => seat !== "?");
  $("rematch-offer").hidden = !(s.you && s.rematch) || inRematch || foreign(page.key);
  // its maker resigned it before the opponent came: no longer one to play
  say($("rematch-text"), s.rematch_over ? "The rematch offered is over." : "A rematch is offered, with the seats swapped.");
  $("accept-rematch").textContent = s.rematch_over ? "See the rematch" : "Play the rematch";
  // the rematch offered was aborted (by a player, or it was never opened): said, where the
  // offer was, and Rematch offers a new one; an offer shown is watched until then
  const dropped = s.you && s.terminal && !s.rematch && s.rematch_aborted;
  say($("rematch-aborted"), dropped ? rematchAbortedText(s) : "");
  $("rematch-aborted").hidden = !dropped;
  watchRematch($("rematch-offer").hidden ? null : s.rematch);
}

/** How the rematch offered after this game was aborted, from this seat's side. */
function rematchAbortedText(s) {
  const { by, unopened, late } = s.rematch_aborted;
  const who = (seat) => (seat === s.you ? "you" : s.names && s.names[seat] ? SG.isolate(s.names[seat]) : names()[seat - 1]);
  const cap = (t) => t[0].toUpperCase() + t.slice(1);
  const how = by ? `${cap(who(by))} aborted the rematch.`
    : unopened ? `The rematch was aborted: ${who(unopened)} did not open it in time.`
    : late ? `The rematch was aborted: ${who(late)} did not make a first move in time.`
    : "The rematch was aborted: its first move did not come in time.";
  return how + " Rematch offers a new one.";
}

// the rematch offered after this game, watched as the game is: its abort (which changes the
// rematch, not this game) reaches this page at once
let rematchStream = null, rematchWatched = null;
function watchRematch(id) {
  if (id === rematchWatched) return;
  if (rematchStream) rematchStream.close();
  rematchWatched = id;
  rematchStream = id ? SG.live("/api/games/" + id + "/events", () => refresh()) : null;
}
const NAME_FIRST = "Choose your name first (at the top of the page).";
document.addEventListener("sg-name", () => {
  page.named = false; if (page.now) renderOnline(page.now);
  if ($("move-error").textContent === NAME_FIRST) $("move-error").textContent = "";  // chosen
});
let joining = false;  // a join is on its way: a second click would be refused as "someone else"
$("join").addEventListener("click", async () => {
  if (joining) return;
  $("move-error").textContent = "";
  if (!SG.name()) { $("move-error").textContent = NAME_FIRST; SG.askName(); return; }
  joining = true;
  try {
    const made = await SG.post("/api/games/" + gid + "/join", { name: SG.name() });
    SG.saveKey(gid, String(made.seat), made.secret);
    page.key = made.secret;
    history.replaceState(null, "", "#key=" + made.secret);
    refresh();
  } catch (e) { if (e.status === 404) gone(); else $("move-error").textContent = e.message; }
  finally { joining = false; }
});
async function rematch() {
  try {
    const made = await SG.post("/api/games/" + gid + "/rematch", { secret: page.key });
    SG.saveKey(made.id, String(made.seat), made.secret);
    location.href = made.link;
  } catch (e) { $("move-error").textContent = e.message; }
}
$("rematch").addEventListener("click", rematch);
$("accept-rematch").addEventListener("click", rematch);
$("withdraw").addEventListener("click", async () => {
  try { await SG.post("/api/games/" + gid + "/withdraw", { secret: page.key }); SG.dropGame(gid); location.href = SG.url("/lobby"); }
  catch (e) { $("move-error").textContent = e.message; }
});
