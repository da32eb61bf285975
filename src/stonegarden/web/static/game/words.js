// The game in words, shown and said to a screen reader: the result, the last move, whose turn
// it is, and the computer's thinking.
import { $, foreign, names, page, playing, bothSeats } from "./state.js";
import { render } from "./main.js";

export function resultText(s) {
  const o = s.outcome;
  if (!o) return "";
  const yours = playing(s) && !bothSeats() && !foreign(page.key);
  // the sentence names the player: to that player it says "you" ("You lost: you resigned",
  // not "You lost: Black resigned", which read as if Black were someone else)
  const mine = yours ? names()[s.you - 1] + " " : null;
  const detail = mine && o.detail.startsWith(mine) ? "you " + o.detail.slice(mine.length) : o.detail;
  if (o.reason === "aborted") return `Aborted: ${detail}`;
  if (o.winner === 0) return `A draw: ${o.detail}`;
  if (yours) return `${o.winner === s.you ? "You won" : "You lost"}: ${detail}`;
  return `${names()[o.winner - 1]} won: ${o.detail}`;
}

// until the server has loaded the engine's kernels, a first reply or hint waits for them
export const PREPARING = "Preparing the engine, first start only…";
let engineTimer = null;
export function watchEngine(s) {
  page.engineReady = s.engine_ready !== false;
  if (page.engineReady || engineTimer) return;
  engineTimer = setInterval(async () => {
    try {
      const e = await SG.get("/api/engine");
      if (!e.ready) return;
      page.engineReady = true; clearInterval(engineTimer); engineTimer = null;
      if (page.snap) render(page.snap);
    } catch (err) { /* the next tick asks again */ }
  }, 1000);
}

/** The moves an Undo of this page took back, in words, while the game stays where it left
 * it: else a screen reader heard nothing (no last move to say, the same player to move).
 * Said until another position is shown: back at it later, nothing was undone again. */
export function undoneText(s) {
  if (!page.undone || s.length !== page.undone.length || s.ply !== s.length) { page.undone = null; return ""; }
  const placed = page.undone.moves.filter((m) => m.player).reverse();  // a roll places nothing
  const whose = (m) => (m.player === s.you ? "your" : names()[m.player - 1] + "'s") + " " + m.text;
  return placed.length ? `Undone: ${placed.map(whose).join(" and ")}. ` : "";
}

/** What the last move did, in words (shown and said): who played what, what it captured,
 * the moves it made by itself (Blobs' auto moves), and the dice rolled since. */
export function lastMoveText(s) {
  let k = s.ply;
  while (k > 0 && !s.moves[k - 1].player) k--;  // a roll places nothing
  const rolls = s.moves.slice(k, s.ply).map((r) => r.words || r.text);
  if (!k) {  // the game's first roll(s), before anyone moved
    const said = rolls.join(", ");
    return said && said[0].toUpperCase() + said.slice(1) + ".";
  }
  const m = s.moves[k - 1];
  const who = m.player === s.you && !bothSeats() ? "You" : names()[m.player - 1];
  let text = m.text === "pass" ? `${who} passed` : m.text === "resign" ? `${who} resigned` : `${who} played ${m.text}`;
  if (s.captured.length) text += `, capturing ${s.captured.join(", ")}`;
  // Bridge Go removes the mover's own chains left without an external liberty: no capture
  const own = s.self_captured || [];
  if (own.length) text += `; ${who === "You" ? "your" : who + "'s"} own ${own.join(", ")} ${own.length === 1 ? "was" : "were"} removed`;
  // Free Go's suicide stays, counting for nothing, until the opponent's next move removes
  // and scores it: said, else it read as a stone to capture
  const lost = s.no_liberty || [];
  if (lost.length) {
    const taker = s.to_move === s.you && !bothSeats() ? "your" : names()[2 - m.player] + "'s";
    const it = lost.length === 1 ? "it" : "them";
    text += `; ${lost.join(", ")} ${lost.length === 1 ? "has" : "have"} no liberty: ${taker} next move removes ${it} and scores ${it}`;
  }
  if (m.auto && m.auto.length) text += `, then ${m.auto.length === 1 ? "one die" : m.auto.length + " dice"} placed automatically: ${m.auto.join(", ")}`;
  if (rolls.length) text += `; then ${rolls.join(", ")}`;
  return text + ".";
}

/** The agent of a seat as the seats line names it ("computer, level 3"), not by its spec
 * ("level:3"); another spec ("mcts:time=3") as it is. */
const agentWords = (s, seat) => (/^level:\d$/.test(s.seats[seat - 1]) ? s.seat_words[seat - 1] : s.seats[seat - 1]);

/** The live position in words: whose turn, who thinks, or how it ended. */
export function statusText(s) {
  if (s.terminal) return "Game over: " + resultText(s);
  if (s.thinking && !page.engineReady) return PREPARING;
  if (s.thinking && s.thinking.queued) return `${names()[s.to_move - 1]} (${agentWords(s, s.to_move)}) waits for a free worker…`;
  if (s.thinking) return `${names()[s.to_move - 1]} (${agentWords(s, s.to_move)}) is thinking…`;
  // cancelled, or its job failed: it moves no more until asked (else "Black to move" waited
  // for ever)
  if (s.paused && s.to_move && s.seats[s.to_move - 1] !== "human") return `${names()[s.to_move - 1]} (${agentWords(s, s.to_move)}) is paused`;
  if (s.open) return "Waiting for someone to join";
  if (s.can_play && foreign(page.key)) return `${names()[s.to_move - 1]} to move (your opponent)`;
  if (s.can_play) return `Your turn (${names()[s.to_move - 1]})`;
  return s.to_move ? `${names()[s.to_move - 1]} to move` : "Rolling the die…";
}

/** The agent thinking, in words: "The computer (level 6)" as the seats line says it, not its
 * spec ("level:6 is thinking"); another spec as it is ("The computer (mcts:time=3)"). */
function thinker(t) {
  const level = levelOf(t.spec);
  return `The computer (${level ? "level " + level : t.spec})`;
}

/** The level an agent's spec seats ("level:3" -> "3"), or null. */
function levelOf(spec) {
  const m = /^level:(\d)$/.exec(spec);
  return m && m[1];
}

/** A hint in words: the move, where to see it, and who gave it as the seats line names an
 * agent ("the computer's search", "the computer (level 2)"), not by its spec ("Hint (mcts:
 * threads=2): e4" told a newcomer nothing); a host's other agent (``--hint-agent``) by its spec.
 * A pass marks no cell: it is not said to be on the board. */
export function hintText(h) {
  const level = levelOf(h.agent);
  const who = /^mcts(:|$)/.test(h.agent) ? "the computer's search"
    : level ? `the computer (level ${level})` : `the agent '${h.agent}'`;
  const where = h.cells && h.cells.length ? ", marked on the board" : "";
  return `Hint: ${h.move}${where} (from ${who})`;
}

/** What the agent searches for its move (the server's ``sims`` and ``time``), in words:
 * "it searches 2000 playouts or 5 s, whichever ends first", not "budget: sims=2000, time=5". */
function searchWords(o) {
  const sims = o.sims && SG.count(+o.sims, "playout"), time = o.time && `${o.time} s`;
  if (sims && time) return `it searches ${sims} or ${time}, whichever ends first`;
  return sims ? `it searches ${sims}` : time ? `it searches for ${time}` : "";
}

let timer = null;
export function renderThinking(s) {
  const box = $("thinking-box");
  clearInterval(timer);
  if (s.thinking || s.paused) {
    box.hidden = false;
    $("cancel").hidden = !(s.thinking && s.you);  // the players' (a spectator's is refused)
    $("resume").hidden = !(s.paused && s.you);
    if (s.thinking) {
      const t = s.thinking, start = Date.now() - 1000 * t.elapsed;
      const who = thinker(t), search = searchWords(t.options);
      const seconds = () => ((Date.now() - start) / 1000).toFixed(0);
      const ahead = t.waiting ? `, ${SG.count(t.waiting, "job")} ahead` : "";
      const show = () => {
        $("thinking").textContent = !page.engineReady ? PREPARING + ` (${who} then thinks for at most ${t.budget} s)`
          : t.queued ? `${who} waits for a free worker (${seconds()} s so far${ahead}); then it thinks for at most ${t.budget} s`
          : `${who} is thinking: ${seconds()} s of at most ${t.budget} s` + (search ? ` (${search})` : "");
      };
      show(); timer = setInterval(show, 1000);
    } else { $("thinking").textContent = "The agent is paused."; }
  } else box.hidden = true;
}
