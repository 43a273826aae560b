"use strict";
(function () {
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const app = document.getElementById("app");
  const pre = document.createElement("pre");
  pre.textContent = JSON.stringify(data, null, 2);
  app.appendChild(pre);
})();
