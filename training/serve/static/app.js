// The page of uno-env serve: set up a table, play it, replay records. Plain JavaScript, no
// build step. Everything shown comes from the server's views; the page only sends the action
// id of a legal control (with the decision number it answers) and never evaluates anything
// it receives: text goes through textContent.
"use strict";

const main = document.getElementById("main");
const statusLine = document.getElementById("status");
const params = new URLSearchParams(location.search);
const PACE = params.has("fast") ? 0 : 350; // ms between shown events of other seats
let setup = null;
let socket = null;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
  };
  const response = await fetch(path, options);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function say(text) { statusLine.textContent = text; }

// ------------------------------------------------------------------ cards
const SUIT_SYMBOLS = {C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660"};

function cardNode(card, deck, extra) {
  const classes = ["card"];
  if (deck === "french") classes.push("french");
  if (card.colour >= 0) classes.push("c" + card.colour);
  else classes.push(deck === "uno" ? "wild" : "joker");
  if (extra) classes.push(extra);
  let face = card.text;
  if (deck === "french" && card.colour >= 0) face = card.text.slice(0, -1) + SUIT_SYMBOLS[card.text.slice(-1)];
  return el("div", {class: classes.join(" "), title: card.name, "data-card": card.text}, face);
}

function backNode(small) { return el("div", {class: "card back" + (small ? " small" : "")}); }

// ------------------------------------------------------------------ home: new table, replays
async function showHome() {
  closeSocket();
  main.replaceChildren(el("p", {}, "loading ..."));
  setup = setup || await api("/api/setup");
  const presetSelect = el("select", {id: "preset"},
    Object.keys(setup.presets).map((name) => el("option", {value: name}, name)));
  const players = el("input", {id: "players", type: "number", min: 2, max: setup.max_players, value: 4});
  const seatsBox = el("div", {class: "seats-setup", id: "seats"});
  const fieldsBox = el("div", {class: "fields", id: "fields"});
  const seedBox = setup.fixed_seeds ? el("input", {id: "seed", type: "number", min: 0, placeholder: "fresh"}) : null;
  const errorLine = el("div", {class: "error", id: "setup-error"});

  function agentOptions(selected) {
    return [el("option", {value: setup.human, selected: selected === setup.human}, "a person"),
      ...setup.agents.map((a) => el("option", {value: a.id, selected: selected === a.id, title: a.summary},
        a.id + (a.cheats ? " (cheats)" : "")))];
  }
  function drawSeats() {
    const n = Math.max(2, Math.min(setup.max_players, Number(players.value) || 2));
    const old = [...seatsBox.querySelectorAll("select")].map((s) => s.value);
    seatsBox.replaceChildren(...Array.from({length: n}, (_, seat) => el("div", {class: "seat-row"},
      el("label", {}, "seat " + seat, el("select", {"data-seat": seat},
        agentOptions(old[seat] || (seat === 0 ? setup.human : "greedy")))))));
  }
  function drawFields() {
    const values = setup.presets[presetSelect.value];
    fieldsBox.replaceChildren(...setup.fields.map((f) => {
      const value = values[f.name];
      let input;
      if (f.type === "boolean") input = el("input", {type: "checkbox", checked: value === true});
      else if (f.type === "choice") input = el("select", {}, f.choices.map((c) => el("option", {value: c, selected: c === value}, c)));
      else if (f.type === "integer" || f.type === "number") input = el("input", {type: "number", value: value,
        min: f.bounds[0], max: f.bounds[1], step: f.type === "integer" ? 1 : "any"});
      else if (f.type === "list") input = el("input", {type: "text", value: value.join(","), placeholder: "comma-separated"});
      else input = el("input", {type: "text", value: value});
      input.dataset.field = f.name;
      input.dataset.type = f.type;
      return el("div", {class: "field"}, el("label", {title: f.rule}, input, f.name), el("small", {}, f.rule + ": " + f.doc));
    }));
  }
  function changedRules() {
    const base = setup.presets[presetSelect.value];
    const out = {};
    for (const input of fieldsBox.querySelectorAll("[data-field]")) {
      const name = input.dataset.field;
      let value;
      if (input.dataset.type === "boolean") value = input.checked;
      else if (input.dataset.type === "integer") value = Number(input.value);
      else if (input.dataset.type === "number") value = Number(input.value);
      else if (input.dataset.type === "list") value = input.value.split(",").map((s) => s.trim()).filter((s) => s);
      else value = input.value;
      if (JSON.stringify(value) !== JSON.stringify(base[name])) out[name] = value;
    }
    return out;
  }
  async function create() {
    errorLine.textContent = "";
    const body = {
      preset: presetSelect.value, rules: changedRules(), players: Number(players.value),
      seats: [...seatsBox.querySelectorAll("select")].map((s) => s.value),
    };
    if (seedBox && seedBox.value !== "") body.seed = Number(seedBox.value);
    try {
      const made = await api("/api/tables", body);
      const seats = Object.keys(made.tokens).map(Number);
      sessionStorage.setItem("links-" + made.table, JSON.stringify(made.tokens));
      if (seats.length) location.hash = `#/table/${made.table}/${seats[0]}/${made.tokens[seats[0]]}`;
      else location.hash = `#/watch/${made.table}`;
    } catch (error) { errorLine.textContent = error.message; }
  }
  presetSelect.addEventListener("change", drawFields);
  players.addEventListener("change", drawSeats);
  drawSeats();
  drawFields();

  const recordBox = el("div", {class: "record-list", id: "records"}, "loading ...");
  const upload = el("textarea", {id: "record-text", placeholder: "or paste a record line (uno-env play --record, simulate --record)"});
  const replayError = el("div", {class: "error", id: "replay-error"});
  async function openReplay(body) {
    replayError.textContent = "";
    try { showReplay(await api("/api/replays", body)); } catch (error) { replayError.textContent = error.message; }
  }
  main.replaceChildren(el("div", {class: "columns"},
    el("section", {class: "panel"}, el("h2", {}, "New table"),
      el("label", {}, "rules", presetSelect), el("label", {}, "players", players),
      seedBox ? el("label", {}, "seed", seedBox) : null,
      seatsBox,
      el("details", {}, el("summary", {}, "house rules and every rule field (the fields of a rule file)"), fieldsBox),
      el("button", {id: "create", onclick: create}, "Deal"), errorLine),
    el("section", {class: "panel"}, el("h2", {}, "Watch and replay"), recordBox,
      upload, el("button", {class: "secondary", id: "open-text", onclick: () => openReplay({text: upload.value})}, "Replay this record"),
      replayError)));
  try {
    const {records} = await api("/api/records");
    recordBox.replaceChildren(...(records.length ? records.slice().reverse().map((r) => el("button", {
      "data-record": r.id, onclick: () => openReplay({id: r.id}),
    }, `${r.file} #${r.game}: ${r.preset}, ${r.players} players (${r.agents.join(", ")}), ${r.decisions} decisions` +
      (r.winner === null ? "" : `, seat ${r.winner} won`))) : [el("p", {}, "no recorded games yet")]));
  } catch (error) { recordBox.textContent = error.message; }
}

// ------------------------------------------------------------------ a table
const table = {id: null, seat: null, view: null, queue: [], busy: false, log: []};

function closeSocket() {
  if (socket) { socket.onclose = null; socket.close(); socket = null; }
}

function connect(message) {
  closeSocket();
  table.queue = []; table.log = []; table.view = null;
  const protocol = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${protocol}://${location.host}/ws`);
  socket.onopen = () => socket.send(JSON.stringify(message));
  socket.onmessage = (event) => {
    const data = JSON.parse(event.data);
    if (data.type === "error") { showError(data.error); return; }
    table.queue.push(data);
    pump();
  };
  socket.onclose = () => say("disconnected from the server");
  main.replaceChildren(el("p", {}, "joining ..."));
}

function showError(text) {
  const line = document.getElementById("table-error");
  if (line) line.textContent = text; else say(text);
}

async function pump() {
  if (table.busy) return;
  table.busy = true;
  while (table.queue.length) {
    const data = table.queue.shift();
    if (data.event) table.log.unshift(data.event.text);
    table.view = data.view;
    drawTable();
    if (table.queue.length && PACE) await new Promise((r) => setTimeout(r, PACE));
  }
  table.busy = false;
  drawTable();
}

function send(action) {
  if (!socket || !table.view) return;
  const line = document.getElementById("table-error");
  if (line) line.textContent = "";
  socket.send(JSON.stringify({type: "act", action: action, decision: table.view.decisions}));
}

function seatLabel(view, seat) {
  return seat === view.seat ? "you" : `seat ${seat} (${view.names[seat]})`;
}

function drawTable() {
  const view = table.view;
  if (!view) return;
  const ready = !table.busy || table.queue.length === 0;
  const legal = ready ? view.legal : [];
  const bySeat = {}; const byCard = {}; const buttons = [];
  for (const item of legal) {
    if (item.kind === "target") bySeat[item.target] = item;
    if (item.kind === "card") byCard[item.card.id] = item;
    if (item.kind !== "card") buttons.push(item);
  }
  const deck = view.deck;
  const others = [...Array(view.players).keys()].filter((s) => s !== view.seat);
  const seatBox = (seat) => {
    const target = bySeat[seat];
    const hand = view.hands[String(seat)];
    const badges = [];
    if (view.called[seat]) badges.push(el("span", {class: "badge"}, view.call_name || "called"));
    if (view.finished[seat]) badges.push(el("span", {class: "badge"}, "out #" + view.finished[seat]));
    if (view.sit_out[seat]) badges.push(el("span", {class: "badge"}, "sits out " + view.sit_out[seat]));
    return el("div", {
      class: "seat" + (view.to_move === seat ? " to-move" : "") + (target ? " target" : ""),
      "data-seat": seat, "data-action": target ? target.action : null, "data-kind": target ? "target" : null,
      onclick: target ? () => send(target.action) : null,
    },
    el("div", {class: "name"}, seatLabel(view, seat), ...badges),
    el("div", {class: "meta"}, `${view.hand_sizes[seat]} cards` + (view.scores[seat] ? `, ${view.scores[seat]} points` : "")),
    hand && seat !== view.seat ? el("div", {}, hand.map((c) => cardNode(c, deck, "small"))) :
      el("div", {}, Array.from({length: Math.min(view.hand_sizes[seat], 12)}, () => backNode(true))));
  };
  const drawItem = legal.find((i) => i.kind === "draw");
  const colourName = view.colour >= 0 ? view.colour_names[view.colour] : "none named";
  const colourCss = ["var(--red)", "var(--yellow)", "var(--green)", "var(--blue)"][view.colour] || "#888";
  const pending = view.pending_cards || view.pending_turns ?
    `pending: ${view.pending_cards ? view.pending_cards + " cards" : ""}${view.pending_turns ? " " + view.pending_turns + " turns" : ""} from ${seatLabel(view, view.pending_from)}` : "";
  let question = view.question || "";
  if (!question && !view.over) {
    question = view.to_move !== null && view.to_move >= 0 ? `${seatLabel(view, view.to_move)} to decide (${view.phase.replace("_", " ")})` : "";
  }
  const mine = view.seat !== null && view.seat >= 0 ? view.hands[String(view.seat)] || [] : [];
  const handNodes = mine.map((card) => {
    const item = byCard[card.id];
    const node = cardNode(card, deck, item ? "legal" : (legal.length ? "dim" : null));
    if (item) { node.dataset.action = item.action; node.dataset.kind = "card"; node.title = item.label; node.addEventListener("click", () => send(item.action)); }
    return node;
  });
  const buttonNodes = buttons.map((item) => el("button", {
    "data-action": item.action, "data-kind": item.kind,
    class: item.kind === "colour" ? "colour" + item.colour : null, onclick: () => send(item.action),
  }, item.label));
  let outcome = null;
  if (view.over && view.outcome) {
    const o = view.outcome;
    outcome = el("div", {class: "outcome", id: "outcome"},
      o.truncated ? "The game hit the decision limit: no winner." :
        (o.winner === view.seat ? "You win!" : `${seatLabel(view, o.winner)} wins.`) +
        ` Ranking: ${o.ranking.map((s) => seatLabel(view, s)).join(", ")}.`,
      el("div", {}, el("a", {href: "#/", style: "color: var(--ink)"}, "back: new table or replay this game")));
  }
  const links = [];
  const stored = sessionStorage.getItem("links-" + table.id);
  if (stored) {
    const tokens = JSON.parse(stored);
    for (const [seat, token] of Object.entries(tokens)) {
      if (Number(seat) === view.seat) continue;
      links.push(el("label", {}, `invite seat ${seat}:`, el("input", {readonly: true, "data-invite": seat,
        value: `${location.origin}${location.pathname}#/table/${table.id}/${seat}/${token}`})));
    }
  }
  main.replaceChildren(el("div", {class: "table panel", id: "table", "data-decisions": view.decisions, "data-over": view.over},
    el("div", {class: "opponents"}, others.map(seatBox)),
    el("div", {class: "centre"},
      el("div", {class: "pile"}, drawItem ? el("button", {class: "card back big legal", "data-action": drawItem.action,
        "data-kind": "draw", title: "draw", onclick: () => send(drawItem.action)}) : backNode(false),
      el("div", {}, `draw pile: ${view.draw_pile}`)),
      el("div", {class: "pile"}, view.top ? cardNode(view.top, deck, "big") : null,
        el("div", {}, el("span", {class: "colour-dot", style: `background:${colourCss}`}), ` ${colourName}`),
        el("div", {}, view.direction > 0 ? "clockwise \u21bb" : "counter-clockwise \u21ba")),
      el("div", {class: "pile"}, pending)),
    el("div", {class: "question", id: "question"}, question),
    el("div", {class: "controls", id: "controls"}, buttonNodes),
    el("div", {class: "hand", id: "hand"}, handNodes),
    el("div", {class: "error", id: "table-error"}),
    outcome,
    view.seat !== null && view.seat >= 0 ? null : el("div", {class: "opponents"}),
    el("div", {class: "log", id: "log"}, table.log.slice(0, 60).map((t) => el("div", {}, t))),
    links.length ? el("details", {class: "links"}, el("summary", {}, "invite people to the other seats"), links) : null));
  say(`${view.preset || "custom rules"}, ${view.players} players` + (view.seat !== null && view.seat >= 0 ? `, you are seat ${view.seat}` : ", watching"));
}

// ------------------------------------------------------------------ replays
const replay = {data: null, step: 0, chart: [], timer: null, agent: {}};
const SEAT_COLOURS = ["#ffd166", "#ef476f", "#06d6a0", "#118ab2", "#f78c6b", "#c77dff", "#e9ff70", "#ff99c8", "#a0c4ff", "#cdb4db"];

function showReplay(data) {
  closeSocket();
  replay.data = data; replay.step = 0; replay.chart = []; replay.agent = {};
  if (replay.timer) clearInterval(replay.timer);
  replay.timer = setInterval(pollChart, 400);
  pollChart();
  drawReplay();
}

async function pollChart() {
  if (!replay.data) return;
  try {
    const chart = await api(`/api/replays/${replay.data.replay}/chart`);
    replay.chart = chart.values;
    if (chart.done >= chart.total) { clearInterval(replay.timer); replay.timer = null; }
    drawChart();
  } catch (error) { clearInterval(replay.timer); replay.timer = null; }
}

async function agentView(step) {
  if (step in replay.agent) return replay.agent[step];
  const data = await api(`/api/replays/${replay.data.replay}/agent/${step}`);
  replay.agent[step] = data.view;
  return data.view;
}

function goTo(step) {
  const last = replay.data.frames.length - 1;
  replay.step = Math.max(0, Math.min(last, step));
  drawReplay();
}

function drawReplay() {
  const data = replay.data;
  const frame = data.frames[replay.step];
  const view = frame.view;
  const deck = view.deck;
  const last = data.frames.length - 1;
  const seats = [...Array(view.players).keys()].map((seat) => el("div", {class: "seat" + (view.to_move === seat ? " to-move" : ""), "data-seat": seat},
    el("div", {class: "name"}, `seat ${seat} (${data.names[seat]})`, view.called[seat] ? el("span", {class: "badge"}, view.call_name) : null),
    el("div", {}, (view.hands[String(seat)] || []).map((c) => cardNode(c, deck, "small")))));
  const slider = el("input", {type: "range", min: 0, max: last, value: replay.step, id: "step-slider",
    oninput: (e) => goTo(Number(e.target.value))});
  const colourName = view.colour >= 0 ? view.colour_names[view.colour] : "none";
  const next = replay.step < last ? data.frames[replay.step + 1].event : null;
  main.replaceChildren(
    el("section", {class: "panel"},
      el("h2", {}, `Replay: ${data.preset || "custom rules"}, ${data.players} players, seed ${data.seed}`),
      el("div", {class: "meta", id: "verified"}, data.verified),
      el("div", {class: "stepper"},
        el("button", {class: "secondary", id: "first", onclick: () => goTo(0)}, "first"),
        el("button", {class: "secondary", id: "back", onclick: () => goTo(replay.step - 1)}, "\u25c0 back"),
        el("button", {id: "forward", onclick: () => goTo(replay.step + 1)}, "forward \u25b6"),
        el("button", {class: "secondary", id: "last", onclick: () => goTo(last)}, "last"),
        slider, el("span", {id: "step-label"}, `step ${replay.step} of ${last}`)),
      el("div", {id: "event"}, frame.event ? "last: " + frame.event.text : "dealt"),
      el("div", {id: "next-event"}, next ? "next: " + next.text : (view.over ? "game over" : ""))),
    el("div", {class: "columns"},
      el("section", {class: "panel replay-hands"}, el("h2", {}, "Every hand"),
        el("div", {class: "centre"}, view.top ? cardNode(view.top, deck, "big") : null,
          el("div", {class: "pile"}, `colour: ${colourName}`, el("br"), `draw pile: ${view.draw_pile}`, el("br"),
            view.direction > 0 ? "clockwise" : "counter-clockwise")), seats),
      el("section", {class: "panel"}, el("h2", {}, "The decision and what the agent saw"), el("div", {class: "bars", id: "agent-view"}, "..."),
        el("h2", {}, "Win chances"), el("div", {class: "meta", id: "estimator"}, data.estimator.description),
        el("div", {id: "chart-box"}), el("div", {class: "legend"}, data.names.map((name, s) =>
          el("span", {style: `color:${SEAT_COLOURS[s % SEAT_COLOURS.length]}`}, `\u25a0 seat ${s} (${name})`))))));
  drawChart();
  drawAgent();
  say("replay");
}

async function drawAgent() {
  const box = document.getElementById("agent-view");
  const data = replay.data;
  const step = replay.step;
  if (step >= data.frames.length - 1) { box.textContent = "the game is over"; return; }
  const next = data.frames[step + 1].event;
  const seat = next.seat;
  const header = el("div", {}, `seat ${seat} (${data.names[seat]}) decides: ${next.text}`);
  let view;
  try { view = await agentView(step); } catch (error) { box.replaceChildren(header, el("div", {}, error.message)); return; }
  if (replay.step !== step) return;
  const traced = view && view.trace ? [traceNode(view.trace)] : [];
  if (!view) { box.replaceChildren(header, el("div", {class: "meta"}, "a person's decision, or an agent whose reasons are not known")); return; }
  if (view.kind === "choice") {
    box.replaceChildren(header, el("div", {class: "meta"}, view.trace ? "the agent's trace" : "a scripted rule: its choice only" + (view.why ? ` (${view.why})` : "")), ...traced);
    return;
  }
  const total = view.values.reduce((a, b) => a + b, 0) || 1;
  const chosen = data.frames[step + 1].event;
  const what = view.kind === "visits" ? "rollouts (visit counts) and their mean value" + (view.reanalysed ? ", re-analysed here" : "") : "action probabilities";
  const legalLabels = (data.frames[step].labels) || {};
  box.replaceChildren(header, el("div", {class: "meta"}, what),
    ...view.actions.map((action, i) => {
      const share = view.values[i] / total;
      const label = legalLabels[action] || actionText(action, data.frames[step].view);
      const isChosen = chosenAction(step) === action;
      return el("div", {class: "bar" + (isChosen ? " chosen" : ""), "data-bar": action},
        el("span", {class: "label"}, label),
        el("div", {}, el("div", {class: "fill", style: `width:${(share * 100).toFixed(1)}%`})),
        el("span", {}, view.kind === "visits" ? `${view.values[i]} (${(view.means[i] * 100).toFixed(0)}%)` : `${(view.values[i] * 100).toFixed(1)}%`));
    }), ...traced);
}

function traceNode(t) {
  // a match trace's line (agents.trace), shown as text: the view shown, the answers, the move
  const tokens = Object.entries(t.tokens).map(([k, v]) => `${k} ${v}`).join(", ");
  const rows = [
    el("div", {class: "meta"}, `${t.agent}: played ${t.move} after ${t.retries} re-ask(s)` +
      `${t.fallback ? " (fallback move)" : ""}, ${t.seconds.toFixed(3)} s${tokens ? "; tokens: " + tokens : ""}`),
    el("div", {}, `legal: ${t.legal.join(", ")}`),
    ...t.answers.map((a, i) => el("div", {class: "answer", "data-answer": i}, `answer ${i + 1}: ${a}`)),
    ...t.reasks.map((r, i) => el("div", {class: "meta"}, `re-ask ${i + 1}: ${r}`)),
  ];
  if (t.view) rows.push(el("details", {}, el("summary", {}, "the JSON view shown"), el("pre", {}, t.view)));
  return el("div", {class: "trace", id: "trace"}, ...rows);
}

function chosenAction(step) { return replay.data.actions ? replay.data.actions[step] : null; }

function actionText(action, view) {
  // the action table of uno_env.engine.actions: faces, then colours, targets and the fixed actions
  const faces = view.deck === "uno" ? 56 : 54;
  if (action < faces) {
    for (const seat of Object.keys(view.hands)) for (const c of view.hands[seat]) if (c.id === action) return c.text;
    return "card " + action;
  }
  const rest = action - faces;
  if (rest < 4) return (view.deck === "uno" ? "colour " : "suit ") + view.colour_letters[rest];
  if (rest < 13) return "target +" + (rest - 3);
  return ["draw", "pass", "call", "challenge", "accept"][rest - 13] || String(action);
}

function drawChart() {
  const box = document.getElementById("chart-box");
  if (!box || !replay.data) return;
  const total = replay.data.frames.length;
  const values = replay.chart;
  const W = 600, H = 200;
  const x = (i) => (total > 1 ? (i / (total - 1)) * (W - 20) + 10 : 10);
  const y = (p) => H - 10 - p * (H - 20);
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("class", "chart");
  svg.setAttribute("id", "chart");
  svg.dataset.points = String(values.length);
  const line = (attrs) => { const n = document.createElementNS(svg.namespaceURI, "line"); for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v); return n; };
  for (const p of [0, 0.25, 0.5, 0.75, 1]) {
    svg.append(line({x1: 10, x2: W - 10, y1: y(p), y2: y(p), stroke: "#2b5a45", "stroke-width": 1}));
    const label = document.createElementNS(svg.namespaceURI, "text");
    label.setAttribute("x", 12); label.setAttribute("y", y(p) - 2); label.setAttribute("fill", "#7fa08e");
    label.setAttribute("font-size", "10"); label.textContent = `${p * 100}%`;
    svg.append(label);
  }
  const players = replay.data.players;
  for (let s = 0; s < players; s++) {
    if (!values.length) break;
    const path = document.createElementNS(svg.namespaceURI, "polyline");
    path.setAttribute("points", values.map((v, i) => `${x(i).toFixed(1)},${y(v[s]).toFixed(1)}`).join(" "));
    path.setAttribute("fill", "none");
    path.setAttribute("stroke", SEAT_COLOURS[s % SEAT_COLOURS.length]);
    path.setAttribute("stroke-width", "2");
    path.setAttribute("class", "seat-line");
    svg.append(path);
  }
  svg.append(line({x1: x(replay.step), x2: x(replay.step), y1: 5, y2: H - 5, stroke: "#fff", "stroke-dasharray": "4 3"}));
  box.replaceChildren(svg, el("div", {class: "meta"}, `decisions 0 to ${total - 1} left to right; `, values.length < total ? `estimating: ${values.length} of ${total} steps` :
    (values[replay.step] ? "at this step: " + values[replay.step].map((p, s) => `seat ${s} ${(p * 100).toFixed(0)}%`).join(", ") : "")));
}

// ------------------------------------------------------------------ routing
function route() {
  const parts = location.hash.replace(/^#\/?/, "").split("/");
  if (parts[0] === "table" && parts.length === 4) {
    table.id = parts[1]; table.seat = Number(parts[2]);
    connect({type: "join", table: parts[1], token: parts[3]});
  } else if (parts[0] === "watch" && parts.length === 2) {
    table.id = parts[1]; table.seat = null;
    connect({type: "watch", table: parts[1]});
  } else {
    showHome().catch((error) => say(error.message));
  }
}

document.addEventListener("keydown", (event) => {
  if (!replay.data || !document.getElementById("step-slider")) return;
  if (event.key === "ArrowRight") goTo(replay.step + 1);
  if (event.key === "ArrowLeft") goTo(replay.step - 1);
});
window.addEventListener("hashchange", route);
route();
