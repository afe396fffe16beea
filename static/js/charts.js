// Draws the charts of a report page with Chart.js (static/vendor/chartjs). Each <canvas data-chart="ID"> reads
// what to draw from <script type="application/json" id="ID"> (no inline script: the CSP forbids it). The same
// numbers are in a table beside each chart, for screen readers and printing.
(function () {
  "use strict";
  const palette = ["#1d5fa8", "#2f8a57", "#c2571a", "#7a4bb0", "#b3263f", "#4d7b8a", "#8a6d1d", "#555"];
  const locale = document.documentElement.lang || "es-UY";
  const money = new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

  function draw(canvas) {
    const source = document.getElementById(canvas.dataset.chart);
    if (!source || typeof Chart === "undefined") return;
    const spec = JSON.parse(source.textContent);
    const round = spec.kind === "doughnut";
    new Chart(canvas, {
      type: spec.kind,
      data: {
        labels: spec.labels,
        datasets: [{
          label: spec.series,
          data: spec.values,
          backgroundColor: round ? palette : palette[0],
          borderWidth: round ? 1 : 0,
        }],
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: {
          legend: { display: round, position: "bottom" },
          tooltip: { callbacks: { label: (item) => ` ${spec.series} ${money.format(item.parsed.y ?? item.parsed)}` } },
        },
        scales: round ? {} : { y: { beginAtZero: true, ticks: { callback: (value) => money.format(value) } } },
      },
    });
  }

  function drawAll(root) {
    root.querySelectorAll("canvas[data-chart]").forEach(draw);
  }

  document.addEventListener("DOMContentLoaded", () => drawAll(document));
  document.addEventListener("htmx:afterSettle", (event) => drawAll(event.target));
})();
