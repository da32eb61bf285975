// Settings kept in this browser: confirm moves before playing them, a sound and a
// notification on one's turn and at a game's end that the other side brought.
import { $, info } from "./state.js";

const setting = (name, fallback) => { try { const v = localStorage.getItem(name); return v === null ? fallback : v === "on"; } catch (e) { return fallback; } };
export const store = (name, on) => { try { localStorage.setItem(name, on ? "on" : "off"); } catch (e) { /* private mode */ } };
const smallOrTouch = matchMedia("(pointer: coarse)").matches || innerWidth < 700;
export const settings = {
  confirmMoves: setting("sg-confirm-moves", smallOrTouch),
  sound: setting("sg-turn-sound", false),
  notify: setting("sg-turn-notify", false) && "Notification" in window && Notification.permission === "granted",
};
$("turn-notify").checked = settings.notify;
$("turn-notify").disabled = !("Notification" in window);
$("turn-notify").addEventListener("change", async (ev) => {
  settings.notify = ev.target.checked;
  if (settings.notify && Notification.permission !== "granted") settings.notify = (await Notification.requestPermission()) === "granted";
  ev.target.checked = settings.notify;
  store("sg-turn-notify", settings.notify);
});
$("confirm-setting").hidden = !info.click_to_play;
$("confirm-moves").checked = settings.confirmMoves;
$("turn-sound").checked = settings.sound;
$("turn-sound").addEventListener("change", (ev) => { settings.sound = ev.target.checked; store("sg-turn-sound", settings.sound); if (settings.sound) beep(); });

export function beep() {
  try {
    const ctx = new AudioContext();
    const osc = ctx.createOscillator(), gain = ctx.createGain();
    osc.frequency.value = 660; gain.gain.value = 0.08;
    osc.connect(gain); gain.connect(ctx.destination);
    osc.start(); osc.stop(ctx.currentTime + 0.18);
  } catch (e) { /* no audio */ }
}
