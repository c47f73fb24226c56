// Live ladder page: polls the ladder's JSON and redraws the leaderboard and the game count.
// Text goes through textContent only; links to the bots' pages are built from their names.
(function () {
  "use strict";
  var box = document.getElementById("ladder-live");
  var url = box && box.getAttribute("data-url");
  if (!url) { return; }
  var $ = function (id) { return document.getElementById(id); };

  function num(v, d) {
    return v === null || v === undefined ? "-" : Number(v).toFixed(d);
  }

  function cell(tr, text, numeric) {
    var td = document.createElement("td");
    td.textContent = text;
    if (numeric) { td.className = "n"; }
    tr.appendChild(td);
    return td;
  }

  function board(lines) {
    var body = $("board").tBodies[0];
    if (!lines.length) { return; }
    body.textContent = "";
    lines.forEach(function (l) {
      var tr = document.createElement("tr");
      tr.setAttribute("data-entry", l.entry);
      tr.setAttribute("data-games", l.games);
      cell(tr, l.rank === null ? "-" : String(l.rank), true);
      var bot = cell(tr, "", false);
      var a = document.createElement("a");
      a.href = "/bots/" + encodeURIComponent(l.runs_as);
      a.textContent = l.label;
      bot.appendChild(a);
      cell(tr, l.participant, false);
      cell(tr, num(l.conservative, 2), true);
      cell(tr, num(l.mu, 2), true);
      cell(tr, num(l.sigma, 2), true);
      cell(tr, String(l.games), true);
      cell(tr, String(l.wins), true);
      cell(tr, num(l.mean_place, 2), true);
      cell(tr, String(l.faults), true);
      cell(tr, num(l.elo, 0), true);
      cell(tr, l.elo_hi === null ? "-" : num((l.elo_hi - l.elo_lo) / 2, 0), true);
      var status = cell(tr, "", false);
      var span = document.createElement("span");
      span.className = "status " + l.status;
      span.textContent = l.status;
      status.appendChild(span);
      if (l.rank === null && l.reason) { status.appendChild(document.createTextNode(" " + l.reason)); }
      body.appendChild(tr);
    });
  }

  function poll() {
    fetch(url, {cache: "no-store"}).then(function (r) { return r.json(); }).then(function (d) {
      if (!d.error) {
        $("ladder-games").textContent = d.games;
        $("ladder-batches").textContent = d.batches;
        $("ladder-pending").textContent = d.pending ? ", " + d.pending + " in play" : "";
        box.setAttribute("data-games", d.games);
        board(d.lines);
      }
      setTimeout(poll, 2000);
    }).catch(function () { setTimeout(poll, 5000); });
  }
  setTimeout(poll, 2000);
}());
