// Replay viewer: paints the scenes the server computed with the engine, step by step, for the
// referee and, beside it, as one seat saw them; a move list and keys to move around.
// The data (every perspective of the game, each repeated part stored once: arena.web.frames)
// comes as a <script> calling arenaReplay(data), so it loads served and from exported files.
// Every text from the data goes through textContent: never innerHTML.
(function () {
  "use strict";
  var viewer = document.getElementById("viewer");
  if (!viewer) { return; }
  var $ = function (id) { return document.getElementById(id); };
  var data = null, memo = [], index = 0, seat = "", timer = null, moveItems = [], logLines = {};
  var PLAY_MS = 700;

  // -- the packed data (arena.web.packing): a pool of nodes, lists and objects by index ------
  function unpack(i) {
    if (memo[i] !== undefined) { return memo[i]; }
    var entry = data.pool[i], value;
    if (Array.isArray(entry)) {
      value = entry.map(unpack);
    } else if (entry !== null && typeof entry === "object") {
      value = {};
      Object.keys(entry).forEach(function (k) { value[k] = unpack(entry[k]); });
    } else {
      value = entry;
    }
    memo[i] = value;
    return value;
  }
  // A frame as one perspective saw it: [scene, actions, faults, details (referee only)];
  // a scene is [caption, info, banner, seats, center], a seat [seat, name, active, notes,
  // zones], a zone [label, kind, cols, items], an item [text, class, words, second line].
  function frameOf(perspective, i) { return unpack(data.views[perspective][i]); }

  // -- drawing ------------------------------------------------------------------------------
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null && text !== "") { node.textContent = String(text); }
    return node;
  }

  function item(it) {
    var span = el("span", "item " + it[1], it[0]);
    if (it[3]) { span.appendChild(el("span", "sub", it[3])); }
    if (it[2]) {
      span.title = it[2];
      span.setAttribute("role", "img");
      span.setAttribute("aria-label", it[2]);
    }
    return span;
  }

  function zone(z) {
    var box = el("div", "zone zone-" + z[1]);
    box.appendChild(el("div", "zone-label", z[0]));
    var items = el("div", "items");
    if (z[1] === "grid") { items.style.gridTemplateColumns = "repeat(" + (z[2] || 4) + ", auto)"; }
    z[3].forEach(function (it) { items.appendChild(item(it)); });
    box.appendChild(items);
    return box;
  }

  function paint(target, scene) {
    target.textContent = "";
    var info = el("div", "info");
    scene[1].forEach(function (kv) {
      var span = el("span", "kv");
      span.appendChild(el("b", null, kv[0] + " "));
      span.appendChild(document.createTextNode(kv[1]));
      info.appendChild(span);
    });
    target.appendChild(info);
    if (scene[2]) { target.appendChild(el("p", "banner", scene[2])); }
    var seats = el("div", "seats");
    scene[3].forEach(function (s) {
      var box = el("div", "seat-box" + (s[2] ? " active" : ""));
      box.setAttribute("data-seat", s[0]);
      box.appendChild(el("div", "seat-name", "seat " + s[0] + ": " + s[1] + (s[2] ? " (to act)" : "")));
      if (s[3].length) { box.appendChild(el("div", "notes", s[3].join(" · "))); }
      s[4].forEach(function (z) { box.appendChild(zone(z)); });
      seats.appendChild(box);
    });
    target.appendChild(seats);
    if (scene[4].length) {
      var center = el("div", "center");
      scene[4].forEach(function (z) { center.appendChild(zone(z)); });
      target.appendChild(center);
    }
  }

  function who(a) { return "seat " + a[0] + " (" + data.names[a[0]] + ")"; }

  function actionText(a) {
    return who(a) + " " + a[3] + (a[2] === "referee" ? " [chosen by the referee]" : "");
  }

  function describe(i) {
    var frame = data.frames[i], node = frameOf("referee", i), box = $("step-info");
    box.textContent = "";
    box.appendChild(el("span", "where", "step " + i + ": " + frame[2]));
    if (frame[1] === "start") { box.appendChild(el("span", null, "the deal")); }
    node[1].forEach(function (a) {
      box.appendChild(el("span", "action" + (a[2] === "referee" ? " by-referee" : ""), actionText(a)));
    });
    (node[3] || []).forEach(function (d) { box.appendChild(el("span", "detail", d)); });
    node[2].forEach(function (f) {
      box.appendChild(el("span", "fault", "fault: seat " + f[0] + " " + f[1] + (f[2] ? ": " + f[2] : "")));
    });
    ((logLines.frames || {})[i] || []).forEach(function (l) {
      if (seat !== "" && String(l[0]) !== seat) { return; }
      box.appendChild(el("span", "log", "log of seat " + l[0] + (l[2] ? " (shared)" : "") + ": " + l[1]));
    });
    if (frame[1] === "over") { box.appendChild(el("span", "over", "game over")); }
  }

  // -- the move list ------------------------------------------------------------------------
  function buildMoves() {
    var list = $("moves");
    data.frames.forEach(function (frame, i) {
      var node = frameOf("referee", i);
      var said = node[1].map(actionText);
      if (frame[1] === "ending" || frame[1] === "over") { said.push(node[0][2]); }
      if (!said.length) { return; }
      var li = el("li");
      li.value = i;  // numbered by step, as the position says
      li.setAttribute("data-frame", i);
      var a = el("a", null, said.join("; "));
      a.href = "#step=" + i;
      li.appendChild(a);
      if (frame[1] === "ending") { li.className = "round-end"; }
      list.appendChild(li);
      moveItems.push([i, li]);
    });
  }

  function markMove() {
    var current = null;
    moveItems.forEach(function (m) {
      m[1].classList.remove("current");
      m[1].removeAttribute("aria-current");
      if (m[0] <= index) { current = m[1]; }
    });
    if (!current) { return; }
    current.classList.add("current");
    current.setAttribute("aria-current", "step");
    var list = $("moves");
    list.scrollTop = Math.max(0, current.offsetTop - list.offsetTop - list.clientHeight / 2);
  }

  // -- where we are: step, seat, address ----------------------------------------------------
  function address() { return "#step=" + index + (seat !== "" ? "&seat=" + seat : ""); }

  function parseAddress() {
    var found = {step: null, seat: null};
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var kv = part.split("=");
      if (kv[0] === "step" && /^\d+$/.test(kv[1] || "")) { found.step = +kv[1]; }
      if (kv[0] === "seat" && /^\d+$/.test(kv[1] || "")) { found.seat = kv[1]; }
    });
    return found;
  }

  function remember() {
    var wanted = address();
    $("permalink").href = wanted;
    if (location.hash === wanted) { return; }
    try { history.replaceState(null, "", wanted); } catch (e) { location.replace(wanted); }
  }

  function show(i) {
    if (!data) { return; }
    index = Math.max(0, Math.min(i, data.frames.length - 1));
    var node = frameOf("referee", index);
    paint($("table-referee"), node[0]);
    describe(index);
    $("slider").value = index;
    $("position").textContent = "step " + index + " of " + (data.frames.length - 1);
    var marks = data.marks, mark = 0;
    for (var m = 0; m < marks.length && marks[m].frame <= index; m++) { mark = m; }
    $("marks").selectedIndex = mark;
    viewer.setAttribute("data-step", index);
    viewer.setAttribute("data-at-end", index === data.frames.length - 1 ? "yes" : "no");
    var pane = $("pane-seat");
    if (seat !== "" && data.views[seat]) {
      var mine = frameOf(seat, index);
      pane.hidden = false;
      $("seat-title").textContent = "As seen by seat " + seat + " (" + data.names[+seat] + ")";
      $("seat-actions").textContent = mine[1].length ? "its move: " + mine[1].map(function (a) { return a[3]; }).join("; ") : "";
      paint($("table-seat"), mine[0]);
    } else {
      pane.hidden = true;
    }
    $("perspective").value = seat;
    markMove();
    remember();
  }

  function setSeat(value) {
    seat = value !== null && value !== undefined && data && data.views[value] ? String(value) : "";
    show(index);
  }

  // -- controls -----------------------------------------------------------------------------
  function stop() {
    if (!timer) { return; }
    clearInterval(timer);
    timer = null;
    $("play").textContent = "play";
    $("play").setAttribute("aria-label", "play");
  }

  function play() {
    if (timer) { stop(); return; }
    if (index >= data.frames.length - 1) { show(0); }
    $("play").textContent = "pause";
    $("play").setAttribute("aria-label", "pause");
    timer = setInterval(function () {
      if (index >= data.frames.length - 1) { stop(); return; }
      show(index + 1);
    }, PLAY_MS);
  }

  function go(i) { stop(); show(i); }

  function onKey(e) {
    if (!data || e.altKey || e.ctrlKey || e.metaKey) { return; }
    var target = e.target, tag = target && target.tagName;
    if (tag === "SELECT" || tag === "TEXTAREA" || (tag === "INPUT" && target.type !== "range")) {
      return;  // the control's own keys (a select changes its choice)
    }
    if ((e.key === " " || e.key === "Enter") && (tag === "BUTTON" || tag === "A" || tag === "SUMMARY")) {
      return;  // activates the focused button or link itself
    }
    var steps = {ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1};
    if (e.key in steps && (tag === "INPUT" || e.key === "ArrowRight" || e.key === "ArrowLeft")) {
      go(index + steps[e.key]);
    } else if (e.key === "Home") {
      go(0);
    } else if (e.key === "End") {
      go(Infinity);
    } else if (e.key === " ") {
      play();
    } else {
      return;
    }
    e.preventDefault();  // one step per key: not the slider's own move, nor a page scroll
  }

  // The data comes deflated (zlib) in base64: the browser inflates it.
  function inflate(b64) {
    var text = atob(b64), bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) { bytes[i] = text.charCodeAt(i); }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(stream).text().then(JSON.parse);
  }

  // The bots' log lines by frame (arena.web.frames.logs_script), beside the replay's data.
  window.arenaReplayLogs = function (loaded) {
    logLines = loaded;
    if (data) { show(index); }
  };

  window.arenaReplay = function (wrapped) {
    if (typeof DecompressionStream === "undefined") {
      $("step-info").textContent = "this browser cannot unpack the replay (it needs DecompressionStream)";
      return;
    }
    inflate(wrapped.deflated).then(start, function () {
      $("step-info").textContent = "could not unpack the replay data";
    });
  };

  function start(loaded) {
    data = loaded;
    memo = new Array(data.pool.length);
    $("slider").max = data.frames.length - 1;
    var marks = $("marks");
    marks.textContent = "";
    data.marks.forEach(function (m) {
      var opt = el("option", null, m.label);
      opt.value = m.frame;
      marks.appendChild(opt);
    });
    buildMoves();
    var wanted = parseAddress();
    seat = wanted.seat !== null && data.views[wanted.seat] ? wanted.seat : "";
    viewer.setAttribute("data-ready", "yes");
    show(wanted.step === null ? 0 : wanted.step);
  }

  $("first").addEventListener("click", function () { go(0); });
  $("last").addEventListener("click", function () { go(Infinity); });
  $("prev").addEventListener("click", function () { go(index - 1); });
  $("next").addEventListener("click", function () { go(index + 1); });
  $("play").addEventListener("click", play);
  $("slider").addEventListener("input", function () { go(+this.value); });
  $("marks").addEventListener("change", function () { go(+this.value); });
  $("perspective").addEventListener("change", function () { setSeat(this.value); });
  document.addEventListener("keydown", onKey);
  window.addEventListener("hashchange", function () {
    var wanted = parseAddress();
    if (!data || location.hash === address()) { return; }
    stop();
    if (wanted.seat !== null) { seat = data.views[wanted.seat] ? wanted.seat : ""; }
    show(wanted.step === null ? index : wanted.step);  // a link to a step keeps the seat
  });

  var script = document.createElement("script");
  script.src = viewer.getAttribute("data-replay");
  script.onerror = function () { $("step-info").textContent = "could not load the replay data"; };
  document.body.appendChild(script);
})();
