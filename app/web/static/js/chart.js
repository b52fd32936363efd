// Small SVG line charts: a rating over rated matches, the score by round.

const NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs) {
  const el = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) el.setAttribute(key, String(value));
  return el;
}

/**
 * A chart of one or more series of numbers (same length), x = index. `marker` draws a band at
 * one index (the round on screen). Returns the <svg> element.
 */
export function lineChart(series, { width = 320, height = 140, labels = [], marker = null, testid } = {}) {
  const pad = 24;
  const all = series.flat();
  const n = Math.max(1, ...series.map((s) => s.length));
  const lo = all.length ? Math.min(...all) : 0;
  const hi = all.length ? Math.max(...all) : 1;
  const span = hi - lo || 1;
  const x = (i) => pad + (n <= 1 ? 0 : (i * (width - 2 * pad)) / (n - 1));
  const y = (v) => height - pad - ((v - lo) * (height - 2 * pad)) / span;
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img" });
  if (testid) root.dataset.testid = testid;
  root.append(svg("line", { x1: pad, y1: height - pad, x2: width - pad, y2: height - pad, class: "axis" }));
  root.append(svg("line", { x1: pad, y1: pad, x2: pad, y2: height - pad, class: "axis" }));
  const top = svg("text", { x: 2, y: pad });
  top.textContent = String(Math.round(hi));
  const bottom = svg("text", { x: 2, y: height - pad });
  bottom.textContent = String(Math.round(lo));
  root.append(top, bottom);
  if (marker !== null && marker >= 0 && marker < n) {
    root.append(svg("line", { x1: x(marker), y1: pad, x2: x(marker), y2: height - pad, class: "now" }));
  }
  series.forEach((values, k) => {
    if (!values.length) return;
    const points = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    root.append(svg("polyline", { points, class: `s${k}` }));
    values.forEach((v, i) => root.append(svg("circle", { cx: x(i), cy: y(v), r: 2.5, class: `s${k}` })));
  });
  labels.forEach((label, i) => {
    const text = svg("text", { x: x(i) - 3, y: height - 8 });
    text.textContent = label;
    root.append(text);
  });
  return root;
}
