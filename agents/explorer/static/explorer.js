// splitpoker explorer: the card picker, the game/style/rules controls, and practice mode.
// Plain JavaScript, no libraries; every number shown comes from the server.
"use strict";

function $(sel, root) { return (root || document).querySelector(sel); }
function $all(sel, root) { return Array.from((root || document).querySelectorAll(sel)); }
function text(s) { return document.createTextNode(String(s)); }

function cardNode(t) {
  const el = document.createElement("span");
  const suits = { s: "♠", h: "♥", d: "♦", c: "♣" };
  el.className = "card " + (t === "JK" ? "joker" : ("hd".includes(t[1]) ? "red" : "black"));
  el.dataset.card = t;
  el.appendChild(text(t === "JK" ? "JK" : t[0]));
  const small = document.createElement("small");
  small.appendChild(text(t === "JK" ? "★" : suits[t[1]]));
  el.appendChild(small);
  return el;
}

function handsNode(hands) {
  const frag = document.createDocumentFragment();
  for (const [slot, cards] of Object.entries(hands)) {
    const h = document.createElement("span");
    h.className = "hand";
    const em = document.createElement("em");
    em.appendChild(text(slot));
    h.appendChild(em);
    cards.forEach(c => h.appendChild(cardNode(c)));
    frag.appendChild(h);
  }
  return frag;
}

// ---- the game, style and rules controls: only the chosen game's are shown and sent ----
function syncGame() {
  const game = $("#game");
  if (!game) return;
  const g = game.value;
  const style = $("#style");
  let keep = false;
  $all("option", style).forEach(o => {
    const mine = o.dataset.game === g;
    o.hidden = !mine; o.disabled = !mine;
    if (mine && o.selected) keep = true;
  });
  if (!keep) { const first = $all("option", style).find(o => o.dataset.game === g); if (first) style.value = first.value; }
  $all("label.rule").forEach(l => {
    const mine = l.dataset.game === g;
    l.hidden = !mine;
    $all("input, select", l).forEach(i => { i.disabled = !mine; });
  });
}

// ---- the 53-card picker fills the cards field ----
function tokens() { return ($("#cards").value || "").split(/[\s,]+/).filter(Boolean); }
function norm(t) { t = t.trim(); if (t.toUpperCase() === "JK" || t.toUpperCase() === "JOKER") return "JK";
  if (t.length === 3 && t.startsWith("10")) t = "T" + t[2];
  return t.length === 2 ? t[0].toUpperCase() + t[1].toLowerCase() : t; }
function syncPicker() {
  const chosen = new Set(tokens().map(norm));
  $all("button.pick").forEach(b => b.classList.toggle("chosen", chosen.has(b.dataset.card)));
}
function setupPicker() {
  const field = $("#cards");
  if (!field) return;
  $all("button.pick").forEach(b => b.addEventListener("click", () => {
    const have = tokens();
    const i = have.map(norm).indexOf(b.dataset.card);
    if (i >= 0) have.splice(i, 1); else if (have.length < 7) have.push(b.dataset.card);
    field.value = have.join(" ");
    syncPicker();
    if (have.length === 7) $("#hand-form").requestSubmit($("#analyze"));
  }));
  field.addEventListener("input", syncPicker);
  syncPicker();
}

// ---- practice: place the cards, score them, keep a tally for the session ----
const TALLY = "splitpoker-practice";
function loadTally() { try { return JSON.parse(sessionStorage.getItem(TALLY)) || { hands: 0, lost: 0, missed: [] }; }
  catch (e) { return { hands: 0, lost: 0, missed: [] }; } }
function saveTally(t) { sessionStorage.setItem(TALLY, JSON.stringify(t)); }
function showTally() {
  const t = loadTally();
  const p = $("#tally");
  if (!p) return;
  p.textContent = t.hands ? `${t.hands} hand${t.hands === 1 ? "" : "s"} scored; EV given up ${t.lost.toFixed(5)} in all ` +
    `(${(t.lost / t.hands).toFixed(5)} a hand); ${t.missed.length} not optimal.` : "No hands scored yet.";
  const ol = $("#missed");
  ol.replaceChildren();
  t.missed.slice(-20).reverse().forEach(m => {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = m.url; a.appendChild(text(m.cards));
    li.appendChild(a); li.appendChild(text(` — gave up ${m.cost.toFixed(5)}`));
    ol.appendChild(li);
  });
}

function setupPractice() {
  const box = $("#practice");
  if (!box) return;
  const sizes = JSON.parse(box.dataset.sizes);
  const slots = Object.keys(sizes);
  let target = null;
  const slotOf = el => el.closest(".slot");
  function placed(slot) { return $all(".slot-cards button", $("#slot-" + slot)).length; }
  function refresh() {
    $all(".slot").forEach(s => s.classList.toggle("target", s.dataset.slot === target));
    $("#score").disabled = !slots.every(s => placed(s) === sizes[s]);
  }
  function moveTo(btn, slot) {
    if (placed(slot) >= sizes[slot]) return false;
    $(".slot-cards", $("#slot-" + slot)).appendChild(btn);
    return true;
  }
  // a card goes to the chosen hand (click a hand to choose it), else to the first hand with room;
  // a placed card goes back when clicked
  $all("button.place", box).forEach(btn => btn.addEventListener("click", ev => {
    ev.stopPropagation();
    if (slotOf(btn)) { $("#unplaced").appendChild(btn); refresh(); return; }
    const t = target && placed(target) < sizes[target] ? target : slots.find(s => placed(s) < sizes[s]);
    if (t) moveTo(btn, t);
    if (target && placed(target) >= sizes[target]) target = null;
    refresh();
  }));
  $all(".slot", box).forEach(s => {
    const choose = () => { target = target === s.dataset.slot ? null : s.dataset.slot; refresh(); };
    s.addEventListener("click", choose);
    s.addEventListener("keydown", e => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); choose(); } });
  });
  $("#reset-hand").addEventListener("click", () => {
    $all("button.place", box).forEach(b => $("#unplaced").appendChild(b));
    target = null; $("#result").hidden = true; refresh();
  });
  $("#clear-tally").addEventListener("click", () => { sessionStorage.removeItem(TALLY); showTally(); });
  $("#score").addEventListener("click", async () => {
    const params = new URLSearchParams(box.dataset.query);
    slots.forEach(s => params.set(s, $all(".slot-cards button", $("#slot-" + s)).map(b => b.dataset.card).join(" ")));
    const err = $("#practice-error");
    err.hidden = true;
    $("#score").disabled = true;
    try {
      const r = await fetch("/api/practice?" + params.toString());
      const d = await r.json();
      if (!r.ok) { err.textContent = d.error; err.hidden = false; refresh(); return; }
      const fill = (id, e) => { const td = $(id); td.replaceChildren(handsNode(e.hands)); td.appendChild(text(` EV ${e.ev >= 0 ? "+" : ""}${e.ev.toFixed(5)}`)); td.dataset.ev = e.ev; };
      fill("#r-played", d.played); fill("#r-optimal", d.optimal); fill("#r-house", d.house_way);
      $("#r-house").appendChild(text(` (${d.house_way_rule})`));
      const v = $("#verdict");
      v.dataset.givesUp = d.gives_up;
      v.textContent = d.played.fouled ? `Fouled: a hand outranks the one it must not, so the wager loses (EV -1); you gave up ${d.gives_up.toFixed(5)} units.`
        : d.gives_up <= 1e-12 ? "Optimal: no EV given up on this hand." : `You gave up ${d.gives_up.toFixed(5)} units of EV on this hand.`;
      $("#result").hidden = false;
      if (!box.dataset.scored) {  // a hand counts once in the tally
        box.dataset.scored = "1";
        const t = loadTally();
        t.hands += 1; t.lost += d.gives_up;
        if (d.gives_up > 1e-12) t.missed.push({ cards: d.cards.join(" "), cost: d.gives_up, url: location.pathname + location.search });
        saveTally(t);
        showTally();
      }
    } catch (e) { err.textContent = "the server did not answer: " + e; err.hidden = false; }
    refresh();
  });
  refresh();
  showTally();
}

document.addEventListener("DOMContentLoaded", () => {
  const game = $("#game");
  if (game) { game.addEventListener("change", syncGame); syncGame(); }
  setupPicker();
  setupPractice();
});
