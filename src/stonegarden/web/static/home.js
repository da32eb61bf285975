"use strict";
(function () {
  const games = JSON.parse(document.getElementById("meta").textContent);
  const select = document.getElementById("game-select");
  const box = document.getElementById("params");
  function showParams() {
    const g = games.find((x) => x.id === select.value);
    document.getElementById("rules-link").href = "/rules/" + g.id;
    box.querySelectorAll("label").forEach((e) => e.remove());
    for (const p of g.params) {
      const label = document.createElement("label");
      label.title = p.doc;
      label.append(p.name + " ");
      let input;
      if (p.kind === "bool") { input = document.createElement("input"); input.type = "checkbox"; input.checked = !!p.default; }
      else if (p.kind === "choice") { input = document.createElement("select"); for (const c of p.choices) { const o = new Option(c, c); input.add(o); } input.value = p.default; }
      else { input = document.createElement("input"); if (p.kind === "int") { input.type = "number"; if (p.low !== null) input.min = p.low; if (p.high !== null) input.max = p.high; }
             const shown = p.default === null ? "" : (Array.isArray(p.default) ? p.default.join(",") : String(p.default));
             if (p.derived) { input.value = ""; input.placeholder = "auto" + (shown ? " (" + shown + " at the default size)" : ""); } else input.value = shown; }
      input.name = "param-" + p.name; input.dataset.kind = p.kind; input.dataset.param = p.name;
      const small = document.createElement("small"); small.textContent = p.doc;
      label.append(input, small);
      box.append(label);
    }
  }
  select.addEventListener("change", showParams);
  showParams();
  document.getElementById("new-game").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const err = document.getElementById("create-error"); err.textContent = "";
    const params = {};
    box.querySelectorAll("[data-param]").forEach((i) => {
      if (i.type === "checkbox") params[i.dataset.param] = i.checked;
      else if (i.value.trim() !== "") params[i.dataset.param] = i.value.trim();
    });
    const seats = [document.getElementById("seat1").value.trim(), document.getElementById("seat2").value.trim()];
    try {
      const made = await SG.post("/api/games", { game: select.value, params, seats });
      SG.rememberLinks(made);
      const humans = ["1", "2"].filter((s) => made.seats[s - 1] === "human");
      if (humans.length === 2) {
        for (const k of ["1", "2", "spectator"]) { const a = document.getElementById("link-" + k); a.href = made.links[k]; a.textContent = new URL(made.links[k], location.href).href; }
        document.getElementById("invite").hidden = false;
      } else {
        location.href = made.links[humans[0] || "1"];
      }
    } catch (e) { err.textContent = e.message; }
  });
  document.getElementById("upload-file").addEventListener("change", (ev) => {
    if (ev.target.files.length) SG.upload(ev.target.files[0], document.getElementById("upload-error"));
  });
})();
