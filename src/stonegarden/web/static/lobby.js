// The lobby: public games with an open seat, kept up to date by the server's live updates.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const body = $("lobby").querySelector("tbody");
  const ago = (s) => (s < 60 ? s + " s" : s < 3600 ? Math.floor(s / 60) + " min" : s < 86400 ? Math.floor(s / 3600) + " h" : Math.floor(s / 86400) + " d");

  const NAME_FIRST = "Choose your name first (above).";
  document.addEventListener("sg-name", () => { if ($("lobby-error").textContent === NAME_FIRST) $("lobby-error").textContent = ""; });
  let joining = false;  // a join is on its way: a second click would be refused as "someone else"
  async function join(g) {
    if (joining) return;
    $("lobby-error").textContent = "";
    if (!SG.name()) { $("lobby-error").textContent = NAME_FIRST; SG.askName(); return; }
    joining = true;
    try {
      const made = await SG.post("/api/games/" + g.id + "/join", { name: SG.name() });
      SG.saveKey(made.id, String(made.seat), made.secret);
      location.href = made.link;
    } catch (e) { joining = false; $("lobby-error").textContent = e.message; refresh(); }
  }

  async function withdraw(g, secret) {
    try { await SG.post("/api/games/" + g.id + "/withdraw", { secret }); SG.dropGame(g.id); }
    catch (e) { $("lobby-error").textContent = e.message; }
    refresh();
  }

  const cell = SG.cell;

  // how long each game has waited goes on counting between the lobby's changes, by the wall
  // clock: browsers do not count performance.now() while the machine sleeps
  let fetched = Date.now();
  setInterval(() => {
    const more = Math.floor((Date.now() - fetched) / 1000);
    body.querySelectorAll("td[data-age]").forEach((td) => { td.textContent = ago(+td.dataset.age + more); });
  }, 5000);

  // this browser's games listed here: one that leaves the list because someone joined it is
  // said, with a link to its board (a first move of its creator's is waited for only minutes)
  const baseTitle = document.title;
  let mineListed = new Map();  // id -> {title, seat (hers), link}
  async function sayJoined(games, keys) {
    const now = new Map();
    for (const g of games) {
      const mine = keys[g.id] && keys[g.id][String(3 - g.open_seat)];
      if (mine) now.set(g.id, { title: g.title, seat: 3 - g.open_seat, link: SG.url("/game/" + g.id + "#key=" + mine) });
    }
    const left = [...mineListed].filter(([id]) => !now.has(id));
    mineListed = now;
    for (const [id, g] of left) {
      let s;
      try { s = await SG.get("/api/games/" + id); } catch (e) { continue; }  // withdrawn: gone
      if (s.open !== null || s.over) continue;  // no longer listed (a week old), or over
      const el = $("lobby-joined"), a = document.createElement("a");
      a.href = g.link; a.textContent = "Go to your board";
      const who = s.names[String(3 - g.seat)];
      el.textContent = `${who ? SG.isolate(who) : "Someone"} joined your game of ${g.title}. `;
      el.append(a);
      el.hidden = false;
      document.title = "● Joined · " + baseTitle;
    }
  }

  const reload = SG.backoff(() => refresh());
  // the loads asked for (the page's own, then its stream's first update, at once): an older
  // one answered last would show the list as it was, until the lobby's next change
  let asked = 0;
  async function refresh() {
    const mine = ++asked;
    const data = await SG.getShown("/api/lobby", $("lobby-error"), reload);
    if (!data || mine !== asked) return;  // a later load answers instead
    fetched = Date.now();
    const keys = SG.keys();
    SG.refill(body, () => fill(data.games, keys), $("lobby-empty"));
    document.body.dataset.lobbyCount = data.games.length;
    sayJoined(data.games, keys);
  }

  function fill(games, keys) {
    body.textContent = "";
    for (const g of games) {
      const tr = document.createElement("tr");
      tr.dataset.gid = g.id;
      cell(tr, g.title);
      cell(tr, g.params_text);
      cell(tr, g.clock_text, "Clock");
      SG.nameCell(tr, g.creator, "Created by");
      cell(tr, ago(g.age), "Waiting").dataset.age = g.age;
      const act = cell(tr, "");
      const mine = keys[g.id] && keys[g.id][String(3 - g.open_seat)];
      const btn = document.createElement("button");
      btn.type = "button";
      if (mine) {
        btn.textContent = "Withdraw"; btn.className = "withdraw";
        btn.addEventListener("click", () => withdraw(g, mine));
        const open = document.createElement("a"); open.href = SG.url("/game/" + g.id + "#key=" + mine); open.textContent = "Your board";
        act.append(open, " ");
      } else {
        btn.textContent = "Join"; btn.className = "primary join";
        btn.addEventListener("click", () => join(g));
      }
      // which game each acts on, for a screen reader's list of buttons and links
      const which = [g.title, g.params_text, g.clock_text, `by ${SG.isolate(g.creator)}`];
      act.querySelectorAll("a").forEach((a) => SG.nameFor(a, ...which));
      act.append(SG.nameFor(btn, ...which));
      body.append(tr);
    }
    $("lobby-empty").hidden = games.length > 0;
  }

  refresh();
  SG.live("/api/lobby/events", refresh);
})();
