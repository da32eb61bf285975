// Light or dark: the system's choice (prefers-color-scheme) unless the reader chose one with
// the header's toggle (kept in localStorage). Loaded in <head> so the page never flashes.
"use strict";
(function () {
  const root = document.documentElement;
  const stored = () => { try { return localStorage.getItem("sg-theme"); } catch (e) { return null; } };
  const dark = () => (stored() || (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light")) === "dark";
  function apply() {
    root.dataset.theme = dark() ? "dark" : "light";
    const b = document.getElementById("theme-toggle");
    if (b) { b.textContent = dark() ? "Light mode" : "Dark mode"; b.setAttribute("aria-pressed", String(dark())); }
  }
  apply();
  matchMedia("(prefers-color-scheme: dark)").addEventListener("change", apply);
  document.addEventListener("DOMContentLoaded", () => {
    apply();
    document.getElementById("theme-toggle").addEventListener("click", () => {
      try { localStorage.setItem("sg-theme", dark() ? "light" : "dark"); } catch (e) { /* private mode */ }
      apply();
    });
  });
})();
