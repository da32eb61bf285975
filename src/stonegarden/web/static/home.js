"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const games = JSON.parse($("meta").textContent);
  const seating = JSON.parse($("seating").textContent);
  const select = $("game-select");
  const box = $("params");
  const form = $("new-game");
  const wanted = new URLSearchParams(location.search).get("game");
  if (wanted && games.some((g) => g.id === wanted)) select.value = wanted;

  function mode() { return form.querySelector('input[name="mode"]:checked').value; }

  function showSeats() {
    const s = seating[select.value];
    const second = 3 - s.first;
    const named = (p) => (/^Player \d$/.test(s.names[p - 1]) ? "" : s.names[p - 1] + ", ");
    const who = (p) => `(player ${p}: ${named(p)}${s.colours[p - 1]})`;
    $("seat-first").textContent = who(s.first);
    $("seat-second").textContent = who(second);
    $("seat1-note").textContent = s.first === 1 ? "moves first" : "its opening is part of the start position; player 2 moves first";
    $("seat2-note").textContent = s.first === 2 ? "moves first" : "";
    // whom each level suits, with this game's time per move (a slower search has longer caps)
    $("levels").querySelectorAll("li small").forEach((e, i) => { e.textContent = s.levels[i]; });
  }

  function showParams() {
    const g = games.find((x) => x.id === select.value);
    $("rules-link").href = SG.url("/rules/" + g.id);
    $("rules-title").textContent = g.title;
    box.querySelectorAll("label").forEach((e) => e.remove());
    for (const p of g.params) {
      const label = document.createElement("label");
      label.append(p.name.replace(/_/g, " ") + " ");
      let input;
      if (p.kind === "bool") { input = document.createElement("input"); input.type = "checkbox"; input.checked = !!p.default; }
      else if (p.kind === "choice") { input = document.createElement("select"); for (const c of p.choices) input.add(new Option(c, c)); input.value = p.default; }
      else {
        input = document.createElement("input");
        if (p.kind === "int") { input.type = "number"; if (p.low !== null) input.min = p.low; if (p.high !== null) input.max = p.high; }
        // a whole number that may be left empty: a text field, with a phone's number pad
        if (p.kind === "opt_int") input.inputMode = "numeric";
        const shown = p.default === null ? "" : (Array.isArray(p.default) ? p.default.join(",") : String(p.default));
        if (p.derived) { input.value = ""; input.placeholder = "auto" + (shown ? " (" + shown + " at the default size)" : ""); } else input.value = shown;
      }
      input.name = "param-" + p.name; input.dataset.kind = p.kind; input.dataset.param = p.name;
      input.dataset.initial = input.type === "checkbox" ? String(input.checked) : input.value;
      const small = document.createElement("small"); small.textContent = p.doc;
      label.append(input, small);
      box.append(label);
    }
    showSeats();
    summarise();
  }

  function changedParams() {
    const out = {};
    box.querySelectorAll("[data-param]").forEach((i) => {
      const v = i.type === "checkbox" ? String(i.checked) : i.value.trim();
      if (v !== i.dataset.initial) out[i.dataset.param] = i.type === "checkbox" ? i.checked : v;
    });
    return out;
  }

  function summarise() {
    const c = Object.entries(changedParams());
    $("params-summary").textContent = c.length ? "(" + c.map(([k, v]) => k.replace(/_/g, " ") + " " + v).join(", ") + ")" : "(standard)";
  }

  function showMode() {
    for (const m of ["computer", "friend", "watch"]) $("panel-" + m).hidden = mode() !== m;
    $("seat-choice").hidden = mode() === "watch";
    offHidden();
  }

  function clockKind() { return $("clock-kind").value; }
  function showClock() {
    $("clock-fischer").hidden = clockKind() !== "fischer";
    $("clock-days").hidden = clockKind() !== "correspondence";
    offHidden();
  }
  // a field of a choice not taken (the clock of "Play a friend" while playing the computer) is
  // not sent, so it is not checked either: else a value out of its range there stopped Start
  // in silence, the browser having no field in view to point at
  function offHidden() {
    form.querySelectorAll(".panel input, .panel select").forEach((i) => { i.disabled = !!i.closest("[hidden]"); });
  }
  // a parameter out of its range in the folded-away Parameters: unfolded, so that the browser
  // can point at it and say why Start did nothing
  form.addEventListener("invalid", (ev) => { const d = ev.target.closest("details"); if (d) d.open = true; }, true);
  function clockToCreate() {
    if (clockKind() === "fischer") return { initial: 60 * Number($("clock-minutes").value), increment: Number($("clock-increment").value) };
    if (clockKind() === "correspondence") return { days_per_move: Number($("clock-days-per-move").value) };
    return null;
  }
  $("clock-kind").addEventListener("change", showClock);
  showClock();

  select.addEventListener("change", showParams);
  box.addEventListener("input", summarise);
  box.addEventListener("change", summarise);
  form.querySelectorAll('input[name="mode"]').forEach((r) => r.addEventListener("change", showMode));
  showParams();
  showMode();

  function seatsToCreate() {
    const adv = [$("seat1").value.trim(), $("seat2").value.trim()];
    if (adv[0] || adv[1]) {
      // yours: the one person's seat against an agent (either field); of two people, the
      // seat left empty, else the first
      const seats = adv.map((s) => (!s || s.toLowerCase() === "human" ? "human" : s));
      const people = [1, 2].filter((p) => seats[p - 1] === "human");
      return { seats, mine: people.length === 1 ? people[0] : (adv[0] && !adv[1] ? 2 : 1) };
    }
    const first = seating[select.value].first;
    if (mode() === "watch") {
      const seats = [];
      seats[first - 1] = "level:" + $("watch-1").value;
      seats[2 - first] = "level:" + $("watch-2").value;
      return { seats, mine: 1 };
    }
    let choice = form.querySelector('input[name="seat"]:checked').value;
    if (choice === "random") choice = Math.random() < 0.5 ? "first" : "second";
    const mine = choice === "first" ? first : 3 - first;
    const level = form.querySelector('input[name="level"]:checked');
    const opponent = mode() === "friend" ? "human" : "level:" + (level ? level.value : "2");
    const seats = [];
    seats[mine - 1] = "human";
    seats[2 - mine] = opponent;
    return { seats, mine };
  }

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const err = $("create-error"); err.textContent = "";
    const params = {};
    box.querySelectorAll("[data-param]").forEach((i) => {
      if (i.type === "checkbox") params[i.dataset.param] = i.checked;
      else if (i.value.trim() !== "") params[i.dataset.param] = i.value.trim();
    });
    const { seats, mine } = seatsToCreate();
    const body = { game: select.value, params, seats };
    if (mode() === "friend") {
      const clock = clockToCreate();
      if (clock) body.clock = clock;
      if (form.querySelector('input[name="invite"]:checked').value === "lobby") {
        seats[2 - mine] = "open";
        body.public = true;
      }
    }
    if (SG.name() && seats.includes("human")) { body.name = SG.name(); body.seat = mine; }
    if (seats[mine - 1] !== "human") delete body.seat;
    try {
      const made = await SG.post("/api/games", body);
      SG.rememberLinks(made, [mine]);
      if (made.seats.includes("open")) { location.href = made.links[String(mine)]; return; }
      const humans = ["1", "2"].filter((s) => made.seats[s - 1] === "human");
      if (humans.length === 2) {
        const abs = (u) => new URL(u, location.href).href;
        for (const k of ["1", "2", "spectator"]) { const a = $("link-" + k); a.href = made.links[k]; a.textContent = abs(made.links[k]); }
        $("invite-url").value = abs(made.links[String(3 - mine)]);
        $("go-to-seat").href = made.links[String(mine)];
        $("invite").hidden = false;
        form.hidden = true;
        $("invite-url").select();
      } else {
        location.href = made.links[humans[0] || "1"];
      }
    } catch (e) { err.textContent = e.message; }
  });

  $("copy-invite").addEventListener("click", async () => {
    const input = $("invite-url");
    try { await navigator.clipboard.writeText(input.value); $("copy-note").textContent = "Copied."; }
    catch (e) { input.select(); $("copy-note").textContent = "Select the link and copy it (Ctrl+C)."; }
  });
  // the engine's kernels load (or, on a first start, compile) in the background: show how far;
  // a screen reader is told it starts and that it is done, not each step on the way
  const said = (text) => { if ($("engine-said").textContent !== text) $("engine-said").textContent = text; };
  async function watchEngine() {
    let e;
    try { e = await SG.get("/api/engine"); } catch (err) { setTimeout(watchEngine, 2000); return; }
    $("engine").hidden = e.ready;
    if (e.ready) { if ($("engine-said").textContent) said("The engine is ready."); return; }
    said("Preparing the engine (first start only). Games can start now; the computer's first move waits for it.");
    $("engine-bar").max = e.of; $("engine-bar").value = e.done;
    const at = [e.server.game, ...e.workers.map((w) => w.game)].filter(Boolean);
    $("engine-text").textContent = `Preparing the engine (first start only): ${e.done} of ${e.of} steps` +
      (at.length ? ` (${[...new Set(at)].join(", ")})` : "") + ". Games can start now; the computer's first move waits for it.";
    setTimeout(watchEngine, 1000);
  }
  watchEngine();

  // a file is sent when chosen, and again when its game is chosen after (an SGF file that does not say)
  function upload() {
    const files = $("upload-file").files;
    if (files.length) SG.upload(files[0], $("upload-error"), $("upload-game").value);
  }
  $("upload-file").addEventListener("change", upload);
  $("upload-game").addEventListener("change", upload);
})();
