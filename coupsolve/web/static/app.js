// coupsolve's page. The server owns the game: this script asks it for the state and the legal moves and
// renders what it is sent; it knows no rule of Coup.
"use strict";

const $ = (id) => document.getElementById(id);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k === "style") e.style.cssText = v;  // the CSSOM: the page's policy allows no inline style attributes
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const kid of kids) if (kid != null) e.append(kid);
  return e;
};
const pct = (p) => (p == null ? "–" : p >= 0.995 || p < 0.005 ? `${Math.round(p * 100)}%` : `${(p * 100).toFixed(1)}%`);
const signed = (v) => (v == null ? "–" : Math.abs(v) < 0.0005 ? "0.000" : `${v > 0 ? "+" : "−"}${Math.abs(v).toFixed(3)}`);
const tone = (v) => (v == null || Math.abs(v) < 0.0005 ? "" : v > 0 ? "pos" : "neg");
const CHARACTERS = ["Duke", "Assassin", "Captain", "Ambassador", "Contessa"];

const app = { setup: null, game: null, coach: false, explore: { strategy: null, path: [] }, logSeen: 0 };

async function api(method, path, body) {
  document.body.classList.add("busy");  // a deep public state can take the server seconds
  let res;
  try {
    res = await fetch(path, {
      method, headers: body ? { "Content-Type": "application/json" } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
  } finally { document.body.classList.remove("busy"); }
  const doc = await res.json();
  if (!res.ok) throw new Error(doc.error || `${res.status}`);
  return doc;
}

function showError(e) {
  $("error").textContent = e ? String(e.message || e) : "";
  $("error").classList.toggle("hidden", !e);
}

// ---- the new-game form -----------------------------------------------------------------------------
function opponentChoices() {
  const opts = app.setup.strategies.map((s) => ({ value: s.name, label: `${s.name} (strategy)`, players: s.players }));
  return opts.concat(app.setup.bots.map((b) => ({ value: b.name, label: b.label })));
}

function fillSetup() {
  const players = $("players");
  players.replaceChildren();
  for (let n = app.setup.players[0]; n <= app.setup.players[1]; n++) players.append(el("option", { value: n, text: `${n}` }));
  if (app.setup.strategies.length) players.value = app.setup.strategies[0].players;
  $("coach-switch").checked = app.coach = app.setup.strategies.length > 0;
  fillSeats();
}

function fillSeats() {
  const n = Number($("players").value);
  const coach = $("coach");  // a coach plays the game's rules: the strategies for n players
  const fits = app.setup.strategies.filter((s) => s.players === n);
  const was = coach.value;
  coach.replaceChildren(el("option", { value: "", text: "none" }), ...fits.map((s) => el("option", { value: s.name, text: s.name })));
  coach.value = fits.some((s) => s.name === was) ? was : fits.length ? fits[0].name : "";
  const seat = $("seat");
  const keep = Math.min(Number(seat.value) || 0, n - 1);
  seat.replaceChildren();
  for (let p = 0; p < n; p++) seat.append(el("option", { value: p, text: p === 0 ? "p0 (moves first)" : `p${p}` }));
  seat.value = keep;
  const box = $("opponents");
  const old = [...box.querySelectorAll("select")].map((s) => s.value);
  box.replaceChildren();
  let k = 0;
  for (let p = 0; p < n; p++) {
    if (p === keep) continue;
    const sel = el("select", { "data-opponent": k });
    for (const o of opponentChoices()) if (!o.players || o.players === n) sel.append(el("option", { value: o.value, text: o.label }));
    sel.value = old[k] && [...sel.options].some((o) => o.value === old[k]) ? old[k] : sel.options[0].value;
    box.append(el("label", {}, `Seat p${p}`, sel));
    k++;
  }
  const strat = app.setup.strategies;
  $("setup-note").textContent = strat.length
    ? `Strategies: ${strat.map((s) => `${s.name}: ${s.players} players, ${s.rules}, ${s.what}`).join("; ")}. ` +
      "A game with a strategy plays its rules; with bots only, the standard rules to the end."
    : "No strategy file served: play the honest and random bots (coupsolve serve s.npz adds a strategy).";
}

async function newGame(ev) {
  ev.preventDefault();
  showError(null);
  const bots = [...$("opponents").querySelectorAll("select")].map((s) => s.value);
  const body = { players: Number($("players").value), seat: Number($("seat").value), bots, coach: $("coach").value || null };
  if ($("seed").value !== "") body.seed = Number($("seed").value);
  try {
    app.logSeen = 0;
    render(await api("POST", "/api/games", body));
  } catch (e) { showError(e); }
}

async function play(action) {
  showError(null);
  for (const b of $("moves").querySelectorAll("button")) b.disabled = true;
  try {
    render(await api("POST", `/api/games/${app.game.id}`, { action, ply: app.game.ply }));
  } catch (e) { showError(e); render(app.game); }
}

// ---- the table ---------------------------------------------------------------------------------------
function cardEl(name, up) {
  if (!name) return el("div", { class: "card back", title: "face down", "data-initial": "" });
  return el("div", { class: `card ${name}${up ? " up" : ""}`, "data-initial": name[0], title: name, text: name });
}

function seatEl(s, g) {
  const out = s.influence === 0 && g.turn > 0;
  const cards = el("div", { class: "cards" });
  const hand = s.hand || [];
  for (let i = 0; i < s.influence; i++) cards.append(cardEl(hand[i] || null, false));
  for (const c of s.face_up) cards.append(cardEl(c, true));
  return el("div", {
    class: `seat${s.you ? " you" : ""}${s.acting ? " acting" : ""}${out ? " out" : ""}`,
    "data-seat": s.seat, "data-coins": s.coins, "data-influence": s.influence, "data-faceup": s.face_up.join("+"),
    "data-hand": s.hand ? s.hand.join("+") : "",
  },
  el("div", { class: "name" }, el("span", { text: `p${s.seat} · ${s.label}` }), el("span", { class: "coins", text: `${s.coins}` })),
  cards, out ? el("div", { class: "note", text: "out of the game" }) : null);
}

function render(g) {
  app.game = g;
  $("setup").classList.add("hidden");
  $("game").classList.remove("hidden");
  const turn = g.turn > 0 ? `Turn ${g.turn} of ${g.turn_limit}` : "Setting up";
  $("status").replaceChildren(
    el("span", { class: "pill", id: "turn", text: turn }),
    el("span", { class: "pill", id: "deck", "data-deck": g.deck, text: `Court deck: ${g.deck} cards` }),
    el("span", { class: "pill", text: g.rules }),
    g.seed != null ? el("span", { class: "pill", text: `seed ${g.seed}` }) : null);
  $("seats").replaceChildren(...g.seats.map((s) => seatEl(s, g)));
  const you = g.seats[g.seat];
  $("deciding").textContent = g.over ? "Game over" : g.deciding.replace(new RegExp(`^p${g.seat} to `), "Your move: ");
  $("deciding").dataset.text = g.deciding;
  renderMoves(g);
  renderLog(g.log);
  renderCoach(g);
  const res = $("result");
  res.classList.toggle("hidden", !g.over);
  if (g.over) {
    res.textContent = g.result;
    res.className = `result ${g.result.startsWith("You win") ? "win" : g.result.startsWith("You lose") ? "lose" : ""}`;
  }
  renderReview(g);
  document.title = g.over ? `coupsolve: ${g.result}` : `coupsolve: ${you.hand ? you.hand.join("+") : ""} · ${turn}`;
  $("game").dataset.ply = g.ply;  // last: the page is complete for this position
}

function renderMoves(g) {
  const box = $("moves");
  box.replaceChildren();
  for (const m of g.moves) {
    const b = el("button", { type: "button", "data-action": m.action, onclick: () => play(m.action) }, m.label);
    if (app.coach && m.prob != null) {
      b.append(el("span", { class: "tip", text: `${pct(m.prob)}${m.value != null ? ` · ${signed(m.value)}` : ""}` }));
      b.append(el("i", { class: "bar", style: `width:${(m.prob * 100).toFixed(1)}%` }));
    }
    box.append(b);
  }
}

function renderLog(lines) {
  const log = $("log");
  log.replaceChildren();
  lines.forEach((line, i) => {
    const kind = line.startsWith("--") ? "turn" : line.trimStart().startsWith("forced:") || line.startsWith("   ") ? "forced" : "";
    const text = line.startsWith("--") ? line.replace(/^-- /, "") : line.trim();
    log.append(el("li", { class: `${kind}${i >= app.logSeen ? " new" : ""}`, text }));
  });
  app.logSeen = lines.length;
  log.scrollTop = log.scrollHeight;
}

function renderCoach(g) {
  const panel = $("coach-panel");
  const on = app.coach && g.coach && !g.over && g.moves.length && g.moves[0].prob != null;
  panel.classList.toggle("hidden", !on && !(app.coach && !g.coach && !g.over));
  if (!app.coach || g.over) return;
  if (!g.coach) { panel.replaceChildren(el("p", { class: "note", text: "No coach for this game: choose a strategy of its rules as the coach when you deal." })); return; }
  if (!on) return;
  const rows = [...g.moves].sort((a, b) => b.prob - a.prob).map((m) => el("tr", {},
    el("td", { text: m.label }),
    el("td", {}, el("div", { class: "pbar" }, el("i", { style: `width:${(m.prob * 100).toFixed(1)}%` }))),
    el("td", { text: pct(m.prob) }),
    g.coach_values ? el("td", { class: tone(m.value), text: signed(m.value) }) : null));
  panel.replaceChildren(
    el("h3", { text: "Coach: what the strategy does with your hand" }),
    el("table", {}, el("thead", {}, el("tr", {}, el("th", { text: "move" }), el("th", {}), el("th", { text: "probability" }),
      g.coach_values ? el("th", { text: "value" }) : null)), el("tbody", {}, ...rows)),
    el("p", { class: "note", text: g.coach_values
      ? "Value: your expected payoff (−1 loss … +1 win) after the move when everyone then plays the strategy, exact on the solved tree."
      : "This strategy file has no move values (only a strategy solved on the history tree has them)." }));
}

function renderReview(g) {
  const box = $("review");
  box.classList.toggle("hidden", !g.over);
  if (!g.over) return;
  const seats = g.seats.map((s) => el("div", { class: "seat" }, el("div", { class: "name", text: `p${s.seat} · ${s.label}` }),
    el("div", { class: "cards" }, ...(s.hand || []).map((c) => cardEl(c, false)), ...s.face_up.map((c) => cardEl(c, true)))));
  const kids = [el("h3", { text: "Cards at the end" }), el("div", { class: "seats", id: "reveal" }, ...seats)];
  const rev = g.review || [];
  if (g.coach && rev.length) {
    const agree = rev.filter((d) => d.chosen === d.best).length;
    const loss = rev.reduce((t, d) => t + (d.loss || 0), 0);
    kids.push(el("h3", { text: "Review: your decisions against the strategy" }),
      el("p", { class: "note", id: "review-summary", text: `${agree} of ${rev.length} decisions were the strategy's favourite move` +
        (g.coach_values ? `; value given up in all: ${loss.toFixed(3)}` : "") }),
      el("table", {}, el("thead", {}, el("tr", {}, ...["turn", "your hand", "decision", "you played", "strategy", "its favourite"]
        .concat(g.coach_values ? ["value lost"] : []).map((t) => el("th", { text: t })))),
      el("tbody", {}, ...rev.map((d) => el("tr", {},
        el("td", { text: d.turn || "setup" }), el("td", { text: d.hand || "–" }), el("td", { text: d.deciding }),
        el("td", { text: d.chosen }), el("td", { text: pct(d.prob) }), el("td", { text: `${d.best} (${pct(d.best_prob)})` }),
        g.coach_values ? el("td", { class: d.loss > 1e-3 ? "neg" : "", text: d.loss == null ? "–" : d.loss.toFixed(3) }) : null)))));
  }
  box.replaceChildren(...kids);
}

// ---- the explorer ------------------------------------------------------------------------------------
function heat(p) {
  const a = Math.max(0, Math.min(1, p));
  return `background: rgba(217, 164, 65, ${(0.08 + 0.92 * a).toFixed(3)}); color: ${a > 0.55 ? "#1a1305" : "inherit"}`;
}

async function explore(path) {
  showError(null);
  try {
    const v = await api("POST", "/api/explore", { strategy: app.explore.strategy, path });
    app.explore.path = v.path;
    renderExplorer(v);
  } catch (e) { showError(e); }
}

function renderExplorer(v) {
  const crumbs = [el("button", { type: "button", onclick: () => explore([]), text: "start" })];
  v.labels.forEach((label, i) => crumbs.push(el("button", { type: "button", onclick: () => explore(v.path.slice(0, i + 1)), text: label })));
  $("ex-path").replaceChildren(...crumbs);
  $("ex-deciding").textContent = v.deciding;
  $("ex-reach").textContent = `Reach of this public state: ${pct(v.reach)} of games (${v.histories} histories behind it)`;
  $("ex-reach").dataset.reach = v.reach;
  $("ex-moves").replaceChildren(...(v.moves.length ? v.moves.map((m) => el("button", {
    type: "button", "data-index": m.index, onclick: () => explore(v.path.concat([m.index])) },
  el("i", { style: `width:${(Math.min(1, m.reach / (v.reach || 1)) * 100).toFixed(1)}%` }),
  el("span", { text: `${m.label} · ${pct(m.reach / (v.reach || 1))}` }))) : [el("p", { class: "note", text: "The game ends here." })]));
  const grid = $("ex-grid");
  grid.replaceChildren();
  if (v.grid) {
    const cols = v.grid.columns;
    grid.append(el("thead", {}, el("tr", {}, el("th", { class: "hand", text: `p${v.grid.player}'s hand` }), el("th", { text: "reach" }),
      ...cols.map((c) => el("th", { text: c.label })))));
    grid.append(el("tbody", {}, ...v.grid.rows.map((r) => el("tr", { class: r.reach > 0 ? "" : "unreached", title: r.reach > 0 ? "" : "this hand never gets here when both sides play the strategy" },
      el("th", { class: "hand" }, r.hand, r.detail ? el("small", { text: r.detail }) : null),
      el("td", { class: "reach", text: pct(r.reach) }),
      ...cols.map((c) => {
        const p = r.probs[String(c.action)];
        return p == null ? el("td", { text: "" }) : el("td", { style: heat(p), "data-p": p, text: pct(p) });
      })))));
    grid.append(el("tfoot", {},
      el("tr", {}, el("td", { text: "played here" }), el("td", {}), ...cols.map((c) => el("td", { text: pct(c.played) }))),
      el("tr", {}, el("td", { text: "of which bluffs" }), el("td", {}), ...cols.map((c) => el("td", { text: c.claim ? pct(c.bluff) : "" })))));
  }
  renderAnalysis(v.analysis);
}

function renderAnalysis(a) {
  const box = $("ex-analysis");
  if (!a) { box.replaceChildren(el("p", { class: "note", text: "This strategy file carries no exact analysis." })); return; }
  const rows = a.claims.filter((c) => c.made > 0).map((c) => el("tr", { class: c.made < a.reach_threshold ? "note" : "" },
    el("td", { title: `claims ${c.character}` }, c.claim, el("small", { text: c.character })), el("td", { text: c.made.toFixed(3) }),
    el("td", { text: pct(c.bluff) }), el("td", { text: pct(c.challenged) }), el("td", { text: pct(c.challenge_success) })));
  box.replaceChildren(el("table", { class: "analysis" },
    el("thead", {}, el("tr", {}, ...[["claim", ""], ["per game", "times made per game"], ["bluff", "share of the claims made without the card"],
      ["chal.", "share of the claims challenged"], ["won", "share of the challenges the challenger won"]]
      .map(([t, title]) => el("th", { text: t, title })))),
    el("tbody", {}, ...rows)),
  el("p", { class: "note", text: `Game value for p0: ${signed(a.game_value[0])}. Whole-game rates, exact, weighted by reach; chal.: challenged, won: the challenger won; grey rows are made under ${a.reach_threshold} times a game (not converged).` }));
}

function fillExplorer() {
  const sel = $("ex-strategy");
  sel.replaceChildren(...app.setup.strategies.map((s) => el("option", { value: s.name, text: s.name })));
  const has = app.setup.strategies.length > 0;
  $("ex-empty").classList.toggle("hidden", has);
  $("ex-body").classList.toggle("hidden", !has);
  if (has) {
    app.explore.strategy = sel.value;
    $("ex-what").textContent = app.setup.strategies[0].what;
  }
}

// ---- wiring -------------------------------------------------------------------------------------------
function switchView(name) {
  for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t.dataset.view === name);
  $("view-table").classList.toggle("hidden", name !== "table");
  $("view-explorer").classList.toggle("hidden", name !== "explorer");
  if (name === "explorer" && app.explore.strategy && !$("ex-grid").childElementCount && !$("ex-moves").childElementCount) explore([]);
}

async function start() {
  app.setup = await api("GET", "/api/setup");
  fillSetup();
  fillExplorer();
  $("players").addEventListener("change", fillSeats);
  $("seat").addEventListener("change", fillSeats);
  $("setup").addEventListener("submit", newGame);
  $("new-game").addEventListener("click", () => { $("game").classList.add("hidden"); $("setup").classList.remove("hidden"); });
  $("coach-switch").addEventListener("change", (e) => { app.coach = e.target.checked; if (app.game) render(app.game); });
  $("ex-strategy").addEventListener("change", (e) => {
    app.explore.strategy = e.target.value;
    $("ex-what").textContent = app.setup.strategies.find((s) => s.name === e.target.value).what;
    explore([]);
  });
  for (const t of document.querySelectorAll(".tab")) t.addEventListener("click", () => switchView(t.dataset.view));
}

start().catch(showError);
