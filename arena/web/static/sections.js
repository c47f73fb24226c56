// A live page's parts put in again: window.arenaSections(ids) fetches the page itself and
// replaces each element of ``ids`` by the same element of the fresh copy. The HTML is the
// server's own, escaped template, parsed inert (DOMParser) and its nodes moved in; a part
// holding the focus is left for the next time, and a legend (<details>) being read stays
// open. Sortable tables are prepared again (tables.js). The promise resolves to whether the
// page could be fetched; <body data-live-refreshes> counts the refreshes.
(function () {
  "use strict";
  var refreshes = 0;

  window.arenaSections = function (ids) {
    return fetch(location.href, {cache: "no-store"}).then(function (r) {
      if (!r.ok) { throw new Error("status " + r.status); }
      return r.text();
    }).then(function (html) {
      var fresh = new DOMParser().parseFromString(html, "text/html");
      ids.forEach(function (id) {
        var old = document.getElementById(id), now = fresh.getElementById(id);
        if (!old || !now || old.contains(document.activeElement)) { return; }
        var reading = old.querySelector("details[open]"), legend = now.querySelector("details");
        if (reading && legend) { legend.open = true; }
        old.replaceWith(document.importNode(now, true));
      });
      if (window.arenaTables) { window.arenaTables(); }
      refreshes += 1;
      document.body.setAttribute("data-live-refreshes", refreshes);
      return true;
    }).catch(function () { return false; });
  };
}());
