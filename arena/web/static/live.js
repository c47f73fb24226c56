// Live tournament page: polls the live JSON endpoint; the rate and ETA follow it, and when
// the games played, the run's state or the ratings change, the page's own sections (progress,
// rankings, charts, faults, latest games, the games list) are replaced by those of the same
// page fetched again (at most every few seconds; sections.js puts them in); text from the
// JSON goes through textContent only. The "Playing now" list is rebuilt from the JSON at
// every poll (empty unless the run is alive).
(function () {
  "use strict";
  var first = document.getElementById("live");
  var url = first && first.getAttribute("data-live-url");
  if (!url) { return; }
  var SECTIONS = ["live", "sprt-section", "rankings-section", "charts", "faults-section", "recent-section", "games-section"];
  var POLL_MS = 2000, IDLE_MS = 4000, REFRESH_MS = 2000;
  var lastRefresh = 0, refreshing = false;
  var $ = function (id) { return document.getElementById(id); };

  function duration(s) {
    if (s < 90) { return Math.round(s) + " s"; }
    var minutes = Math.round(s / 60);
    if (minutes < 90) { return minutes + " min"; }
    return Math.floor(minutes / 60) + " h " + ("0" + minutes % 60).slice(-2) + " min";
  }

  // a match's ETA is a bound: its test may stop it sooner
  function seconds(s, bound) {
    if (s === null || s === undefined) { return ""; }
    return bound ? "at most " + duration(s) + " left" : "ETA " + duration(s);
  }

  function ago(s) {
    if (s < 90) { return "started " + Math.round(s) + " s ago"; }
    return "started " + Math.round(s / 60) + " min ago";
  }

  function span(text, cls) {
    var el = document.createElement("span");
    if (cls) { el.className = cls; }
    el.textContent = text;
    return el;
  }

  function showPlaying(games) {
    var list = $("playing"), none = $("playing-none");
    if (!list) { return; }
    games = games || [];
    var items = games.map(function (g) {
      var li = document.createElement("li"), seats = span("", "playing-seats");
      li.setAttribute("data-game", g.game_id);
      var title = document.createElement("b");
      title.textContent = "game " + g.game_id;
      li.appendChild(title);
      li.appendChild(document.createTextNode(" "));
      li.appendChild(span("rep. " + g.repetition + ", table " + g.table + ", rotation " + g.rotation, "muted"));
      li.appendChild(document.createTextNode(" "));
      g.seats.forEach(function (name, seat) {
        if (seat) { seats.appendChild(document.createTextNode(" · ")); }
        seats.appendChild(span(seat + ": " + name, "seat"));
      });
      li.appendChild(seats);
      li.appendChild(document.createTextNode(" "));
      li.appendChild(span(ago(g.started_s), "ago muted"));
      return li;
    });
    list.replaceChildren.apply(list, items);
    if (none) { none.hidden = games.length > 0; }
  }

  function shownState() {
    var box = $("live");
    return [box.getAttribute("data-games-done"), box.getAttribute("data-status"),
            box.getAttribute("data-state"), box.getAttribute("data-rated-games")].join("|");
  }

  function state(d) {
    return [d.games_done, d.status, d.run.state, d.rankings_games].join("|");
  }

  function refresh() {
    refreshing = true;
    lastRefresh = Date.now();
    return window.arenaSections(SECTIONS).then(function () {
      refreshing = false;
      // the page fetched again may be newer than the poll that asked for it: a run it says
      // is no longer alive plays nothing, whatever that poll listed
      var box = $("live");
      if (box && box.getAttribute("data-state") !== "running") { showPlaying([]); }
    });
  }

  function poll() {
    fetch(url, {cache: "no-store"}).then(function (r) { return r.json(); }).then(function (d) {
      if (d.error) { setTimeout(poll, IDLE_MS); return; }
      var rate = $("live-rate"), eta = $("live-eta");
      if (rate) { rate.textContent = d.rate_per_s === null ? "" : (d.rate_per_s * 60).toFixed(1) + " games/min"; }
      if (eta) { eta.textContent = d.run.state === "running" ? seconds(d.eta_s, d.eta_bound) : ""; }
      showPlaying(d.run.state === "running" ? d.playing : []);
      var changed = state(d) !== shownState();
      var wait = REFRESH_MS - (Date.now() - lastRefresh);
      var next = function () {
        var finished = d.status === "done" || d.status === "cancelled";
        if (finished && state(d) === shownState()) { return; }  // finished: no more polls
        setTimeout(poll, d.run.state === "running" ? POLL_MS : IDLE_MS);
      };
      if (changed && !refreshing && wait <= 0) {
        refresh().then(next);
      } else {
        next();
      }
    }).catch(function () { setTimeout(poll, IDLE_MS); });
  }
  poll();
})();
