// Shared helpers: the site's path prefix, seat keys and the display name kept in this browser,
// JSON requests, and the name form every page shows on a first visit.
"use strict";
const SG = {
  // the path prefix the server is served under (serve --public-url), "" at the root
  base: document.body.dataset.base || "",
  url(path) { return SG.base + path; },
  keys() { try { return JSON.parse(localStorage.getItem("sg-keys") || "{}"); } catch (e) { return {}; } },
  saveKey(gid, seat, key) {
    const k = SG.keys(); k[gid] = k[gid] || {};
    if (seat !== "?") for (const s of Object.keys(k[gid])) if (k[gid][s] === key) delete k[gid][s];
    k[gid][seat] = key;
    try { localStorage.setItem("sg-keys", JSON.stringify(k)); } catch (e) { /* private mode */ }
  },
  dropGame(gid) { const k = SG.keys(); delete k[gid]; try { localStorage.setItem("sg-keys", JSON.stringify(k)); } catch (e) { /* private mode */ } },
  // the display name: 1-24 characters, no control or formatting characters (the server checks too)
  name() { try { return localStorage.getItem("sg-name") || ""; } catch (e) { return ""; } },
  cleanName(text) {
    const n = text.normalize("NFC").trim().split(/\s+/).join(" ");
    if (n.length < 1 || n.length > 24) throw new Error("a name is 1-24 characters");
    if (/[\p{C}\u2028\u2029]/u.test(n)) throw new Error("a name may not hold control or formatting characters");
    return n;
  },
  setName(text) { const n = SG.cleanName(text); try { localStorage.setItem("sg-name", n); } catch (e) { /* private mode */ } SG.showName(); return n; },
  showName() {
    const n = SG.name(), you = document.getElementById("you-are"), form = document.getElementById("name-form");
    if (!you || !form) return;
    document.getElementById("my-name").textContent = n;
    let later = false;
    try { later = sessionStorage.getItem("sg-name-later") === "1"; } catch (e) { /* private mode */ }
    you.hidden = !n;
    form.hidden = !!n || later;
  },
  askName() {
    try { sessionStorage.removeItem("sg-name-later"); } catch (e) { /* private mode */ }
    const form = document.getElementById("name-form");
    if (form) { form.hidden = false; document.getElementById("name-input").focus(); }
  },
  async post(url, body, type) {
    const r = await fetch(SG.url(url), { method: "POST", headers: { "Content-Type": type || "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body) });
    let data = {};
    try { data = await r.json(); } catch (e) { data = { error: "bad response " + r.status }; }
    if (!r.ok) { const err = new Error(data.error || ("error " + r.status)); err.status = r.status; throw err; }
    return data;
  },
  async get(url, headers) {
    const r = await fetch(SG.url(url), { headers: headers || {} });
    const data = await r.json();
    if (!r.ok) throw new Error(data.error || ("error " + r.status));
    return data;
  },
  rememberLinks(made) {
    for (const seat of ["1", "2"]) if (made.secrets[seat]) SG.saveKey(made.id, seat, made.secrets[seat]);
  },
  // live updates of a page (a game, or the lobby): calls back on each change, reconnecting
  live(path, onUpdate) {
    const es = new EventSource(SG.url(path));
    es.addEventListener("update", onUpdate);
    es.onerror = () => { document.body.dataset.live = "reconnecting"; };
    es.onopen = () => { document.body.dataset.live = "on"; };
    return es;
  },
  async upload(file, errorEl) {
    errorEl.textContent = "";
    try {
      const sgf = /\.sgf$/i.test(file.name);
      const made = await SG.post("/api/records", await file.text(), sgf ? "application/x-go-sgf" : "application/json");
      SG.rememberLinks(made);
      location.href = made.links["1"];
    } catch (e) { errorEl.textContent = e.message; }
  },
};

(function () {
  const form = document.getElementById("name-form");
  if (!form) return;
  SG.showName();
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    try { SG.setName(document.getElementById("name-input").value); document.getElementById("name-error").textContent = ""; document.dispatchEvent(new Event("sg-name")); }
    catch (e) { document.getElementById("name-error").textContent = e.message; }
  });
  document.getElementById("name-later").addEventListener("click", () => {
    try { sessionStorage.setItem("sg-name-later", "1"); } catch (e) { /* private mode */ }
    form.hidden = true;
  });
  document.getElementById("rename").addEventListener("click", () => {
    try { sessionStorage.removeItem("sg-name-later"); } catch (e) { /* private mode */ }
    document.getElementById("name-input").value = SG.name();
    form.hidden = false;
    document.getElementById("name-input").focus();
  });
})();
