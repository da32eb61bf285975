"use strict";
(function () {
  const keys = SG.keys();
  document.querySelectorAll("#stored tr[data-gid]").forEach((tr) => {
    const k = keys[tr.dataset.gid];
    if (!k) return;
    const seat = k["1"] ? "1" : "2";
    const a = tr.querySelector(".resume");
    a.href = "/game/" + tr.dataset.gid + "#key=" + k[seat];
    a.hidden = false;
  });
})();
