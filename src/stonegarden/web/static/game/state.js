// The game page's shared state: the game, this link's seat key, the snapshots shown, and the
// few words every part of the page uses. The other modules read and set it through `page`.
export const gid = document.body.dataset.gid;
export const keyInLink = () => new URLSearchParams(location.hash.slice(1)).get("key");
// the seat this browser plays in this game with another key than k: [seat, key], or undefined
export const ownOther = (k) => Object.entries(SG.keys()[gid] || {}).find(([seat, key]) => seat !== "?" && key !== k);
// the link of the other seat opened in a browser that plays one seat of this game (the
// opponent's link, copied by mistake): not this browser's seat, which would then hold both
// and play the opponent's moves as a record studied here, in "my games" too
const made = (k) => Object.values(SG.invites()[gid] || {}).includes(k);
export const foreign = (k) => !!k && !made(k) && !Object.values(SG.keys()[gid] || {}).includes(k) && !!ownOther(k);
// the link of a seat this browser made for a friend (SG.invites), opened here to check it (or
// for the friend to play here), or the opponent's (foreign): the seat stays theirs (not one
// of this browser's, not named after its user, and its opening is not their arrival)
export const invited = (k) => made(k) || foreign(k);
export const $ = (id) => document.getElementById(id);
export const info = JSON.parse($("page-info").textContent);
export const baseTitle = document.title;
export const SVG = "http://www.w3.org/2000/svg";

export const page = {
  key: keyInLink(),
  snap: null,         // the snapshot shown (of the viewed ply)
  now: null,          // the live position's snapshot: clocks, status and turn alert follow it
  viewPly: null,      // null: follow the live game
  moving: false,      // a move is on its way to the server: more clicks wait for its answer
  focusCell: null,    // the board cell that holds the keyboard focus
  wasMyTurn: false,
  wasOver: null,      // whether the game was over at the last snapshot (null: none shown yet)
  acting: false,      // this page's own request (a move, a resignation) is on its way
  engineReady: true,  // false until the server has loaded the engine's kernels
  undone: null,       // the moves an Undo of this page took back ({length, moves})
  named: false,       // this seat's name was sent
};
if (page.key && !invited(page.key)) SG.saveKey(gid, "?", page.key);

export const names = () => (page.snap && page.snap.players) || info.players;
export const short = (p) => (/^Player \d$/.test(names()[p - 1]) ? "P" + p : names()[p - 1]);

// the seat this link holds is played by a person here; a link to a computer's seat (two
// computers to watch) may cancel or resume it, but its games are not "yours" to win or lose
export const playing = (s) => !!s.you && s.seats[s.you - 1] === "human";
// both seats held in this browser (an uploaded record, kept for study): the result and the
// moves are said as to a spectator, and there is no opponent to offer a rematch
export const bothSeats = () => { const k = SG.keys()[gid] || {}; return !!(k["1"] && k["2"]); };

/** Set a live region's text only when it changes: a screen reader says each change, and a
 * refresh that changes nothing must not make it repeat itself. */
export function say(el, text) { if (el.textContent !== text) el.textContent = text; }
