// The rules page's colour legend (a static file: the pages' Content-Security-Policy allows
// no inline script).
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  const el = document.getElementById("legend");
  if (!el) return;
  for (const c of ["y", "b", "w", "g", "r", "p"]) {
    const chip = LC.chipEl(c + "x");
    chip.innerHTML = `${LC.symbol(c)}<span>${LC.NAMES[c]} · ${LC.SYMBOL_NAMES[c]}</span>`;
    chip.setAttribute("aria-label", `${LC.NAMES[c]} · ${LC.SYMBOL_NAMES[c]}`);
    el.appendChild(chip);
  }
});
