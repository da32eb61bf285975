// Shared helpers: the site's path prefix, seat keys and the display name kept in this browser,
// JSON requests, and the name form every page shows on a first visit.
"use strict";
// Python's whitespace (str.strip, str.split), which differs from JavaScript's \s (U+FEFF; U+001C-1F, U+0085)
const PY_SPACE = "\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const TRIM = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, "gu");
const SPACES = new RegExp(`[${PY_SPACE}]+`, "u");
// control, format, surrogate, private, noncharacter; line breaks; characters that draw nothing
// (one this browser's Unicode does not know is let through, as the server lets a new emoji)
const REFUSED = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Noncharacter_Code_Point}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0\u2800]/u;
// formatting that is part of the text: a region flag's tags (England's), and a joiner between
// two drawn characters (Persian's ZWNJ, an emoji sequence's ZWJ: 👩‍💻)
const FLAG_TAGS = /(?<=\u{1F3F4})[\u{E0020}-\u{E007E}]+\u{E007F}/gu;
const JOINERS = /(?<=[\p{L}\p{M}\p{S}])[\u200C\u200D](?=[\p{L}\p{M}\p{S}])/gu;
// more than 4 combining marks on one character (nonspacing or enclosing: they stack, and rise
// over the lines above the name: the lobby's other games, the page's headings)
const STACKED = /[\p{Mn}\p{Me}]{5}/u;
// the control that opened the name form (Take the open seat, "change"): the focus goes back
// there once the form is answered, not to the top of the page
let nameAsker = null;
// what getShown last said in each element: a list loaded clears these words, not others'
const loadErrors = new WeakMap();
const codePoint = (ch) => "U+" + ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
const SG = {
  // the path prefix the server is served under (serve --public-url), "" at the root
  base: document.body.dataset.base || "",
  url(path) { return SG.base + path; },
  // "1 move", "2 moves": a number with its noun, plural where it is not one
  count(n, one, many) { return `${n} ${n === 1 ? one : many || one + "s"}`; },
  // the seats this browser plays: {gid: {seat: key}} ("?" while a link's seat is not known yet)
  keys() { return SG.stored("sg-keys"); },
  saveKey(gid, seat, key) {
    const k = SG.keys(); k[gid] = k[gid] || {};
    if (seat !== "?") for (const s of Object.keys(k[gid])) if (k[gid][s] === key) delete k[gid][s];
    k[gid][seat] = key;
    try { localStorage.setItem("sg-keys", JSON.stringify(k)); } catch (e) { /* private mode */ }
  },
  dropGame(gid) {
    for (const name of ["sg-keys", "sg-invites"]) {
      const k = SG.stored(name); delete k[gid];
      try { localStorage.setItem(name, JSON.stringify(k)); } catch (e) { /* private mode */ }
    }
  },
  stored(name) { try { return JSON.parse(localStorage.getItem(name) || "{}"); } catch (e) { return {}; } },
  // the seat links a creator passes on to a friend: {gid: {seat: key}}, kept apart from the
  // seats this browser plays (SG.keys), so that "my games" and "Resume" never offer them
  invites() { return SG.stored("sg-invites"); },
  // the display name, by the server's rules (web/names.py): NFC, surrounding space trimmed,
  // 1-24 characters counted as Python does (code points, not UTF-16 units), no control,
  // formatting (but joiners and flags' tags) or invisible character, not starting with a
  // combining mark, at most 4 marks on one character; runs of space as one
  name() { try { const n = localStorage.getItem("sg-name") || ""; return n && SG.cleanName(n); } catch (e) { return ""; } },
  cleanName(text) {
    const n = text.normalize("NFC").replace(TRIM, "");
    const length = [...n].length;
    if (length < 1 || length > 24) throw new Error(`a name is 1-24 characters, not ${length}`);
    const bad = n.replace(FLAG_TAGS, "").replace(JOINERS, "").match(REFUSED);
    if (bad) throw new Error(`a name may not hold the character ${codePoint(bad[0])} (a control, formatting or invisible one)`);
    if (STACKED.test(n)) throw new Error("a name may not draw more than 4 combining marks on one character");
    if (/^\p{M}/u.test(n)) throw new Error(`a name may not start with a combining mark (${codePoint(n)})`);
    return n.split(SPACES).filter(Boolean).join(" ");
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
    if (form) { nameAsker = document.activeElement; form.hidden = false; document.getElementById("name-input").focus(); }
  },
  // the name form answered (kept, or "Not now") and hidden: the focus goes back to what asked
  // for it, else to "change" (beside the name kept)
  nameAnswered() {
    const back = [SG.shownNow(nameAsker), document.getElementById("rename")].find((e) => e && e.getClientRects().length && !e.disabled);
    const f = document.activeElement;
    nameAsker = null;
    if (back && (f === document.body || document.getElementById("name-form").contains(f))) back.focus();
  },
  // a control as the page shows it now: one in a list's row (the lobby's Join) that a live
  // update has since drawn anew is that game's row's same control, if the game is still listed
  shownNow(el) {
    const row = el && !el.isConnected ? el.closest("tr[data-gid]") : null;
    if (!row) return el;
    const again = [...document.querySelectorAll("tr[data-gid]")].find((tr) => tr.dataset.gid === row.dataset.gid);
    const controls = (tr) => [...tr.querySelectorAll("a, button")];
    return again ? controls(again)[controls(row).indexOf(el)] || null : null;
  },
  // what a page says when the server can't be reached (no network, or a proxy's error page
  // while the server restarts): the pages that load by themselves add " — retrying…"
  OFFLINE: "Can't reach the server",
  // an answer's JSON; else an Error with .status (0: no answer) and .offline, whose message is
  // the server's own, or words for an answer that is not the server's JSON
  async request(url, init) {
    let r;
    try { r = await fetch(SG.url(url), init); } catch (e) { throw SG.failure(0); }
    let data = null;
    try { data = await r.json(); } catch (e) { /* not JSON: a proxy's HTML page */ }
    if (r.ok && data) return data;
    throw SG.failure(r.status, data && data.error);
  },
  failure(status, message) {
    const offline = !message && (status === 0 || status >= 500);
    const err = new Error(message || (offline ? SG.OFFLINE : `the server refused it (${status})`));
    err.status = status; err.offline = offline;
    return err;
  },
  post(url, body, type) {
    const raw = typeof body === "string" || body instanceof Blob;  // a file is sent as its bytes
    return SG.request(url, { method: "POST", headers: { "Content-Type": type || "application/json" }, body: raw ? body : JSON.stringify(body) });
  },
  get(url, headers) { return SG.request(url, { headers: headers || {} }); },
  // a page's list (the lobby, my games): its JSON, or null after saying why in errorEl and,
  // when the server can't be reached, asking reload (an SG.backoff) to try again later
  // url: an address, or a list of them, answered as a list (all, or none: one error said)
  async getShown(url, errorEl, reload) {
    try {
      const data = Array.isArray(url) ? await Promise.all(url.map((u) => SG.get(u))) : await SG.get(url);
      reload.reset();
      // only the words it said itself go: a join refused, or a name asked for, is still read
      if (errorEl.textContent === loadErrors.get(errorEl)) errorEl.textContent = "";
      return data;
    } catch (e) {
      errorEl.textContent = e.offline ? SG.OFFLINE + " — retrying…" : e.message;
      loadErrors.set(errorEl, errorEl.textContent);
      if (e.offline) reload.later();
      return null;
    }
  },
  // calls fn after a pause that grows each time (1 s doubling to 30 s, jittered so that pages
  // don't all come back at once), one call pending at a time; reset() after a success
  backoff(fn) {
    let delay = 1000, timer = null;
    return {
      later() {
        if (timer) return;
        timer = setTimeout(() => { timer = null; fn(); }, delay * (0.5 + Math.random() / 2));
        delay = Math.min(30000, delay * 2);
      },
      reset() { clearTimeout(timer); timer = null; delay = 1000; },
    };
  },
  // a table cell of text appended to row tr; label: the column's heading, shown beside the
  // value when a phone stacks the row
  cell(tr, text, label) {
    const td = document.createElement("td"); td.textContent = text;
    if (label) td.dataset.label = label;
    tr.append(td); return td;
  },
  // a row's link or button named by its words and then the row's (what it acts on): a screen
  // reader's list of links or buttons read "Review, Review, Review" or "Join, Join", with
  // nothing to tell them apart
  nameFor(el, ...row) { el.setAttribute("aria-label", [el.textContent, ...row.filter(Boolean)].join(", ")); return el; },
  // a person's name in a sentence, isolated (FSI ... PDI): an Arabic or Hebrew name took the
  // punctuation and numbers beside it into its own direction ("سارة!" read "!" on the wrong
  // side, "joined your game of" moved about it), as did the sentence its own
  isolate(name) { return "\u2068" + name + "\u2069"; },
  // a table cell holding a name, isolated in a <bdi> (the cell's text is the name alone)
  nameCell(tr, name, label) {
    const td = SG.cell(tr, "", label), bdi = document.createElement("bdi");
    bdi.textContent = name; td.append(bdi); return td;
  },
  // a table of games (the lobby, my games) emptied and filled again by fill() at each live
  // update, the keyboard's focus kept on the same row's link or button (else each update would
  // drop it to the top of the page); a row gone gives it to the row now in its place, or to
  // empty (a message made focusable) when none is left
  refill(tbody, fill, empty) {
    const f = document.activeElement, row = tbody.contains(f) ? f.closest("tr") : null;
    const controls = (tr) => [...tr.querySelectorAll("a, button")];
    const at = row ? controls(row).indexOf(f) : -1, index = row ? row.sectionRowIndex : -1;
    fill();
    if (!row) return;
    const again = [...tbody.rows].find((tr) => tr.dataset.gid === row.dataset.gid)
      || tbody.rows[Math.min(index, tbody.rows.length - 1)];
    const target = again ? controls(again)[at] || controls(again)[0] : empty;
    if (target) { if (target === empty) empty.tabIndex = -1; target.focus(); }
  },
  // a game just made: the seats in mine (numbers) are this browser's; another person's seat
  // link is kept as an invitation (shown on the game page to pass on), an agent's not at all
  rememberLinks(made, mine) {
    const invites = SG.invites();
    for (const seat of ["1", "2"]) {
      if (!made.secrets[seat]) continue;
      if (mine.map(String).includes(seat)) SG.saveKey(made.id, seat, made.secrets[seat]);
      else if (made.seats[seat - 1] === "human") (invites[made.id] = invites[made.id] || {})[seat] = made.secrets[seat];
    }
    try { localStorage.setItem("sg-invites", JSON.stringify(invites)); } catch (e) { /* private mode */ }
  },
  // live updates of a page (a game, the lobby, my games): calls back on each change; the server
  // sends one as a stream opens, so a reopened stream catches up by itself. The browser retries
  // a dropped connection, but a stream answered with an error (a proxy's 502 while the server
  // restarts, 429 for too many streams) stays closed: then a new one is opened after a backoff.
  // Focus and a network coming back check at once. body[data-live] shows "Reconnecting…".
  live(path, onUpdate) {
    let es = null, stopped = false;
    const retry = SG.backoff(open);
    function open() {
      if (stopped) return;
      es = new EventSource(SG.url(path));
      es.addEventListener("update", onUpdate);
      es.onopen = () => { retry.reset(); SG.liveState("on"); };
      es.onerror = () => {
        SG.liveState("reconnecting");
        if (es.readyState === EventSource.CLOSED) retry.later();
      };
    }
    function check() {
      if (stopped) return;
      if (es.readyState === EventSource.CLOSED) { es.close(); retry.reset(); open(); }
      else onUpdate();
    }
    addEventListener("focus", check);
    addEventListener("online", check);
    open();
    return {
      close() {
        stopped = true; retry.reset(); es.close();
        removeEventListener("focus", check); removeEventListener("online", check);
      },
    };
  },
  // whether the live notice follows the move bar's size yet (liveState)
  noticePlaced: false,
  liveState(state) {
    document.body.dataset.live = state;
    const note = document.getElementById("live-notice");
    if (!note) return;
    note.textContent = state === "reconnecting" ? "Reconnecting…" : "";
    // above a move bar stuck to the screen's foot (a phone held upright), not over its
    // buttons: moves are still sent while the live updates reconnect. Placed again whenever
    // the bar's size changes (a question asked in it, the phone turned), not only now
    const bar = document.querySelector(".builder-bar");
    if (!bar) return;
    const place = () => {
      const stuck = getComputedStyle(bar).position === "sticky";
      note.style.bottom = stuck ? `calc(${bar.offsetHeight}px + .8rem)` : "";
    };
    place();
    if (!SG.noticePlaced) {
      SG.noticePlaced = true;
      new ResizeObserver(place).observe(bar, { box: "border-box" });
    }
  },
  // a record file made a game; game: the game of an SGF file that does not say (else "")
  async upload(file, errorEl, game) {
    errorEl.textContent = "";
    try {
      // SGF by its name or its text (a JSON record opens with "{"): one saved as .txt is SGF
      const text = await file.text();
      const sgf = /\.sgf$/i.test(file.name) || /^\ufeff?\s*\(/.test(text);
      const url = "/api/records" + (sgf && game ? "?game=" + encodeURIComponent(game) : "");
      // the file goes as its bytes: the server reads SGF in the charset its CA[] names (an
      // older program's GB2312 or Latin-1 player names), and refuses a record that is not
      // UTF-8, where the text read here would garble its names without a word
      const made = await SG.post(url, file, sgf ? "application/x-go-sgf" : "application/json");
      SG.rememberLinks(made, [1, 2]);  // an uploaded game is the uploader's, both seats
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
    try { SG.setName(document.getElementById("name-input").value); document.getElementById("name-error").textContent = ""; SG.nameAnswered(); document.dispatchEvent(new Event("sg-name")); }
    catch (e) { document.getElementById("name-error").textContent = e.message; }
  });
  document.getElementById("name-later").addEventListener("click", () => {
    try { sessionStorage.setItem("sg-name-later", "1"); } catch (e) { /* private mode */ }
    form.hidden = true;
    SG.nameAnswered();
  });
  document.getElementById("rename").addEventListener("click", () => {
    try { sessionStorage.removeItem("sg-name-later"); } catch (e) { /* private mode */ }
    document.getElementById("name-input").value = SG.name();
    nameAsker = document.getElementById("rename");
    form.hidden = false;
    document.getElementById("name-input").focus();
  });
})();

// a page whose script is ES modules (the game page's, static/game/): one that cannot load (the
// network, a proxy) or a browser too old for modules runs none of them, which would leave the
// page saying "Loading…" for ever. Modules run before DOMContentLoaded, so by then it is known.
document.addEventListener("DOMContentLoaded", () => {
  if (!document.querySelector('script[type="module"]') || document.body.dataset.modules) return;
  const status = document.getElementById("status");
  if (status) status.textContent = "This page's script did not load: reload the page (it needs a browser from 2018 or later).";
});
