// The graph page: fetches /api/graph, lays it out with Springy (vendored, MIT) and draws it as SVG, so each node
// is an element a test (or a screen reader) can find. Memories are blue, entities orange; a click recentres.
(function () {
  var svg = document.getElementById("graph");
  var node = JSON.parse(document.getElementById("graph-data").textContent).node;
  var NS = "http://www.w3.org/2000/svg";
  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  fetch("/api/graph?node=" + encodeURIComponent(node)).then(function (r) {
    if (!r.ok) return r.text().then(function (t) { throw new Error(t); });
    return r.json();
  }).then(function (data) {
    var g = new Springy.Graph(), byId = {}, shapes = {}, lines = [];
    var edgeLayer = el("g", {"class": "edges"}, svg), nodeLayer = el("g", {"class": "nodes"}, svg);
    data.nodes.forEach(function (n) {
      byId[n.id] = g.newNode({id: n.id});
      var grp = el("g", {"class": "node " + n.kind + (n.centre ? " centre" : ""), "data-id": n.id}, nodeLayer);
      el("circle", {r: n.centre ? 9 : 6}, grp);
      var t = el("text", {x: 9, y: 4}, grp); t.textContent = n.label;
      var title = el("title", {}, grp); title.textContent = n.kind + ": " + n.label;
      grp.addEventListener("click", function () {
        window.location = n.kind === "memory" && !n.centre ? "/memory/" + encodeURIComponent(n.id)
                                                          : "/graph?node=" + encodeURIComponent(n.id);
      });
      shapes[n.id] = grp;
    });
    data.edges.forEach(function (e) {
      if (!byId[e.source] || !byId[e.target]) return;
      g.newEdge(byId[e.source], byId[e.target], {});
      lines.push({s: e.source, t: e.target, line: el("line", {"data-type": e.type}, edgeLayer)});
    });
    var layout = new Springy.Layout.ForceDirected(g, 300.0, 300.0, 0.5);
    var W = svg.clientWidth || 900, H = svg.clientHeight || 560, pad = 60;
    function draw() {
      var box = layout.getBoundingBox(), bl = box.bottomleft, tr = box.topright;
      var sx = (W - 2 * pad) / Math.max(1e-6, tr.x - bl.x), sy = (H - 2 * pad) / Math.max(1e-6, tr.y - bl.y);
      var at = {};
      layout.eachNode(function (n, p) {
        var x = pad + (p.p.x - bl.x) * sx, y = pad + (p.p.y - bl.y) * sy;
        at[n.data.id] = [x, y];
        shapes[n.data.id].setAttribute("transform", "translate(" + x.toFixed(1) + "," + y.toFixed(1) + ")");
      });
      lines.forEach(function (l) {
        var a = at[l.s], b = at[l.t];
        if (!a || !b) return;
        l.line.setAttribute("x1", a[0]); l.line.setAttribute("y1", a[1]);
        l.line.setAttribute("x2", b[0]); l.line.setAttribute("y2", b[1]);
      });
    }
    var noop = function () {};
    new Springy.Renderer(layout, noop, noop, noop, function () { svg.setAttribute("data-ready", "true"); }, noop,
                         draw).start();
    draw();
  }).catch(function (err) {
    var p = document.createElement("p"); p.className = "error"; p.textContent = String(err.message || err);
    svg.parentNode.insertBefore(p, svg);
  });
})();
