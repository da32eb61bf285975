// "My games": every game whose seat link this browser holds, those where it is your turn first.
// Updated live: one stream tells of a change in any of them.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const body = $("mine").querySelector("tbody");
  const baseTitle = document.title;
  let stream = null, watching = "";

  const cell = SG.cell;

  const reload = SG.backoff(() => refresh());

  // the games listed: the ones this browser took a seat in last, read 100 a request (the
  // server's most). Only the last 100 were read: a game going on, your turn in it, left the
  // list without a word once 100 newer ones had come (quick games against the computer)
  const MOST = 500, EACH = 100;

  // the loads asked for (the page's own, each live update's): an older one answered last
  // would list the games as they were, a turn come since not yours, until the next change
  let asked = 0;
  async function refresh() {
    const mine = ++asked;
    const keys = SG.keys();
    const ids = Object.keys(keys).filter((g) => keys[g]["1"] || keys[g]["2"]).slice(-MOST);
    $("mine-empty").hidden = ids.length > 0;
    if (!ids.length) { body.textContent = ""; return; }
    const parts = [];
    for (let i = 0; i < ids.length; i += EACH) parts.push(ids.slice(i, i + EACH));
    const answers = await SG.getShown(parts.map((part) => "/api/games?ids=" + part.map(encodeURIComponent).join(",")),
                                      $("mine-error"), reload);
    if (!answers || mine !== asked) return;  // a later load answers instead
    const rows = answers.flatMap((a) => a.games).map((g) => {
      const held = ["1", "2"].filter((s) => keys[g.id][s]);
      const seat = held.includes(String(g.to_move)) ? String(g.to_move) : held[0];
      // an uploaded record, both of whose seats are this browser's, is studied: no one waits for
      // its next move, so it is not counted as "your turn"
      const study = !g.result && held.length === 2 && g.seats.every((s) => s === "human");
      const turn = !study && !g.result && g.to_move !== null && held.includes(String(g.to_move)) && g.seats[g.to_move - 1] === "human" && !g.seats.includes("open");
      // the computer to move, which a person here paused: it waits for them, not they for it
      const paused = !g.result && g.paused && g.to_move !== null && g.seats[g.to_move - 1] !== "human";
      return { g, seat, turn, held, study, paused };
    });
    const rank = (r) => (r.turn || r.paused ? 0 : r.g.result ? 2 : 1);
    rows.sort((a, b) => rank(a) - rank(b) || b.g.updated - a.g.updated);
    SG.refill(body, () => fill(rows, keys));
    const turns = rows.filter((r) => r.turn).length;
    sayNewTurns(rows);
    // one stream watches at most 100 games: your turns first, then the latest to change
    const going = rows.filter((r) => !r.g.result).slice(0, EACH).map((r) => r.g.id).join(",");
    if (going !== watching) {
      if (stream) stream.close();
      watching = going;
      stream = going ? SG.live("/api/events?ids=" + going, later) : null;
    }
    document.title = (turns ? `(${turns}) Your turn · ` : "") + baseTitle;
    document.body.dataset.turns = turns;
  }

  // a game that becomes your turn while the page is open is said (the row's shade and the
  // tab's title are all that showed it, which a screen reader does not read out); the games
  // already your turn when the page opened are in the list, not said
  let turnsSeen = null;
  function sayNewTurns(rows) {
    const came = rows.filter((r) => r.turn && turnsSeen && !turnsSeen.has(r.g.id));
    turnsSeen = new Set(rows.filter((r) => r.turn).map((r) => r.g.id));
    if (came.length) $("mine-said").textContent = came.map(({ g, seat }) => `Your turn in ${g.title}, against ${SG.isolate(against(g, seat))}.`).join(" ");
  }
  // whom this seat plays: a person's name, or the computer in words ("computer, level 3")
  const against = (g, seat) => {
    const other = String(3 - seat);
    return g.seats[other - 1] === "human" ? (g.names[other] || "a person") : g.seat_words[other - 1];
  };

  function fill(rows, keys) {
    body.textContent = "";
    let turns = 0;
    for (const { g, seat, turn, held, study, paused } of rows) {
      const tr = document.createElement("tr");
      tr.dataset.gid = g.id;
      tr.dataset.turn = turn;
      if (turn) { tr.className = "your-turn"; turns++; }
      // a link to a computer's seat (two computers playing, from the home page) watches them
      const watching = g.seats[seat - 1] !== "human";
      cell(tr, turn ? "Your turn" : g.result ? resultText(g, seat, held) : study ? "Studying" : paused ? "Computer paused" : g.seats.includes("open") ? waitingText(g) : watching ? "Playing" : "Their turn");
      cell(tr, g.title);
      // both seats held (an uploaded record): its players are the record's, neither of them you
      const both = held.length === 2 && !watching;
      SG.nameCell(tr, watching ? "watching" : both ? "both seats" : g.names[seat] || g.players[seat - 1], "You");
      SG.nameCell(tr, watching ? g.seat_words.join(" vs ") : both ? ["1", "2"].map((p) => SG.isolate(g.names[p] || g.players[p - 1])).join(" vs ")
        : against(g, seat), "Against");
      cell(tr, String(g.moves), "Moves");
      cell(tr, g.clock_text || "", "Clock");
      cell(tr, new Date(g.updated * 1000).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }));
      const a = document.createElement("a");
      a.href = SG.url("/game/" + g.id + "#key=" + keys[g.id][seat]); a.textContent = turn ? "Play" : g.result ? "Review" : "Open";
      // which game, for a screen reader's list of links: the row's cells, each with its
      // column's heading, and the parameters that are not the game's defaults ("Review, Free
      // Go, size 5, You won, against computer, level 3, moves 12, ...")
      const [state, title, ...rest] = [...tr.cells];
      const params = Object.entries(g.params).map(([k, v]) => `${k.replace(/_/g, " ")} ${v}`).join(", ");
      SG.nameFor(a, title.textContent, params, state.textContent, ...rest.map((td) => td.textContent
        && `${(td.dataset.label || "updated").toLowerCase()} ${td.textContent}`));
      cell(tr, "").append(a);
      body.append(tr);
    }
  }

  /** A game of yours with an open seat: waiting in the lobby, or by its link alone; a public
   * one no one joined in a week has left the lobby, and waits for no one who looks there. */
  function waitingText(g) {
    return g.public && !g.in_lobby ? "No one joined: unlisted after a week" : "Waiting for a player";
  }

  /** How a finished game ended, from this browser's side ("You won"), or the winner's side
   * where it holds both seats or watches two computers. */
  function resultText(g, seat, held) {
    const w = g.result.winner;
    if (g.result.reason === "aborted") return "Aborted";
    if (w !== 1 && w !== 2) return "Draw";
    if (held.length === 2 || g.seats[seat - 1] !== "human") return `${g.players[w - 1]} won`;
    return String(w) === seat ? "You won" : "You lost";
  }

  let pending = null;
  function later() { clearTimeout(pending); pending = setTimeout(refresh, 150); }
  refresh();
})();
