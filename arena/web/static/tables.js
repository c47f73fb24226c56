// Sortable tables: a table with class "sortable" gets a button in each header that has
// data-sort ("num" or "text"); a click sorts its rows by that column (again: the other way).
// A column whose higher values are better (data-first="desc": Elo, wins; scores, unless the
// lowest score wins, as in Skyjo) sorts the best first.
// The order is kept per table id, and applied again when the live page swaps a table in
// (window.arenaTables). Cells sort by their data-value, else their text.
(function () {
  "use strict";
  var orders = {};

  function key(cell, numeric) {
    var raw = cell.getAttribute("data-value");
    var text = raw !== null ? raw : cell.textContent.trim();
    if (!numeric) { return text.toLowerCase(); }
    var value = parseFloat(text);
    return isNaN(value) ? -Infinity : value;
  }

  function apply(table) {
    var order = orders[table.id];
    var heads = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(heads, function (th) { th.removeAttribute("aria-sort"); });
    if (!order || !heads[order.column]) { return; }
    var numeric = heads[order.column].getAttribute("data-sort") === "num";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[order.column], numeric), y = key(b.cells[order.column], numeric);
      return (x < y ? -1 : x > y ? 1 : 0) * (order.descending ? -1 : 1);
    });
    rows.forEach(function (row) { body.appendChild(row); });
    heads[order.column].setAttribute("aria-sort", order.descending ? "descending" : "ascending");
  }

  function prepare(table) {
    if (!table.id || !table.tHead || table.getAttribute("data-sortable") === "yes") { return; }
    table.setAttribute("data-sortable", "yes");
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, column) {
      if (!th.hasAttribute("data-sort")) { return; }
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (th.firstChild) { button.appendChild(th.firstChild); }
      button.setAttribute("aria-label", "sort by " + button.textContent);
      th.appendChild(button);
      button.addEventListener("click", function () {
        var order = orders[table.id], first = th.getAttribute("data-first") === "desc";
        var again = !!order && order.column === column;
        orders[table.id] = {column: column, descending: again ? !order.descending : first};
        apply(table);
      });
    });
    apply(table);
  }

  window.arenaTables = function () {
    Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), prepare);
  };
  window.arenaTables();
})();
