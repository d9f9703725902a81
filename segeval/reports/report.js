window.addEventListener('error', function (e) {
  document.body.dataset.errors = (document.body.dataset.errors || '') + e.message + ';';
});
function sortTable(table, col, dir) {
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var num = function (t) { var v = parseFloat(t); return isNaN(v) ? t : v; };
  rows.sort(function (a, b) {
    var x = num(a.cells[col].textContent), y = num(b.cells[col].textContent);
    var c = (typeof x === 'number' && typeof y === 'number') ? x - y
      : String(x).localeCompare(String(y), undefined, {numeric: true});  // q2 before q10
    return dir === 'desc' ? -c : c;
  });
  rows.forEach(function (r) { body.appendChild(r); });
  table.dataset.sorted = col + ':' + dir;
  showPage(table, 0);
}
function showPage(table, page) {  // PAGE rows at a time: the others are hidden, so not laid out
  var rows = table.tBodies[0].rows, pages = Math.max(1, Math.ceil(rows.length / PAGE));
  page = Math.min(Math.max(page, 0), pages - 1);
  for (var i = 0; i < rows.length; i++) { rows[i].hidden = Math.floor(i / PAGE) !== page; }
  table.dataset.page = page;
  var shown = document.getElementById('page-shown');
  if (shown) {
    shown.textContent = 'queries ' + (page * PAGE + 1) + ' to ' + Math.min(rows.length, (page + 1) * PAGE) +
      ' of ' + rows.length + ' (page ' + (page + 1) + ' of ' + pages + ')';
  }
}
document.addEventListener('DOMContentLoaded', function () {
  var table = document.getElementById('per-query');
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
    th.style.cursor = 'pointer';
    th.addEventListener('click', function () {
      var dir = table.dataset.sorted === col + ':desc' ? 'asc' : 'desc';
      sortTable(table, col, dir);
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll('#pages button'), function (b) {
    b.addEventListener('click', function () {
      showPage(table, parseInt(table.dataset.page, 10) + parseInt(b.dataset.step, 10));
    });
  });
  showPage(table, 0);
  var m = /sort=(\d+):(asc|desc)/.exec(window.location.hash);
  if (m) { sortTable(table, parseInt(m[1], 10), m[2]); }
  document.body.dataset.ready = 'yes';
});
