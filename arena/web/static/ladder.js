// Live ladder page: polls the ladder's JSON twin; when its games, batches, run state or games
// left change, the page's own parts (the run, the leaderboard, the chart, the recent games)
// are replaced by those of the same page fetched again (at most every few seconds), so every
// part stays true (sections.js puts them in).
(function () {
  "use strict";
  var box = document.getElementById("ladder-live");
  var url = box && box.getAttribute("data-url");
  if (!url) { return; }
  var SECTIONS = ["ladder-live", "board-section", "chart-section", "recent-section"];
  var POLL_MS = 2000, IDLE_MS = 5000, REFRESH_MS = 3000;
  var lastRefresh = 0;
  var $ = function (id) { return document.getElementById(id); };

  function shown() {
    var live = $("ladder-live");
    return [live.getAttribute("data-games"), $("ladder-batches").textContent,
            live.getAttribute("data-state"), live.getAttribute("data-left")].join("|");
  }

  function state(d) {
    return [d.games, d.batches, d.run.state, d.run.left].join("|");
  }

  function refresh() {
    lastRefresh = Date.now();
    return window.arenaSections(SECTIONS);
  }

  function poll() {
    fetch(url, {cache: "no-store"}).then(function (r) { return r.json(); }).then(function (d) {
      if (d.error) { setTimeout(poll, IDLE_MS); return; }
      var next = function () { setTimeout(poll, d.run.state === "running" ? POLL_MS : IDLE_MS); };
      if (state(d) !== shown() && Date.now() - lastRefresh >= REFRESH_MS) {
        refresh().then(next);
      } else {
        next();
      }
    }).catch(function () { setTimeout(poll, IDLE_MS); });
  }
  setTimeout(poll, POLL_MS);
}());
