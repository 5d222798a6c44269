/* Chart downloads: each dashboard chart (an inline SVG in figure.chart-box) gets an "SVG"
   and a "PNG" button. SVG: the element as a file. PNG: the SVG drawn on a canvas at 2×
   and saved from it, entirely in the browser (no CDN, no server round trip). */
(function () {
  "use strict";
  var labels = document.documentElement.lang && document.documentElement.lang.indexOf("zh") === 0
    ? { svg: "下载 SVG", png: "下载 PNG", what: "图表" }
    : { svg: "Download SVG", png: "Download PNG", what: "chart" };

  function source(svg) {
    var copy = svg.cloneNode(true);
    copy.setAttribute("xmlns", "http://www.w3.org/2000/svg");
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(copy);
  }

  function save(blob, name) {
    var url = URL.createObjectURL(blob);
    var a = document.createElement("a");
    a.href = url;
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
  }

  function png(svg, name) {
    var width = svg.width.baseVal.value || svg.getBoundingClientRect().width;
    var height = svg.height.baseVal.value || svg.getBoundingClientRect().height;
    var image = new Image();
    image.onload = function () {
      var canvas = document.createElement("canvas");
      canvas.width = Math.ceil(width * 2);
      canvas.height = Math.ceil(height * 2);
      var ctx = canvas.getContext("2d");
      ctx.fillStyle = "#ffffff";
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      ctx.scale(2, 2);
      ctx.drawImage(image, 0, 0, width, height);
      canvas.toBlob(function (blob) { if (blob) save(blob, name + ".png"); }, "image/png");
    };
    image.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(source(svg));
  }

  document.querySelectorAll("figure.chart-box").forEach(function (figure) {
    var svg = figure.querySelector("svg");
    if (!svg) return;
    var name = figure.getAttribute("data-chart") || "chart";
    var title = svg.getAttribute("aria-label") || labels.what;
    var bar = document.createElement("div");
    bar.className = "chart-tools";
    [["svg", labels.svg], ["png", labels.png]].forEach(function (pair) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "chart-" + pair[0];
      button.textContent = pair[1];
      button.setAttribute("aria-label", pair[1] + ": " + title);
      button.addEventListener("click", function () {
        if (pair[0] === "svg") {
          save(new Blob([source(svg)], { type: "image/svg+xml" }), name + ".svg");
        } else {
          png(svg, name);
        }
      });
      bar.appendChild(button);
    });
    figure.appendChild(bar);
  });
})();
