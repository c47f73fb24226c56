// Live tournament page: polls the live JSON endpoint and updates progress, rate, ETA and
// the rankings table. Text goes through textContent only.
(function () {
  "use strict";
  var box = document.getElementById("live");
  var url = box && box.getAttribute("data-live-url");
  if (!url) { return; }
  var $ = function (id) { return document.getElementById(id); };
  var fields = ["place", "entrant", "bot", "elo", "margin", "elo_incremental", "games", "wins",
                "mean_place", "mean_score", "faults", "forfeits"];
  var digits = {elo: 0, margin: 0, elo_incremental: 0, mean_place: 2, mean_score: 2};

  function fmt(key, v) {
    if (v === null || v === undefined) { return "-"; }
    return key in digits ? Number(v).toFixed(digits[key]) : String(v);
  }

  function seconds(s) {
    if (s === null) { return ""; }
    if (s < 90) { return "ETA " + Math.round(s) + " s"; }
    return "ETA " + Math.round(s / 60) + " min";
  }

  function rankings(rows) {
    var table = $("rankings");
    if (!table || !rows.length) { return; }
    var body = table.tBodies[0];
    var botCells = {};   // keep the server's links to the bots' pages
    Array.prototype.forEach.call(body.rows, function (tr) {
      botCells[tr.getAttribute("data-entrant")] = tr.cells[2];
    });
    body.textContent = "";
    rows.forEach(function (r) {
      var tr = document.createElement("tr");
      tr.setAttribute("data-entrant", r.entrant);
      fields.forEach(function (f) {
        if (f === "bot" && botCells[r.entrant]) { tr.appendChild(botCells[r.entrant]); return; }
        var td = document.createElement("td");
        td.textContent = fmt(f, r[f]);
        if (f !== "entrant" && f !== "bot") { td.className = "n"; }
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
  }

  function poll() {
    fetch(url, {cache: "no-store"}).then(function (r) { return r.json(); }).then(function (d) {
      if (d.error) { return; }
      $("live-status").textContent = d.status;
      $("live-status").className = "status " + d.status;
      $("live-progress").max = d.games_total || 1;
      $("live-progress").value = d.games_done;
      $("live-games").textContent = d.games_done + "/" + d.games_total;
      $("live-rate").textContent = d.rate_per_s === null ? "" : (d.rate_per_s * 60).toFixed(1) + " games/min";
      $("live-eta").textContent = d.status === "done" ? "" : seconds(d.eta_s);
      box.setAttribute("data-games-done", d.games_done);
      rankings(d.rankings);
      if (d.status !== "done") { setTimeout(poll, 2000); }
    }).catch(function () { setTimeout(poll, 5000); });
  }
  poll();
})();
