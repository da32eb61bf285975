// Shared helpers: seat keys kept in this browser, JSON requests.
"use strict";
const SG = {
  keys() { try { return JSON.parse(localStorage.getItem("sg-keys") || "{}"); } catch (e) { return {}; } },
  saveKey(gid, seat, key) { const k = SG.keys(); k[gid] = k[gid] || {}; k[gid][seat] = key; localStorage.setItem("sg-keys", JSON.stringify(k)); },
  async get(url) {
    const r = await fetch(url);
    const data = await r.json();
    if (!r.ok) throw new Error(data.error || ("error " + r.status));
    return data;
  },
  async post(url, body, type) {
    const r = await fetch(url, { method: "POST", headers: { "Content-Type": type || "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body) });
    let data = {};
    try { data = await r.json(); } catch (e) { data = { error: "bad response " + r.status }; }
    if (!r.ok) throw new Error(data.error || ("error " + r.status));
    return data;
  },
  rememberLinks(made) {
    for (const seat of ["1", "2"]) if (made.seats[seat - 1] === "human") SG.saveKey(made.id, seat, made.secrets[seat]);
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
