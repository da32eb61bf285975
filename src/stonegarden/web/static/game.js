"use strict";
(function () {
  const gid = document.body.dataset.gid;
  let key = new URLSearchParams(location.hash.slice(1)).get("key");
  if (key) SG.saveKey(gid, "?", key);
  const $ = (id) => document.getElementById(id);
  let snap = null;        // last snapshot from the server
  let viewPly = null;     // null: follow the live game
  let pending = [];       // hex builder: [{letter, cell}]
  let colour = null;      // hex builder: selected colour letter
  let typed = false;      // the text field was edited by hand
  let hint = null;
  let chosenCell = null;  // blobs builder: the frontier cell whose faces are offered

  async function refresh() {
    const q = viewPly === null ? "" : "?ply=" + viewPly;
    const r = await fetch("/api/games/" + gid + q, { headers: key ? { "X-Seat-Secret": key } : {} });
    const data = await r.json();
    if (!r.ok) { $("status").textContent = data.error; return; }
    render(data);
  }

  async function act(name, extra) {
    $("move-error").textContent = "";
    try {
      const data = await SG.post("/api/games/" + gid + "/" + name, Object.assign({ secret: key }, extra || {}));
      if (name === "hint") { hint = data.hint; }
      if (name === "move" || name === "undo" || name === "redo") { pending = []; typed = false; $("move-text").value = ""; viewPly = null; }
      render(data);
      return data;
    } catch (e) { $("move-error").textContent = e.message; return null; }
  }

  function playerName(p) { return p === 1 ? "Player 1" : p === 2 ? "Player 2" : "Chance"; }

  function render(s) {
    snap = s;
    document.body.dataset.ply = s.ply;
    document.body.dataset.length = s.length;
    document.body.dataset.terminal = s.terminal;
    $("board").innerHTML = s.svg;
    const you = s.you ? ` — you are player ${s.you}` : key ? " — (this link's key is not valid)" : " — watching";
    $("seats").textContent = `Player 1: ${s.seats[0]} · Player 2: ${s.seats[1]}${you}`;
    let status;
    if (s.terminal) status = s.winner === 0 ? `Game over: a draw (${s.reason})` : `Game over: player ${s.winner} wins (${s.reason})`;
    else if (s.thinking) status = `Player ${s.to_move} (${s.thinking.spec}) is thinking…`;
    else status = s.can_play ? `Your turn (player ${s.to_move})` : `Player ${s.to_move} to move`;
    if (s.ply !== s.length) status = `Viewing the position after move ${s.ply} of ${s.length} — ` + status;
    $("status").textContent = status;
    $("status").className = "status" + (s.can_play ? " your-turn" : "") + (s.terminal ? " over" : "");
    renderScore(s.score);
    renderMoves(s);
    renderThinking(s);
    $("notice").textContent = s.notice || "";
    $("undo").disabled = !s.can_undo;
    $("redo").disabled = !s.can_redo;
    $("hint").disabled = !(s.you && !s.terminal && s.ply === s.length);
    $("hint-text").textContent = s.hint ? `Hint (${s.hint.agent}): ${s.hint.move}` : "";
    renderBuilder(s);
    const other = s.you ? String(3 - s.you) : null;
    const keys = SG.keys()[gid] || {};
    if (other && keys[other] && s.seats[other - 1] === "human") {
      const a = $("invite-link").querySelector("a"); a.href = "/game/" + gid + "#key=" + keys[other]; a.textContent = "seat " + other + " link";
      $("invite-link").hidden = false;
    }
  }

  function renderScore(sc) {
    const box = $("score");
    box.innerHTML = "";
    const cap = document.createElement("div"); cap.className = "muted"; cap.textContent = sc.label; box.append(cap);
    const scale = sc.scale || sc.target || Math.max(1, ...sc.scores);
    sc.scores.forEach((v, i) => {
      const row = document.createElement("div"); row.className = "track p" + (i + 1);
      const pct = Math.min(100, (100 * v) / scale);
      row.innerHTML = `<span class="who">P${i + 1}</span><span class="bar"><span style="width:${pct}%"></span></span><span class="val" data-score="${i + 1}">${v}${sc.target ? " / " + sc.target : ""}</span>`;
      box.append(row);
    });
  }

  function renderMoves(s) {
    const ol = $("moves"); ol.innerHTML = "";
    s.moves.forEach((m) => {
      const li = document.createElement("li");
      li.textContent = (m.player ? "P" + m.player + " " : "") + m.text;
      li.dataset.ply = m.ply + 1;
      if (m.ply + 1 === s.ply) li.className = "current";
      li.addEventListener("click", () => { viewPly = m.ply + 1 === s.length ? null : m.ply + 1; refresh(); });
      ol.append(li);
    });
    const cur = ol.querySelector(".current"); if (cur) cur.scrollIntoView({ block: "nearest" });
  }

  let timer = null;
  function renderThinking(s) {
    const box = $("thinking-box");
    clearInterval(timer);
    if (s.thinking || s.paused) {
      box.hidden = false;
      $("cancel").hidden = !s.thinking;
      $("resume").hidden = !(s.paused && s.you);
      $("cancel").disabled = !s.you;
      if (s.thinking) {
        const t = s.thinking, start = Date.now() - 1000 * t.elapsed;
        const opts = Object.entries(t.options).map(([k, v]) => (k === "_" ? v : k + "=" + v)).join(", ");
        const show = () => { $("thinking").textContent = `${t.spec} is thinking: ${((Date.now() - start) / 1000).toFixed(0)} s of at most ${t.budget} s` + (opts ? ` (budget: ${opts})` : ""); };
        show(); timer = setInterval(show, 1000);
      } else { $("thinking").textContent = "The agent is paused."; }
    } else box.hidden = true;
  }

  function renderBuilder(s) {
    const b = s.builder;
    const live = s.can_play;
    $("builder").classList.toggle("inactive", !live);
    ["confirm", "clear", "resign"].forEach((id) => { $(id).disabled = !live; });
    $("move-text").disabled = !live;
    $("pass").hidden = !(live && b.can_pass);
    const box = $("colours"); box.innerHTML = "";
    if (b.kind === "hex-two-colour" && live) {
      if (!colour || !b.colours.some((c) => c.letter === colour)) colour = b.colours[0].letter;
      for (const c of b.colours) {
        const btn = document.createElement("button");
        btn.type = "button"; btn.className = "colour" + (c.letter === colour ? " selected" : "");
        btn.dataset.colour = c.letter;
        btn.innerHTML = `<svg width="26" height="26" viewBox="-16 -16 32 32"><use href="#sg-stone-${c.letter}"/></svg> ${c.letter} ${c.name}`;
        btn.title = `${c.name} (${c.mark})`;
        btn.addEventListener("click", () => { colour = c.letter; renderBuilder(snap); });
        box.append(btn);
      }
      const info = document.createElement("span"); info.className = "muted";
      info.textContent = b.max_stones === 1 ? "first turn: one stone" : "one or two stones (one of each colour)";
      box.append(info);
    }
    if (b.kind === "blobs" && live) {
      const info = document.createElement("span"); info.className = "muted"; info.id = "blobs-info";
      info.textContent = chosenCell && b.options[chosenCell] ? `faces that fit ${chosenCell}:` : "click a highlighted frontier cell";
      box.append(info);
      for (const o of (b.options[chosenCell] || [])) {
        const btn = document.createElement("button"); btn.type = "button"; btn.className = "face-option";
        btn.dataset.move = o.text; btn.textContent = `${o.text} (${o.label})`;
        btn.addEventListener("click", () => { chosenCell = null; act("move", { move: o.text, ply: snap.length }); });
        box.append(btn);
      }
      if (b.dice_left !== null && b.dice_left !== undefined) { const d = document.createElement("span"); d.className = "muted"; d.textContent = ` · dice left: ${b.dice_left}`; box.append(d); }
    }
    drawPending();
    if (!typed) $("move-text").value = pendingText(s);
  }

  function pendingText(s) {
    if (!s || s.builder.kind !== "hex-two-colour") return "";
    const order = s.builder.colours.map((c) => c.letter);
    return pending.slice().sort((a, b) => order.indexOf(a.letter) - order.indexOf(b.letter)).map((p) => p.letter + p.cell).join(",");
  }

  function drawPending() {
    const svg = $("board").querySelector("svg");
    if (!svg) return;
    svg.querySelectorAll(".ghost").forEach((e) => e.remove());
    for (const p of pending) {
      const g = svg.querySelector(`[data-cell="${p.cell}"]`);
      if (!g) continue;
      const use = document.createElementNS("http://www.w3.org/2000/svg", "use");
      use.setAttribute("href", "#sg-stone-" + p.letter);
      use.setAttribute("x", g.dataset.x); use.setAttribute("y", g.dataset.y);
      use.setAttribute("class", "ghost"); use.setAttribute("opacity", "0.75");
      g.append(use);
      g.classList.add("pending");
    }
  }

  $("board").addEventListener("click", (ev) => {
    const cell = ev.target.closest("[data-cell]");
    if (!cell || !snap || !snap.can_play) return;
    const name = cell.dataset.cell, b = snap.builder;
    if (b.kind === "point") { if (cell.classList.contains("legal")) act("move", { move: name, ply: snap.length }); return; }
    if (b.kind === "blobs") { if (b.options[name]) { chosenCell = name; renderBuilder(snap); } return; }
    if (b.kind !== "hex-two-colour" || cell.dataset.content) return;
    typed = false;
    const here = pending.findIndex((p) => p.cell === name);
    if (here >= 0) { pending.splice(here, 1); renderBuilder(snap); return; }
    pending = pending.filter((p) => p.letter !== colour);
    if (pending.length >= b.max_stones) pending = [];
    pending.push({ letter: colour, cell: name });
    const other = b.colours.find((c) => c.letter !== colour);
    if (b.max_stones > 1 && other && !pending.some((p) => p.letter === other.letter)) colour = other.letter;
    renderBuilder(snap);
  });

  $("move-text").addEventListener("input", () => { typed = true; });
  $("move-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("move-text").value.trim();
    if (!text) { $("move-error").textContent = "choose a move first (click cells, or type it)"; return; }
    act("move", { move: text, ply: snap.length });
  });
  $("clear").addEventListener("click", () => { pending = []; typed = false; $("move-text").value = ""; renderBuilder(snap); });
  $("pass").addEventListener("click", () => act("move", { move: "pass", ply: snap.length }));
  let resignArmed = false;
  $("resign").addEventListener("click", () => {
    if (!resignArmed) { resignArmed = true; $("resign").textContent = "Really resign?"; setTimeout(() => { resignArmed = false; $("resign").textContent = "Resign"; }, 4000); return; }
    act("move", { move: "resign", ply: snap.length });
  });
  $("undo").addEventListener("click", () => act("undo"));
  $("redo").addEventListener("click", () => act("redo"));
  $("hint").addEventListener("click", () => { $("hint-text").textContent = "thinking…"; act("hint"); });
  $("cancel").addEventListener("click", () => act("cancel"));
  $("resume").addEventListener("click", () => act("resume"));
  const nav = (f) => () => { if (!snap) return; const p = f(snap.ply, snap.length); viewPly = p >= snap.length ? null : Math.max(0, p); refresh(); };
  $("nav-first").addEventListener("click", nav(() => 0));
  $("nav-prev").addEventListener("click", nav((p) => p - 1));
  $("nav-next").addEventListener("click", nav((p, n) => Math.min(n, p + 1)));
  $("nav-last").addEventListener("click", nav((p, n) => n));

  $("analyse").addEventListener("click", async () => {
    const box = $("analysis"); box.textContent = "estimating…";
    const r = await fetch("/api/games/" + gid + "/analysis"); const a = await r.json();
    if (!r.ok) { box.textContent = a.error; return; }
    const W = 280, H = 120, n = Math.max(1, snap.length);
    const pts = a.points.map(([p, v]) => `${(p / n * W).toFixed(1)},${((1 - v) * H).toFixed(1)}`).join(" ");
    const dots = a.points.map(([p, v]) => `<circle class="apt" data-ply="${p}" cx="${(p / n * W).toFixed(1)}" cy="${((1 - v) * H).toFixed(1)}" r="3"><title>after move ${p}: ${(100 * v).toFixed(0)}% for player 1</title></circle>`).join("");
    box.innerHTML = `<svg id="winprob" viewBox="-30 -8 ${W + 40} ${H + 26}" width="100%"><rect width="${W}" height="${H}" fill="#fbf7ee" stroke="#bbb"/>` +
      `<line x1="0" x2="${W}" y1="${H / 2}" y2="${H / 2}" stroke="#999" stroke-dasharray="4 3"/>` +
      `<text x="-4" y="6" font-size="10" text-anchor="end">P1 100%</text><text x="-4" y="${H}" font-size="10" text-anchor="end">0%</text>` +
      `<text x="${W / 2}" y="${H + 16}" font-size="10" text-anchor="middle">move</text>` +
      `<polyline points="${pts}" fill="none" stroke="#0072B2" stroke-width="2"/>${dots}</svg><p class="muted small">${a.label}</p>`;
    box.querySelectorAll(".apt").forEach((c) => c.addEventListener("click", () => { const p = +c.dataset.ply; viewPly = p >= snap.length ? null : p; refresh(); }));
  });

  function connect() {
    const es = new EventSource("/api/games/" + gid + "/events");
    es.addEventListener("update", () => { if (viewPly === null) refresh(); });
    es.onerror = () => { document.body.dataset.live = "reconnecting"; };
    es.onopen = () => { document.body.dataset.live = "on"; };
  }
  refresh().then(connect);
})();
