// The page of `morris serve`: the board of the chosen game, its moves from the API, best first.
// Plain JS, no build step, nothing fetched from outside the server.
//
// The position lives in the address (?game=KEY&position=BOARD STRING): every move played pushes a
// history entry, so a link reproduces the position and back/forward step through the game.
// A move is played by clicking its points in turn: a point to place on (or a man, then the point it
// goes to), then the man to remove where the move closes a mill. The moves the API lists are the
// only ones offered, so every click sequence ends in a legal move.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const COLOUR = { w: "White", b: "Black" };
const GROUPS = [["win", "winning"], ["draw", "drawing"], ["loss", "losing"]];

const state = {
  games: {},     // key -> what /api says of the game
  game: null,    // the game shown
  data: null,    // the API's answer for the position shown
  moves: [],     // data.moves, each with .seq: the points clicked to play it
  clicks: [],    // the points clicked so far towards a move
  preview: null, // the move whose points are outlined (hovered in the list)
  request: 0,    // the newest lookup: older answers arriving late are dropped
};

const $ = (id) => document.getElementById(id);

async function getJSON(url) {
  const response = await fetch(url);
  let body;
  try {
    body = await response.json();
  } catch (e) {
    throw new Error(`${response.status} ${response.statusText}`);
  }
  if (!response.ok) throw new Error(body.error || `${response.status} ${response.statusText}`);
  return body;
}

// -- the position and the moves -------------------------------------------------------------------

function parseBoardString(text) {
  const [cells, side, hw, hb] = text.trim().split(/\s+/);
  return { cells, side, hands: { w: Number(hw || 0), b: Number(hb || 0) } };
}

// "d1" -> [d1]; "a1-a4xb6" -> [a1, a4, b6]; "pass" -> [] (played from the list only).
function clickSequence(notation) {
  if (notation === "pass") return [];
  const [body, ...removed] = notation.split("x");
  return [...body.split("-"), ...removed];
}

function startsWith(seq, prefix) {
  return prefix.length <= seq.length && prefix.every((p, i) => seq[i] === p);
}

function valueText(value, plies) {
  if (value === "draw") return "draw";
  return `${value} in ${plies} ${plies === 1 ? "ply" : "plies"}`;
}

// -- loading positions ----------------------------------------------------------------------------

function addressOf(key, position) {
  return `?game=${encodeURIComponent(key)}&position=${encodeURIComponent(position)}`;
}

// Looks the position up and shows it; history: "push" (a new position), "replace" or "none"
// (back/forward: the address is already right). Returns whether it was shown.
async function show(key, text, history) {
  const game = state.games[key];
  const ticket = ++state.request;
  let data;
  try {
    data = await getJSON(`api/${encodeURIComponent(key)}?position=${encodeURIComponent(text)}`);
  } catch (e) {
    if (ticket !== state.request) return false;
    if (state.game !== game) showEmpty(game, text); // nothing of this game shown yet
    $("error").textContent = e.message;
    return false;
  }
  if (ticket !== state.request) return false;
  state.game = game;
  state.data = data;
  state.moves = data.moves.map((m) => ({ ...m, seq: clickSequence(m.move) }));
  state.clicks = [];
  state.preview = null;
  $("error").textContent = "";
  $("game").value = key;
  const address = addressOf(key, data.position);
  if (history === "push" && location.search !== address) window.history.pushState(null, "", address);
  else if (history !== "none") window.history.replaceState(null, "", address);
  render();
  return true;
}

// The game's empty board, with no value and no moves, and ``text`` in the position field.
function showEmpty(game, text) {
  state.request++;
  state.game = game;
  state.data = { position: `${".".repeat(game.points.length)} w`, value: null, plies: null, moves: [] };
  state.moves = [];
  state.clicks = [];
  $("game").value = game.key;
  render();
  $("position").value = text;
}

const MOVING_ONLY = "this database answers the moving phase only: paste a position";

async function showAddress(history) {
  const query = new URLSearchParams(location.search);
  const keys = Object.keys(state.games);
  let key = query.get("game");
  if (!(key in state.games)) key = keys.includes("standard") ? "standard" : keys[0];
  const start = state.games[key].start; // null: the database holds the moving phase only
  const position = query.get("position") || start;
  if (position === null) {
    showEmpty(state.games[key], "");
    $("error").textContent = MOVING_ONLY;
    return;
  }
  const shown = await show(key, position, history);
  if (!shown && start !== null && position !== start) {
    const error = $("error").textContent;
    await show(key, start, "replace");
    $("error").textContent = error;
  }
}

// -- drawing --------------------------------------------------------------------------------------

function svg(tag, attrs, parent) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (parent) parent.appendChild(el);
  return el;
}

// Point names give the drawing: the letter is the column, the digit the row (1 at the bottom).
function geometry(game) {
  const at = {};
  let size = 0;
  for (const p of game.points) {
    const x = p.charCodeAt(0) - 97;
    const y = Number(p.slice(1)) - 1;
    at[p] = [x, y];
    size = Math.max(size, x + 1, y + 1);
  }
  for (const p of game.points) at[p] = [at[p][0], size - 1 - at[p][1]];
  return { at, size };
}

function drawBoard() {
  const game = state.game;
  const board = $("board");
  const { at, size } = geometry(game);
  board.replaceChildren();
  board.setAttribute("viewBox", `-1 -0.6 ${size + 0.6} ${size + 0.6}`);
  for (const line of game.lines) {
    for (let i = 0; i + 1 < line.length; i++) {
      const [x1, y1] = at[line[i]];
      const [x2, y2] = at[line[i + 1]];
      svg("line", { x1, y1, x2, y2 }, board);
    }
  }
  for (let i = 0; i < size; i++) {
    svg("text", { x: i, y: size - 0.35 }, board).textContent = String.fromCharCode(97 + i);
    svg("text", { x: -0.6, y: size - 1 - i }, board).textContent = String(i + 1);
  }
  const { cells } = parseBoardString(state.data.position);
  const targets = nextPoints();
  const previewed = state.preview ? state.preview.seq : [];
  game.points.forEach((p, i) => {
    const [x, y] = at[p];
    const classes = ["point"];
    if (state.clicks.includes(p)) classes.push("selected");
    else if (targets.has(p)) classes.push("target");
    if (previewed.includes(p)) classes.push("preview");
    const g = svg("g", { class: classes.join(" "), "data-point": p, "data-man": cells[i] }, board);
    svg("title", {}, g).textContent = p;
    svg("circle", { class: "hit", cx: x, cy: y, r: 0.45 }, g);
    svg("circle", { class: "dot", cx: x, cy: y, r: 0.09 }, g);
    if (cells[i] === "W" || cells[i] === "B") svg("circle", { class: `man ${cells[i].toLowerCase()}`, cx: x, cy: y, r: 0.3 }, g);
    svg("circle", { class: "ring", cx: x, cy: y, r: 0.38 }, g);
    g.addEventListener("click", () => clickPoint(p));
  });
}

// The points that continue a move from the clicks so far.
function nextPoints() {
  const out = new Set();
  for (const m of state.moves) {
    if (m.seq.length > state.clicks.length && startsWith(m.seq, state.clicks)) out.add(m.seq[state.clicks.length]);
  }
  return out;
}

function drawHands() {
  const { hands } = parseBoardString(state.data.position);
  for (const side of ["w", "b"]) {
    const n = hands[side];
    const men = (side === "w" ? "\u25cb" : "\u25cf").repeat(n);
    $(`hand-${side}`).innerHTML = n ? `${COLOUR[side]} in hand: <span class="men">${men}</span> ${n}` : "";
  }
}

function drawStatus() {
  const data = state.data;
  const { side } = parseBoardString(data.position);
  const status = $("status");
  status.dataset.value = data.value || "";
  status.dataset.plies = data.plies === null ? "" : String(data.plies);
  status.textContent = data.value === null ? "" : data.value === "loss" && data.plies === 0
    ? `${COLOUR[side]} to move has lost: the game is over`
    : `${COLOUR[side]} to move: ${valueText(data.value, data.plies)}`;
  $("ten-move").textContent = data.three_men_rule
    ? `three men each: ${data.three_men_rule} under the ten-move rule (a win or loss taking more than 20 plies is a draw)`
    : "";
  $("position").value = data.position;
}

function drawHint() {
  const hint = $("hint");
  hint.replaceChildren();
  if (!state.clicks.length) {
    hint.textContent = state.moves.length ? "click a point to place on, or a man and then a point to move it" : "";
    return;
  }
  hint.textContent = `${state.clicks.join(" \u2192 ")}: click a marked point`;
  // A move that may stop here (a removal it may pass up) is offered as a button.
  const done = state.moves.find((m) => m.seq.length === state.clicks.length && startsWith(m.seq, state.clicks));
  if (done) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = `play ${done.move}`;
    b.addEventListener("click", () => play(done));
    hint.append(" or ", b);
  }
}

function drawMoves() {
  const box = $("moves");
  box.replaceChildren();
  for (const [value, title] of GROUPS) {
    const moves = state.moves.filter((m) => m.value === value);
    if (!moves.length) continue;
    const group = document.createElement("div");
    group.className = "group";
    group.dataset.value = value;
    const h = document.createElement("h2");
    h.textContent = `${title} (${moves.length})`;
    const ul = document.createElement("ul");
    for (const m of moves) {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.className = "move";
      Object.assign(b.dataset, { move: m.move, value: m.value, plies: m.plies === null ? "" : String(m.plies), after: m.after });
      b.textContent = m.move;
      const badge = document.createElement("span");
      badge.className = `badge ${m.value}`;
      badge.textContent = m.value === "draw" ? "draw" : `${m.value} ${m.plies}`;
      if (m.three_men_rule) badge.title = `${m.three_men_rule} under the ten-move rule`;
      b.append(badge);
      b.addEventListener("click", () => play(m));
      b.addEventListener("mouseenter", () => { state.preview = m; drawBoard(); });
      b.addEventListener("mouseleave", () => { state.preview = null; drawBoard(); });
      li.append(b);
      ul.append(li);
    }
    group.append(h, ul);
    box.append(group);
  }
  if (!state.moves.length && state.data.value !== null) box.textContent = "no moves: the game is over";
}

function drawAbout() {
  const game = state.game;
  const rows = [
    ["key", game.key], ["rules", game.rules], ["board", game.board], ["men", game.men],
    ["source", game.source], ["tiers", `${game.tiers.length}: ${game.tiers.join(" ")}`],
  ];
  const dl = $("about-list");
  dl.replaceChildren();
  for (const [k, v] of rows) {
    const dt = document.createElement("dt");
    dt.textContent = k;
    const dd = document.createElement("dd");
    dd.textContent = String(v);
    dl.append(dt, dd);
  }
}

function render() {
  drawBoard();
  drawHands();
  drawStatus();
  drawHint();
  drawMoves();
  drawAbout();
  $("mainline").replaceChildren();
}

// -- playing --------------------------------------------------------------------------------------

function play(move) {
  return show(state.game.key, move.after, "push");
}

function clickPoint(p) {
  if (state.clicks.length && state.clicks[state.clicks.length - 1] === p) {
    state.clicks.pop(); // a second click on the last point takes it back
  } else {
    let clicks = [...state.clicks, p];
    let fits = state.moves.filter((m) => startsWith(m.seq, clicks));
    if (!fits.length) { // start afresh from this point (another man, or a point to place on)
      clicks = [p];
      fits = state.moves.filter((m) => startsWith(m.seq, clicks));
    }
    if (!fits.length) {
      state.clicks = [];
    } else if (fits.length === 1 && fits[0].seq.length === clicks.length) {
      play(fits[0]);
      return;
    } else {
      state.clicks = clicks;
    }
  }
  drawBoard();
  drawHint();
}

async function showMainline() {
  const ticket = state.request;
  let line;
  try {
    line = await getJSON(`api/${encodeURIComponent(state.game.key)}/mainline?position=${encodeURIComponent(state.data.position)}`);
  } catch (e) {
    $("error").textContent = e.message;
    return;
  }
  if (ticket !== state.request) return;
  const ol = $("mainline");
  ol.replaceChildren();
  for (const step of line.mainline) {
    const li = document.createElement("li");
    li.textContent = `${step.move} (${step.value === "draw" ? "draw" : `${step.value} ${step.plies}`})`;
    ol.append(li);
  }
  const end = document.createElement("li");
  end.style.listStyle = "none";
  end.textContent = { "game over": "the game is over", bound: "\u2026 (the line goes on)", repetition: "\u2026 repeats (a draw)" }[line.end];
  ol.append(end);
}

// -- start ----------------------------------------------------------------------------------------

async function start() {
  let api;
  try {
    api = await getJSON("api");
  } catch (e) {
    $("error").textContent = `cannot list the games: ${e.message}`;
    return;
  }
  const select = $("game");
  for (const g of api.games) {
    state.games[g.key] = g;
    const option = document.createElement("option");
    option.value = g.key;
    option.textContent = `${g.key} (${g.rules})`;
    select.append(option);
  }
  select.addEventListener("change", () => {
    const game = state.games[select.value];
    if (game.start !== null) {
      show(game.key, game.start, "push");
    } else {
      showEmpty(game, "");
      $("error").textContent = MOVING_ONLY;
      window.history.pushState(null, "", `?game=${encodeURIComponent(game.key)}`);
    }
  });
  $("position-form").addEventListener("submit", (e) => {
    e.preventDefault();
    show(state.game.key, $("position").value, "push");
  });
  $("mainline-button").addEventListener("click", showMainline);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && state.clicks.length) { state.clicks = []; drawBoard(); drawHint(); }
  });
  window.addEventListener("popstate", () => showAddress("none"));
  await showAddress("replace");
  document.body.dataset.ready = "1";
}

start();
