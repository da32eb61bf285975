// The clocks, kept by the server and shown counting down between snapshots, and the wait for
// a first move.
import { $, names, playing, short } from "./state.js";
import { refresh } from "./main.js";

let clockTimer = null;
const firstShown = new WeakMap();  // snapshot -> when its clocks were first shown
function clockText(seconds, c) {
  const t = Math.max(0, seconds);
  if (c.days_per_move && t >= 3600) {
    const d = Math.floor(t / 86400), h = Math.floor((t % 86400) / 3600), m = Math.floor((t % 3600) / 60);
    return (d ? d + " d " : "") + h + " h " + String(m).padStart(2, "0") + " min";
  }
  const h = Math.floor(t / 3600), m = Math.floor((t % 3600) / 60), sec = t % 60;
  const ss = t < 10 ? sec.toFixed(1).padStart(4, "0") : String(Math.floor(sec)).padStart(2, "0");
  return (h ? h + ":" + String(m).padStart(2, "0") : String(m)) + ":" + ss;
}
// the player's own clock running low, framed in red, is said too, once a turn: a screen
// reader heard nothing of it until the game was lost on time
let lowSaid = null;
// the wait for the player's own first move (no clock runs yet) is said as it begins and in its
// last 10 s, once each ("<length>", then "<length> low"): it was only shown counting down,
// and a screen reader heard of it once the game had aborted itself
let firstSaid = null;
export function renderClock(s) {
  clearInterval(clockTimer);
  const c = s.clock, box = $("clocks");
  box.hidden = !c;
  if (lowSaid !== s.length || s.terminal) $("clock-said").textContent = "";  // moved, or over
  if (!c) { $("first-move").hidden = true; return; }
  // the wall clock, not performance.now(): browsers do not count the latter while the machine
  // sleeps (Linux, macOS), and a phone unlocked showed the minutes it had slept as still left.
  // Counted from when this snapshot was first shown: drawn again (the engine ready), it
  // showed its times anew, seconds more than were left
  const at = firstShown.get(s) ?? Date.now();
  firstShown.set(s, at);
  // a real-time game whose player to move has not made a first move aborts itself when
  // it does not come in time: the wait is shown counting down, as the clocks are
  const first = $("first-move"), waits = c.abort_in != null && !s.terminal;
  first.hidden = !waits;
  const show = () => {
    let flagged = false;
    if (waits) {
      const left = c.abort_in - (Date.now() - at) / 1000, t = clockText(left, c);
      const mine = !c.not_here && s.to_move === s.you && playing(s);
      // a player who has not opened the game (a friend's link not followed yet): their first
      // move is waited for from when they do, but the game does not wait for ever
      first.textContent = c.not_here
        ? `${names()[c.not_here - 1]} has not opened the game yet${c.days_per_move ? "" : ": their first move is waited for from when they do"}. Unless they open it within ${t}, the game is aborted.`
        : mine
        ? `Make your first move within ${t}, or the game is aborted.`
        : `${names()[s.to_move - 1]} has ${t} to make a first move, or the game is aborted.`;
      if (mine && left > 0 && firstSaid !== `${s.length} low`) {
        if (left < 10) { firstSaid = `${s.length} low`; $("clock-said").textContent = "Less than 10 seconds to make your first move, or the game is aborted."; }
        else if (firstSaid !== String(s.length)) { firstSaid = String(s.length); $("clock-said").textContent = first.textContent; }
      }
      first.dataset.left = Math.max(0, left).toFixed(1);
      if (left <= 0) flagged = true;
    }
    for (const p of [1, 2]) {
      const left = c[p] - (c.running === p ? (Date.now() - at) / 1000 : 0);
      const el = $("clock-" + p), low = left < 10 || (c.days_per_move && left < 3600);
      el.textContent = `${short(p)} ${clockText(left, c)}`;
      el.classList.toggle("running", c.running === p);
      el.classList.toggle("low", low);
      if (low && left > 0 && c.running === p && p === s.you && playing(s) && !s.terminal && lowSaid !== s.length) {
        lowSaid = s.length;
        $("clock-said").textContent = c.days_per_move ? "Less than an hour left for your move." : "Less than 10 seconds left on your clock.";
      }
      el.dataset.left = Math.max(0, left).toFixed(1);
      if (c.running === p && left <= 0) flagged = true;
    }
    if (flagged) { clearInterval(clockTimer); setTimeout(refresh, 500); }  // the server flags it
  };
  show();
  if ((c.running || waits) && !s.terminal) clockTimer = setInterval(show, 200);
}

export function stopClock() { clearInterval(clockTimer); }
