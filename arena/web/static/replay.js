// Replay viewer: paints the scenes the server computed with the engine, step by step.
// Data is loaded as <script> files calling arenaFrames(data) (works served and from files).
// Every text from the data goes through textContent: never innerHTML.
(function () {
  "use strict";
  var viewer = document.getElementById("viewer");
  if (!viewer) { return; }
  var template = viewer.getAttribute("data-frames");
  var loaded = {}, waiting = {};
  var referee = null, seatData = null, seat = "", index = 0, timer = null;
  var $ = function (id) { return document.getElementById(id); };

  window.arenaFrames = function (data) {
    var key = String(data.perspective);
    loaded[key] = data;
    (waiting[key] || []).forEach(function (cb) { cb(data); });
    waiting[key] = [];
  };

  function load(perspective, cb) {
    var key = String(perspective);
    if (loaded[key]) { cb(loaded[key]); return; }
    (waiting[key] = waiting[key] || []).push(cb);
    if (waiting[key].length > 1) { return; }
    var script = document.createElement("script");
    script.src = template.replace("{p}", key);
    script.onerror = function () { $("step-info").textContent = "could not load the replay data"; };
    document.body.appendChild(script);
  }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function zone(z) {
    var box = el("div", "zone zone-" + z.kind);
    box.appendChild(el("div", "zone-label", z.label));
    var items = el("div", "items");
    if (z.kind === "grid") { items.style.gridTemplateColumns = "repeat(" + (z.cols || 4) + ", auto)"; }
    z.items.forEach(function (it) { items.appendChild(el("span", "item " + it.c, it.t)); });
    box.appendChild(items);
    return box;
  }

  function paint(target, scene) {
    target.textContent = "";
    var info = el("div", "info");
    scene.info.forEach(function (kv) {
      var span = el("span", "kv");
      span.appendChild(el("b", null, kv[0] + " "));
      span.appendChild(document.createTextNode(kv[1]));
      info.appendChild(span);
    });
    target.appendChild(info);
    var seats = el("div", "seats");
    scene.seats.forEach(function (s) {
      var box = el("div", "seat-box" + (s.active ? " active" : ""));
      box.setAttribute("data-seat", s.seat);
      box.appendChild(el("div", "seat-name", "seat " + s.seat + ": " + s.name));
      if (s.notes.length) { box.appendChild(el("div", "notes", s.notes.join(" · "))); }
      s.zones.forEach(function (z) { box.appendChild(zone(z)); });
      seats.appendChild(box);
    });
    target.appendChild(seats);
    if (scene.center.length) {
      var center = el("div", "center");
      scene.center.forEach(function (z) { center.appendChild(zone(z)); });
      target.appendChild(center);
    }
  }

  function describe(frame, names) {
    var box = $("step-info");
    box.textContent = "";
    if (frame.step === 0) { box.appendChild(el("span", null, "the deal")); }
    frame.actions.forEach(function (a) {
      var who = "seat " + a[0] + " (" + names[a[0]] + ")";
      box.appendChild(el("span", "action" + (a[2] === "referee" ? " by-referee" : ""),
        who + ": " + a[1] + (a[2] === "referee" ? " [chosen by the referee]" : "")));
    });
    frame.faults.forEach(function (f) {
      box.appendChild(el("span", "fault", "fault: seat " + f[0] + " " + f[1] + (f[2] ? ": " + f[2] : "")));
    });
    (frame.logs || []).forEach(function (l) {
      box.appendChild(el("span", "log", "log of seat " + l[0] + (l[2] ? " (shared)" : "") + ": " + l[1]));
    });
    if (frame.over) { box.appendChild(el("span", "over", "game over")); }
  }

  function show(i) {
    if (!referee) { return; }
    index = Math.max(0, Math.min(i, referee.frames.length - 1));
    var frame = referee.frames[index];
    paint($("table-referee"), frame.scene);
    describe(frame, referee.names);
    $("slider").value = index;
    $("position").textContent = "step " + index + " of " + (referee.frames.length - 1);
    viewer.setAttribute("data-step", index);
    viewer.setAttribute("data-at-end", index === referee.frames.length - 1 ? "yes" : "no");
    var pane = $("pane-seat");
    if (seat !== "" && seatData && String(seatData.perspective) === seat) {
      pane.hidden = false;
      $("seat-title").textContent = "as seen by seat " + seat + " (" + seatData.names[+seat] + ")";
      paint($("table-seat"), seatData.frames[index].scene);
    } else {
      pane.hidden = true;
    }
  }

  function stop() { if (timer) { clearInterval(timer); timer = null; $("play").textContent = "play"; } }

  load("referee", function (data) {
    referee = data;
    $("slider").max = data.frames.length - 1;
    var marks = $("marks");
    data.marks.forEach(function (m) {
      var opt = el("option", null, m.label);
      opt.value = m.frame;
      marks.appendChild(opt);
    });
    viewer.setAttribute("data-ready", "yes");
    show(0);
  });

  $("first").addEventListener("click", function () { stop(); show(0); });
  $("last").addEventListener("click", function () { stop(); show(Infinity); });
  $("prev").addEventListener("click", function () { stop(); show(index - 1); });
  $("next").addEventListener("click", function () { stop(); show(index + 1); });
  $("slider").addEventListener("input", function () { stop(); show(+this.value); });
  $("marks").addEventListener("change", function () { stop(); show(+this.value); });
  $("play").addEventListener("click", function () {
    if (timer) { stop(); return; }
    $("play").textContent = "pause";
    timer = setInterval(function () {
      if (!referee || index >= referee.frames.length - 1) { stop(); return; }
      show(index + 1);
    }, 600);
  });
  $("perspective").addEventListener("change", function () {
    seat = this.value;
    if (seat === "") { show(index); return; }
    var wanted = seat;
    load(seat, function (data) { if (wanted === seat) { seatData = data; show(index); } });
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "ArrowRight") { show(index + 1); }
    if (e.key === "ArrowLeft") { show(index - 1); }
  });
})();
