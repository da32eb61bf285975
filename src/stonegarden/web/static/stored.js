"use strict";
(function () {
  const keys = SG.keys();
  const rows = [...document.querySelectorAll("#stored tr[data-gid]")];
  rows.forEach((tr) => {
    const time = tr.querySelector("time");
    if (time) time.textContent = new Date(time.dateTime).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
    // which game each link acts on, for a screen reader's list of links ("Review, Review"):
    // the row as it shows the game ("Review, Free Go, a person vs computer, level 3, size 5,
    // 12 moves, Black won, started ...")
    const [started, title, players, params, moves, result] = [...tr.cells].map((td) => td.textContent.trim());
    tr.querySelectorAll(".actions a").forEach((a) => SG.nameFor(a, title, players, params, SG.count(+moves, "move"), result, "started " + started));
    const k = keys[tr.dataset.gid] || {};
    const seat = k["1"] ? "1" : k["2"] ? "2" : null;  // not "?": a link whose key proved wrong
    if (!seat) return;
    const a = tr.querySelector(".resume");
    a.href = SG.url("/game/" + tr.dataset.gid + "#key=" + k[seat]);
    a.hidden = false;
  });
  const $ = (id) => document.getElementById(id);
  if (!$("filters")) return;
  function filter() {
    const game = $("filter-game").value, status = $("filter-status").value;
    const text = $("filter-text").value.trim().toLowerCase();
    let shown = 0;
    for (const tr of rows) {
      const ok = (!game || tr.dataset.game === game) && (!status || tr.dataset.status === status)
        && (!text || tr.textContent.toLowerCase().includes(text));
      tr.hidden = !ok;
      if (ok) shown++;
    }
    $("filter-count").textContent = `${shown} of ${SG.count(rows.length, "game")}`;
  }
  ["filter-game", "filter-status", "filter-text"].forEach((id) => $(id).addEventListener("input", filter));
  $("filters").addEventListener("submit", (ev) => ev.preventDefault());
  filter();
})();
