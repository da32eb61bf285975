"use strict";
(function () {
  const gid = document.body.dataset.gid;
  const keyInLink = () => new URLSearchParams(location.hash.slice(1)).get("key");
  let key = keyInLink();
  // the link of a seat this browser made for a friend (SG.invites), opened here to check it:
  // the seat stays the friend's (not one of this browser's, and not named after its user)
  const invited = (k) => Object.values(SG.invites()[gid] || {}).includes(k);
  if (key && !invited(key)) SG.saveKey(gid, "?", key);
  const $ = (id) => document.getElementById(id);
  const info = JSON.parse($("page-info").textContent);
  const baseTitle = document.title;
  let snap = null;        // the snapshot shown (of the viewed ply)
  let now = null;         // the live position's snapshot: clocks, status and turn alert follow it
  let viewPly = null;     // null: follow the live game
  let moving = false;     // a move is on its way to the server: more clicks wait for its answer
  let pending = [];       // hex builder: [{letter, cell}]
  let colour = null;      // hex builder: selected colour letter
  let typed = false;      // the text field was edited by hand
  let chosenCell = null;  // die-face builder (Blobs): the frontier cell whose faces are offered
  let chosen = null;      // confirm-moves mode: {text, cell} chosen, not yet played
  let focusCell = null;   // the board cell that holds the keyboard focus
  let wasMyTurn = false;

  // -- settings kept in this browser -------------------------------------------------------
  const setting = (name, fallback) => { try { const v = localStorage.getItem(name); return v === null ? fallback : v === "on"; } catch (e) { return fallback; } };
  const store = (name, on) => { try { localStorage.setItem(name, on ? "on" : "off"); } catch (e) { /* private mode */ } };
  const smallOrTouch = matchMedia("(pointer: coarse)").matches || innerWidth < 700;
  let confirmMoves = setting("sg-confirm-moves", smallOrTouch);
  let sound = setting("sg-turn-sound", false);
  let notify = setting("sg-turn-notify", false) && "Notification" in window && Notification.permission === "granted";
  $("turn-notify").checked = notify;
  $("turn-notify").disabled = !("Notification" in window);
  $("turn-notify").addEventListener("change", async (ev) => {
    notify = ev.target.checked;
    if (notify && Notification.permission !== "granted") notify = (await Notification.requestPermission()) === "granted";
    ev.target.checked = notify;
    store("sg-turn-notify", notify);
  });
  $("confirm-setting").hidden = !info.click_to_play;
  $("confirm-moves").checked = confirmMoves;
  $("turn-sound").checked = sound;
  $("confirm-moves").addEventListener("change", (ev) => { confirmMoves = ev.target.checked; store("sg-confirm-moves", confirmMoves); chosen = null; if (snap) renderBuilder(snap); });
  $("turn-sound").addEventListener("change", (ev) => { sound = ev.target.checked; store("sg-turn-sound", sound); if (sound) beep(); });

  function beep() {
    try {
      const ctx = new AudioContext();
      const osc = ctx.createOscillator(), gain = ctx.createGain();
      osc.frequency.value = 660; gain.gain.value = 0.08;
      osc.connect(gain); gain.connect(ctx.destination);
      osc.start(); osc.stop(ctx.currentTime + 0.18);
    } catch (e) { /* no audio */ }
  }

  // -- talking to the server ---------------------------------------------------------------
  // the live snapshot, and the viewed ply's when browsing back; a fresh one clears an old error.
  // While the server can't be reached (a restart, the network) it is asked again, backing off.
  const reload = SG.backoff(() => refresh());
  let asked = 0;
  async function refresh() {
    const mine = ++asked, headers = key ? { "X-Seat-Secret": key } : {};
    // a friend's link checked here is not the friend arriving: their first move is waited
    // for from when they open it
    if (key && invited(key)) headers["X-Seat-Present"] = "0";
    try {
      const current = await SG.get("/api/games/" + gid, headers);
      if (viewPly !== null && viewPly >= current.length) viewPly = null;
      const shown = viewPly === null ? current : await SG.get(`/api/games/${gid}?ply=${viewPly}`, headers);
      if (mine !== asked) return;  // a later refresh answers instead
      reload.reset();
      now = current;
      $("move-error").textContent = "";
      render(shown);
    } catch (e) {
      if (mine !== asked) return;
      if (e.status === 404 && snap) { gone(); return; }
      $(snap ? "move-error" : "status").textContent = e.offline ? SG.OFFLINE + " — retrying…" : e.message;
      if (e.offline) reload.later();
    }
  }

  /** The game shown is no longer stored: its creator withdrew it before anyone joined (the
   * only way a game goes). Nothing on the page can act on it any more. */
  function gone() {
    const focused = document.activeElement;
    clearInterval(clockTimer);
    document.body.dataset.gone = "true";
    $("status").textContent = "This game was withdrawn: its creator took it back before anyone joined.";
    $("status").className = "status over";
    for (const id of ["waiting", "rematch-offer", "rematch", "clocks", "first-move", "builder", "study-card", "thinking-box"]) $(id).hidden = true;
    $("result").hidden = false;
    $("move-error").textContent = "";
    document.title = baseTitle;
    if (focused && focused !== document.body) keepFocus();  // Take the open seat, say, is gone
  }

  function clearChoice() { pending = []; chosen = null; chosenCell = null; typed = false; $("move-text").value = ""; }

  async function act(name, extra) {
    $("move-error").textContent = "";
    const before = now;
    try {
      const data = await SG.post("/api/games/" + gid + "/" + name, Object.assign({ secret: key }, extra || {}));
      if (name === "move" || name === "undo" || name === "redo") clearChoice();
      if (name === "undo" && before) undone = { length: data.length, moves: before.moves.slice(data.length) };
      viewPly = null;  // the answer is the live position
      render(data);
      keepFocus();
      // a refresh asked before this answer came may have shown a newer position (an agent's
      // quick reply) that this answer has just covered: ask again, after it
      refresh();
      return data;
    } catch (e) {
      // refused as out of date (another tab, a missed update): show the game as it is now
      if (e.status === 409) { clearChoice(); await refresh(); }
      $("move-error").textContent = e.offline ? SG.OFFLINE + ": try again in a moment" : e.message;
      return null;
    }
  }

  async function play(text) {
    if (moving) return;  // a double click or tap: the first one is being played
    moving = true;
    try { await act("move", { move: text, ply: snap.length }); } finally { moving = false; }
  }

  /** After an action or a new snapshot, the control that held the focus may be disabled or
   * gone (Confirm, a face, Pass, Undo, Cancel): the focus goes back to the board, where the
   * next move is chosen, rather than to the top of the page. */
  function keepFocus() {
    const f = document.activeElement;
    // without scrolling: on a phone the board may be above, and the page must not jump
    if (!f || f === document.body || f.disabled || !f.getClientRects().length) $("board").querySelector('[data-cell][tabindex="0"]')?.focus({ preventScroll: true });
  }

  // -- words --------------------------------------------------------------------------------
  const names = () => (snap && snap.players) || info.players;
  const short = (p) => (/^Player \d$/.test(names()[p - 1]) ? "P" + p : names()[p - 1]);

  // the seat this link holds is played by a person here; a link to a computer's seat (two
  // computers to watch) may cancel or resume it, but its games are not "yours" to win or lose
  const playing = (s) => !!s.you && s.seats[s.you - 1] === "human";
  // both seats held in this browser (an uploaded record, kept for study): the result and the
  // moves are said as to a spectator, and there is no opponent to offer a rematch
  const bothSeats = () => { const k = SG.keys()[gid] || {}; return !!(k["1"] && k["2"]); };

  function resultText(s) {
    const o = s.outcome;
    if (!o) return "";
    if (o.reason === "aborted") return `Aborted: ${o.detail}`;
    if (o.winner === 0) return `A draw: ${o.detail}`;
    if (playing(s) && !bothSeats()) return `${o.winner === s.you ? "You won" : "You lost"}: ${o.detail}`;
    return `${names()[o.winner - 1]} won: ${o.detail}`;
  }

  // until the server has loaded the engine's kernels, a first reply or hint waits for them
  const PREPARING = "Preparing the engine, first start only…";
  let engineReady = true, engineTimer = null;
  function watchEngine(s) {
    engineReady = s.engine_ready !== false;
    if (engineReady || engineTimer) return;
    engineTimer = setInterval(async () => {
      try {
        const e = await SG.get("/api/engine");
        if (!e.ready) return;
        engineReady = true; clearInterval(engineTimer); engineTimer = null;
        if (snap) render(snap);
      } catch (err) { /* the next tick asks again */ }
    }, 1000);
  }

  function render(s) {
    if (s !== snap) watchEngine(s);
    snap = s;
    if (viewPly === null) now = s;
    const n = now || s;  // the live position, also while an old one is shown
    document.body.dataset.ply = s.ply;
    document.body.dataset.length = n.length;
    document.body.dataset.terminal = s.terminal;
    const focused = document.activeElement, hadFocus = $("board").contains(focused);
    $("board").innerHTML = s.svg;
    boardForScreenReaders();
    if (s.you && key && !invited(key)) SG.saveKey(gid, String(s.you), key);  // "my games" knows the seat
    const person = (p) => (s.names && s.names[p]) || "a person";
    const who = (p) => `${names()[p - 1]} (${s.seats[p - 1] === "human" ? person(p) : s.seats[p - 1] === "open" ? "open seat" : s.seats[p - 1]})`;
    const you = playing(s) ? (bothSeats() ? ` — you hold both seats; this link plays ${names()[s.you - 1]}` : ` — you play ${names()[s.you - 1]}`) : s.you || !key ? " — watching" : " — (this link's key is not valid)";
    $("seats").textContent = `${who(1)} · ${who(2)}${you}`;
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
    say($("hint-text"), s.hint ? `Hint (${s.hint.agent}): ${s.hint.move}` : "");
    renderBuilder(s);
    prepareBoardKeys(hadFocus);
    // a control this snapshot hid or disabled under the focus (Take the open seat once taken,
    // the move field when the opponent resigns, Cancel once the agent has moved): the focus
    // goes to the board, not to the top of the page
    if (focused && focused !== document.body) keepFocus();
    alertTurn(n);
    const other = s.you ? String(3 - s.you) : null;
    const passOn = (SG.invites()[gid] || {})[other] || (SG.keys()[gid] || {})[other];
    if (other && passOn && !invited(key) && s.seats[other - 1] === "human") {
      $("invite-url").value = new URL(SG.url("/game/" + gid + "#key=" + passOn), location.href).href;
      $("invite-link").hidden = false;
    }
  }

  /** Set a live region's text only when it changes: a screen reader says each change, and a
   * refresh that changes nothing must not make it repeat itself. */
  function say(el, text) { if (el.textContent !== text) el.textContent = text; }

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

  /** The moves an Undo of this page took back, in words, while the game stays where it left
   * it: else a screen reader heard nothing (no last move to say, the same player to move).
   * Said until another position is shown: back at it later, nothing was undone again. */
  let undone = null;
  function undoneText(s) {
    if (!undone || s.length !== undone.length || s.ply !== s.length) { undone = null; return ""; }
    const placed = undone.moves.filter((m) => m.player).reverse();  // a roll places nothing
    const whose = (m) => (m.player === s.you ? "your" : names()[m.player - 1] + "'s") + " " + m.text;
    return placed.length ? `Undone: ${placed.map(whose).join(" and ")}. ` : "";
  }

  /** What the last move did, in words (shown and said): who played what, what it captured,
   * the moves it made by itself (Blobs' auto moves), and the dice rolled since. */
  function lastMoveText(s) {
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
    if (m.auto && m.auto.length) text += `, then ${m.auto.length === 1 ? "one die" : m.auto.length + " dice"} placed automatically: ${m.auto.join(", ")}`;
    if (rolls.length) text += `; then ${rolls.join(", ")}`;
    return text + ".";
  }

  /** The live position in words: whose turn, who thinks, or how it ended. */
  function statusText(s) {
    if (s.terminal) return "Game over: " + resultText(s);
    if (s.thinking && !engineReady) return PREPARING;
    if (s.thinking && s.thinking.queued) return `${names()[s.to_move - 1]} (${s.thinking.spec}) waits for a free worker…`;
    if (s.thinking) return `${names()[s.to_move - 1]} (${s.thinking.spec}) is thinking…`;
    if (s.open) return "Waiting for someone to join";
    if (s.can_play) return `Your turn (${names()[s.to_move - 1]})`;
    return s.to_move ? `${names()[s.to_move - 1]} to move` : "Rolling the die…";
  }

  function alertTurn(s) {
    const mine = s.can_play;
    document.title = (mine ? "● Your turn · " : s.terminal ? "Game over · " : "") + baseTitle;
    if (mine && !wasMyTurn && sound) beep();
    if (mine && !wasMyTurn && notify && document.hidden) {
      try { new Notification("Your turn · " + baseTitle, { tag: "sg-" + gid }); } catch (e) { /* not allowed here */ }
    }
    wasMyTurn = mine;
  }

  // -- clocks, kept by the server; shown counting down between snapshots --------------------
  let clockTimer = null;
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
  function renderClock(s) {
    clearInterval(clockTimer);
    const c = s.clock, box = $("clocks");
    box.hidden = !c;
    if (lowSaid !== s.length) $("clock-said").textContent = "";
    if (!c) { $("first-move").hidden = true; return; }
    const at = performance.now();
    // a real-time game whose player to move has not made a first move aborts itself when
    // it does not come in time: the wait is shown counting down, as the clocks are
    const first = $("first-move"), waits = c.abort_in != null && !s.terminal;
    first.hidden = !waits && !c.not_here;
    if (c.not_here && !waits) {
      first.textContent = `${names()[c.not_here - 1]} has not opened the game yet: their first move is waited for from when they do.`;
      delete first.dataset.left;
    }
    const show = () => {
      let flagged = false;
      if (waits) {
        const left = c.abort_in - (performance.now() - at) / 1000, t = clockText(left, c);
        first.textContent = s.to_move === s.you && playing(s)
          ? `Make your first move within ${t}, or the game is aborted.`
          : `${names()[s.to_move - 1]} has ${t} to make a first move, or the game is aborted.`;
        first.dataset.left = Math.max(0, left).toFixed(1);
        if (left <= 0) flagged = true;
      }
      for (const p of [1, 2]) {
        const left = c[p] - (c.running === p ? (performance.now() - at) / 1000 : 0);
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

  // -- online play: the open seat, rematches -------------------------------------------------
  function renderOnline(s) {
    $("waiting").hidden = !s.open;
    $("withdraw").hidden = !s.you;
    $("join").hidden = !!s.you;
    // a person's seat held without a name (a link opened before a name was chosen): name it
    // now (an agent's seat keeps the agent's name)
    // (not where this browser holds both seats: an uploaded record's players are not its uploader)
    if (s.you && s.seats[s.you - 1] === "human" && s.names && !s.names[s.you] && SG.name() && !named && !invited(key) && !bothSeats()) {
      named = true;
      SG.post("/api/games/" + gid + "/name", { secret: key, name: SG.name() }).catch(() => { /* shown unnamed */ });
    }
    // an aborted game never started: no rematch (a new game instead)
    $("rematch").hidden = !(s.you && s.terminal) || s.reason === "aborted" || bothSeats();
    $("abort").hidden = !s.can_abort;
    $("rematch").textContent = s.rematch ? "Go to the rematch" : "Rematch";
    // offered to the opponent: whoever holds a seat of the rematch here offered or took it
    const inRematch = s.rematch && Object.keys(SG.keys()[s.rematch] || {}).some((seat) => seat !== "?");
    $("rematch-offer").hidden = !(s.you && s.rematch) || inRematch;
  }
  let named = false;
  const NAME_FIRST = "Choose your name first (at the top of the page).";
  document.addEventListener("sg-name", () => {
    named = false; if (now) renderOnline(now);
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
      key = made.secret;
      history.replaceState(null, "", "#key=" + made.secret);
      refresh();
    } catch (e) { if (e.status === 404) gone(); else $("move-error").textContent = e.message; }
    finally { joining = false; }
  });
  async function rematch() {
    try {
      const made = await SG.post("/api/games/" + gid + "/rematch", { secret: key });
      SG.saveKey(made.id, String(made.seat), made.secret);
      location.href = made.link;
    } catch (e) { $("move-error").textContent = e.message; }
  }
  $("rematch").addEventListener("click", rematch);
  $("accept-rematch").addEventListener("click", rematch);
  $("withdraw").addEventListener("click", async () => {
    try { await SG.post("/api/games/" + gid + "/withdraw", { secret: key }); SG.dropGame(gid); location.href = SG.url("/lobby"); }
    catch (e) { $("move-error").textContent = e.message; }
  });

  function renderScore(sc) {
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

  function renderMoves(s) {
    const ol = $("moves"); ol.textContent = "";
    s.moves.forEach((m) => {
      const li = document.createElement("li");
      li.textContent = (m.player ? short(m.player) + " " : "") + m.text + (m.auto && m.auto.length ? ` (auto ${m.auto.join(" ")})` : "") + (m.words ? ` (${m.words})` : "");
      li.dataset.ply = m.ply + 1;
      if (m.ply + 1 === s.ply) { li.className = "current"; li.setAttribute("aria-current", "step"); }
      li.addEventListener("click", () => goTo(m.ply + 1));
      ol.append(li);
    });
    const cur = ol.querySelector(".current"); if (cur) scrollWithin(ol, cur);
    markMoves();
  }

  /** Scroll a list to show its item, never the page (scrollIntoView would move the board away). */
  function scrollWithin(list, item) {
    const box = list.getBoundingClientRect(), r = item.getBoundingClientRect();
    if (r.top < box.top) list.scrollTop -= box.top - r.top;
    else if (r.bottom > box.bottom) list.scrollTop += r.bottom - box.bottom;
  }

  let timer = null;
  function renderThinking(s) {
    const box = $("thinking-box");
    clearInterval(timer);
    if (s.thinking || s.paused) {
      box.hidden = false;
      $("cancel").hidden = !(s.thinking && s.you);  // the players' (a spectator's is refused)
      $("resume").hidden = !(s.paused && s.you);
      if (s.thinking) {
        const t = s.thinking, start = Date.now() - 1000 * t.elapsed;
        const opts = Object.entries(t.options).map(([k, v]) => (k === "_" ? v : k + "=" + v)).join(", ");
        const seconds = () => ((Date.now() - start) / 1000).toFixed(0);
        const ahead = t.waiting ? `, ${SG.count(t.waiting, "job")} ahead` : "";
        const show = () => {
          $("thinking").textContent = !engineReady ? PREPARING + ` (${t.spec} then thinks for at most ${t.budget} s)`
            : t.queued ? `${t.spec} waits for a free worker (${seconds()} s so far${ahead}); then it thinks for at most ${t.budget} s`
            : `${t.spec} is thinking: ${seconds()} s of at most ${t.budget} s` + (opts ? ` (budget: ${opts})` : "");
        };
        show(); timer = setInterval(show, 1000);
      } else { $("thinking").textContent = "The agent is paused."; }
    } else box.hidden = true;
  }

  // -- the move builder --------------------------------------------------------------------
  function renderBuilder(s) {
    const b = s.builder;
    const live = s.can_play;
    $("builder").classList.toggle("inactive", !live);
    $("builder").hidden = !playing(s) || s.over;  // nothing to play
    ["confirm", "clear"].forEach((id) => { $(id).disabled = !live; });
    $("resign").disabled = !s.can_resign;  // between two people, on either's turn
    $("move-text").disabled = !live;
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
        btn.addEventListener("click", () => { colour = c.letter; renderBuilder(snap); });
        box.append(btn);
      }
      const note = document.createElement("span"); note.className = "muted";
      note.textContent = b.max_stones === 1 ? "first turn: one stone" : "one or two stones (one of each colour)";
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
        if (confirmMoves) btn.setAttribute("aria-pressed", String(picked));
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
    if (info.click_to_play && live && confirmMoves) {
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
    if (confirmMoves) { chosen = { text, cell }; typed = false; renderBuilder(snap); return; }
    chosenCell = null;
    play(text);
  }

  function pendingText(s) {
    if (!s || s.builder.kind !== "hex-two-colour") return "";
    const order = s.builder.colours.map((c) => c.letter);
    return pending.slice().sort((a, b) => order.indexOf(a.letter) - order.indexOf(b.letter)).map((p) => p.letter + p.cell).join(",");
  }

  const SVG = "http://www.w3.org/2000/svg";
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
    const colourName = (letter) => (snap.builder.colours || []).find((c) => c.letter === letter)?.name;
    for (const p of pending) {
      const g = svg.querySelector(`[data-cell="${p.cell}"]`);
      if (g) { ghost(g, "#sg-stone-" + p.letter); nameChosen(g, `${colourName(p.letter) || p.letter} stone`); }
    }
    const cell = chosen ? chosen.cell : chosenCell;
    const g = cell ? svg.querySelector(`[data-cell="${cell}"]`) : null;
    if (g && snap.builder.kind === "point" && chosen) ghost(g, "#" + snap.builder.ghost);
    else if (g) g.classList.add("pending");
    if (g) nameChosen(g, chosen && snap.builder.kind === "die-face" ? chosen.text : "");  // the face
  }

  /** Why a cell chosen does nothing, said (an alert) rather than ignored in silence. */
  function refuseCell(why) { $("move-error").textContent = why; }

  /** A cell clicked, or chosen with Enter (``fromKey``: a click may be a double click's
   * second, after the move its first played, which is no mistake to point out). */
  function cellChosen(cell, fromKey) {
    if (!snap || moving) return;
    const name = cell.dataset.cell, b = snap.builder;
    if (!snap.can_play) {
      if (!fromKey) return;
      if (viewPly !== null && snap.you) refuseCell("this is an earlier position: End (or ▶▶) comes back to the game");
      else if (now && now.you && !now.terminal) refuseCell(`not your turn: ${statusText(now)}`);
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
      renderBuilder(snap);
      return;
    }
    if (b.kind !== "hex-two-colour") return;
    if (cell.dataset.content) { refuseCell(`${name} is taken`); return; }
    typed = false;
    const here = pending.findIndex((p) => p.cell === name);
    if (here >= 0) { pending.splice(here, 1); renderBuilder(snap); return; }
    pending = pending.filter((p) => p.letter !== colour);
    if (pending.length >= b.max_stones) pending = [];
    pending.push({ letter: colour, cell: name });
    const other = b.colours.find((c) => c.letter !== colour);
    if (b.max_stones > 1 && other && !pending.some((p) => p.letter === other.letter)) colour = other.letter;
    renderBuilder(snap);
  }

  $("board").addEventListener("click", (ev) => {
    const cell = ev.target.closest("[data-cell]");
    if (cell) { focusCell = cell.dataset.cell; cellChosen(cell); }
  });

  // -- the board from the keyboard: one focusable cell at a time (roving tabindex) ---------
  function cells() { return [...$("board").querySelectorAll("[data-cell]")]; }
  function prepareBoardKeys(hadFocus) {
    const all = cells();
    if (!all.length) return;
    let current = all.find((c) => c.dataset.cell === focusCell) || $("board").querySelector("[data-cell].legal") || all[0];
    all.forEach((c) => c.setAttribute("tabindex", "-1"));
    current.setAttribute("tabindex", "0");
    if (hadFocus) current.focus({ preventScroll: true });  // the same cell, where it was
  }
  // the focused cell gets a ring drawn over the whole board (a cell's own outline would be
  // hidden under its neighbours, and in blue it would read as the last-move mark)
  function drawFocus(cell) {
    const svg = $("board").querySelector("svg");
    if (!svg) return;
    svg.querySelectorAll(".focus-ring").forEach((e) => e.remove());
    if (!cell || !cell.matches(":focus-visible")) return;
    const b = cell.getBBox(), pad = 3;
    for (const cls of ["focus-ring focus-under", "focus-ring focus-over"]) {
      const r = document.createElementNS(SVG, "rect");
      r.setAttribute("x", b.x - pad); r.setAttribute("y", b.y - pad);
      r.setAttribute("width", b.width + 2 * pad); r.setAttribute("height", b.height + 2 * pad);
      r.setAttribute("rx", 4); r.setAttribute("class", cls);
      svg.append(r);
    }
  }
  // a cell reached by Tab, a click or a screen reader's cursor is the one a re-render keeps
  // focused (a snapshot arriving between reaching it and pressing Enter must not move it)
  $("board").addEventListener("focusin", (ev) => {
    const cell = ev.target.closest("[data-cell]");
    if (cell) focusCell = cell.dataset.cell;
    drawFocus(cell);
  });
  $("board").addEventListener("focusout", () => drawFocus(null));
  const centre = (el) => { const r = el.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; };
  $("board").addEventListener("keydown", (ev) => {
    const cell = ev.target.closest("[data-cell]");
    if (!cell) return;
    if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); focusCell = cell.dataset.cell; cellChosen(cell, true); return; }
    const dir = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[ev.key];
    if (!dir) return;
    ev.preventDefault();
    ev.stopPropagation();
    const [x, y] = centre(cell);
    let best = null, bestScore = Infinity;
    for (const other of cells()) {
      if (other === cell) continue;
      const [ox, oy] = centre(other);
      const along = (ox - x) * dir[0] + (oy - y) * dir[1];
      if (along <= 1) continue;
      const across = Math.abs((ox - x) * dir[1]) + Math.abs((oy - y) * dir[0]);
      const score = along + 2 * across;
      if (score < bestScore) { bestScore = score; best = other; }
    }
    if (!best) return;
    cell.setAttribute("tabindex", "-1");
    best.setAttribute("tabindex", "0");
    best.focus();
    focusCell = best.dataset.cell;
  });

  // -- buttons ------------------------------------------------------------------------------
  let onYes = null, asker = null;
  function ask(question, yes) {
    $("ask-text").textContent = question;
    onYes = yes;
    asker = document.activeElement;  // the focus goes back there once answered
    $("ask").hidden = false;
    $("ask-no").focus();
  }
  function closeAsk() {
    const back = $("ask").contains(document.activeElement) ? asker : null;
    $("ask").hidden = true; onYes = null; asker = null;
    if (back && !back.disabled && back.getClientRects().length) back.focus();
  }
  $("ask-yes").addEventListener("click", () => { const f = onYes; closeAsk(); if (f) f(); });
  $("ask-no").addEventListener("click", closeAsk);
  $("ask").addEventListener("keydown", (ev) => { if (ev.key === "Escape") closeAsk(); });

  $("move-text").addEventListener("input", () => { typed = true; });
  $("move-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (moving) return;  // Confirm tapped twice
    const text = $("move-text").value.trim();
    if (!text) { $("move-error").textContent = "choose a move first (click cells, or type it)"; return; }
    if (/^pass$/i.test(text)) { ask(passQuestion("Really pass?"), () => play(text)); return; }
    if (/^resign$/i.test(text)) { ask("Really resign?", () => play(text)); return; }
    play(text);
  });
  $("clear").addEventListener("click", () => {
    const had = !!(pending.length || chosen || chosenCell || $("move-text").value);
    pending = []; chosen = null; chosenCell = null; typed = false; $("move-text").value = ""; renderBuilder(snap);
    if (had) say($("choice"), "Cleared: nothing is chosen.");  // else only the stones would go, unsaid
  });
  // after the opponent's pass, a second one ends the game: say so before it is played
  const passQuestion = (first) => (snap && snap.builder.pass_ends
    ? `${first} Your opponent passed: passing too ends the game, and the score is counted.` : first);
  $("pass").addEventListener("click", () => ask(passQuestion("Pass your turn?"), () => play("pass")));
  $("resign").addEventListener("click", () => ask("Resign this game?", () => play("resign")));
  $("abort").addEventListener("click", () => ask("Abort this game? No one wins or loses.", () => act("abort")));
  $("undo").addEventListener("click", () => act("undo"));
  $("redo").addEventListener("click", () => act("redo"));
  $("hint").addEventListener("click", async () => {
    $("hint-text").textContent = engineReady ? "thinking…" : PREPARING;
    if (!(await act("hint"))) $("hint-text").textContent = "";  // refused: the error says why
  });
  $("cancel").addEventListener("click", () => act("cancel"));
  $("resume").addEventListener("click", () => act("resume"));
  // said, as on the home page (the button's new word alone was not, and a refusal nothing)
  $("copy-invite").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText($("invite-url").value); $("copy-note").textContent = "Copied."; }
    catch (e) { $("invite-url").select(); $("copy-note").textContent = "Select the link and copy it (Ctrl+C)."; }
  });

  // -- stepping through the moves -----------------------------------------------------------
  function goTo(p) { if (!snap) return; viewPly = p >= snap.length ? null : Math.max(0, p); refresh(); }
  // a step goes from the position asked for last, not the one shown: keys pressed (or held)
  // faster than the server answers each step from the one before
  const asking = () => (viewPly === null ? snap.length : viewPly);
  const nav = (f) => () => { if (snap) goTo(f(asking(), snap.length)); };
  $("nav-first").addEventListener("click", nav(() => 0));
  $("nav-prev").addEventListener("click", nav((p) => p - 1));
  $("nav-next").addEventListener("click", nav((p, n) => Math.min(n, p + 1)));
  $("nav-last").addEventListener("click", nav((p, n) => n));
  document.addEventListener("keydown", (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey || !snap) return;
    // on the board the arrows move between cells (its own handler); Home and End work there too,
    // as Enter on a cell of an earlier position tells
    if (ev.target.closest && ev.target.closest("input, textarea, select, .ask")) return;
    const step = { ArrowLeft: (p) => p - 1, ArrowRight: (p, n) => Math.min(n, p + 1), Home: () => 0, End: (p, n) => n }[ev.key];
    if (!step) return;
    ev.preventDefault();
    goTo(step(asking(), snap.length));
  });

  // -- the computer's analysis -------------------------------------------------------------
  // a win-probability graph of the engine's points, each played move's judgement marked, the
  // engine's best move at the viewed position drawn on the board (by the server's snapshot)
  const MARK = { inaccuracy: "?!", mistake: "?", blunder: "??" };
  let analysis = null, analysisTimer = null;
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
    let a;
    try { a = await SG.get("/api/games/" + gid + "/analysis", key ? { "X-Seat-Secret": key } : {}); }
    catch (e) { analysisStatus(e.message); return; }
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
    button.hidden = !(snap && snap.analysis_open) || !!(analysis && (analysis.running || analysis.done));
    if (had && button.hidden) { $("analysis-status").tabIndex = -1; $("analysis-status").focus(); }
  }

  function renderAnalysis(s) {
    const allowed = s.analysis_open;  // the server's rule: who may see it, and when
    showAnalyse();
    $("analysis-closed").hidden = allowed;
    if (!s.analysis && analysis && !analysisTimer) {  // none to see: a restart before any was stored
      analysis = null; $("analysis").textContent = ""; analysisStatus(""); showAnalyse();
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
    const moves = (now || snap || {}).length, covered = a.of - 1;
    const cut = a.capped && moves > covered ? ` (the first ${SG.count(covered, "move")} of ${moves})` : "";
    const count = (j) => SG.count(judged.filter((p) => p.judgement === j).length, j, j === "inaccuracy" ? "inaccuracies" : "");
    analysisStatus(a.error ? a.error
      : a.running && a.queued ? `Analysing: ${a.points.length} of ${SG.count(a.of, "position")}${cut}; `
        + (engineReady ? `waits for a free worker${a.waiting ? ` (${SG.count(a.waiting, "job")} ahead)` : ""}…` : PREPARING)
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
    const cur = snap && snap.ply <= n ? `<line class="graph-now" x1="${x(snap.ply)}" x2="${x(snap.ply)}" y1="0" y2="${H}"/>` : "";
    box.innerHTML = `<svg id="winprob" class="graph" viewBox="-34 -20 ${W + 44} ${H + 38}" width="100%" role="img" aria-label="${first}'s winning chances by move">` +
      `<text class="graph-title" x="0" y="-8" font-size="11">${first}'s winning chances</text>` +
      `<rect class="graph-bg" width="${W}" height="${H}"/><polygon class="graph-area" points="${area}"/>` +
      `<line class="graph-mid" x1="0" x2="${W}" y1="${H / 2}" y2="${H / 2}"/>${cur}` +
      `<text x="-4" y="6" font-size="10" text-anchor="end">100%</text><text x="-4" y="${H / 2 + 3}" font-size="10" text-anchor="end">50%</text><text x="-4" y="${H}" font-size="10" text-anchor="end">0%</text>` +
      `<text x="0" y="${H + 14}" font-size="10" text-anchor="middle">0</text><text x="${W}" y="${H + 14}" font-size="10" text-anchor="middle">${n}</text>` +
      `<text x="${W / 2}" y="${H + 14}" font-size="10" text-anchor="middle">move</text>` +
      `<polyline class="graph-line" points="${line}"/>${dots}</svg>`;
    box.querySelectorAll(".apt").forEach((c) => c.addEventListener("click", () => goTo(+c.dataset.ply)));
    markMoves();
  }

  function markMoves() {
    if (!analysis) return;
    const by = new Map(analysis.points.map((p) => [p.ply, p]));
    $("moves").querySelectorAll("li").forEach((li) => {
      const p = by.get(+li.dataset.ply);
      li.querySelector(".judgement")?.remove();
      if (!p || !p.judgement) return;
      const span = document.createElement("span"), mark = document.createElement("span"), words = document.createElement("span");
      span.className = "judgement j-" + p.judgement;
      span.title = `${p.judgement}: lost ${lossPct(p.played_loss)}; best was ${by.get(p.ply - 1)?.best_move ?? "?"}`;
      // the mark is shown; a screen reader (which may skip "?!", and never reads a title) says why
      mark.textContent = " " + MARK[p.judgement]; mark.setAttribute("aria-hidden", "true");
      words.className = "visually-hidden"; words.textContent = ` (${span.title})`;
      span.append(mark, words);
      li.append(span);
    });
  }

  $("analyse").addEventListener("click", async () => {
    analysisStatus("Starting the analysis…", true);
    try {
      analysis = await SG.post("/api/games/" + gid + "/analysis", key && snap && snap.you ? { secret: key } : {});
      drawAnalysis();
      $("analyse").hidden = true;
      clearTimeout(analysisTimer); analysisTimer = setTimeout(loadAnalysis, 1000);
    } catch (e) { analysisStatus(e.message); }
  });

  // a seat link opened in a tab that shows this game (as a spectator, or another seat): only the
  // fragment changes, so the page takes the new key itself
  addEventListener("hashchange", () => {
    const k = keyInLink();
    if (!k || k === key) return;
    key = k;
    if (!invited(key)) SG.saveKey(gid, "?", key);
    clearChoice(); viewPly = null; wasMyTurn = false; named = false;
    refresh();
  });

  // loaded at once (and again while the server can't be reached), whatever the stream does;
  // each stream opened sends an update, which loads it again
  refresh();
  SG.live("/api/games/" + gid + "/events", () => refresh());
})();
