// Starts Swagger UI on the service's own OpenAPI document (no inline script: the CSP forbids it).
(function () {
  "use strict";
  var node = document.getElementById("swagger-ui");
  window.SwaggerUIBundle({ url: node.dataset.specUrl, domNode: node, deepLinking: true });
})();
