#!/usr/bin/env bash
# Copies the front-end packages installed from the npm registry (pinned in package-lock.json) into the
# gitignored static/vendor/ folder that the portal and the service serve. Nothing here is committed.
set -euo pipefail
cd "$(dirname "$0")/.."
vendor=static/vendor
rm -rf "$vendor.tmp" && mkdir -p "$vendor.tmp"/{htmx,pico,swagger-ui,chartjs}
cp node_modules/htmx.org/dist/htmx.min.js "$vendor.tmp/htmx/"
cp node_modules/@picocss/pico/css/pico.min.css "$vendor.tmp/pico/"
cp node_modules/chart.js/dist/chart.umd.min.js "$vendor.tmp/chartjs/"
cp node_modules/swagger-ui-dist/swagger-ui-bundle.js node_modules/swagger-ui-dist/swagger-ui.css "$vendor.tmp/swagger-ui/"
for license in node_modules/chart.js/LICENSE.md node_modules/htmx.org/LICENSE node_modules/@picocss/pico/LICENSE.md node_modules/swagger-ui-dist/LICENSE; do
  [[ -f $license ]] && cp "$license" "$vendor.tmp/$(basename "$(dirname "$license")")-$(basename "$license")"
done
rm -rf "$vendor" && mv "$vendor.tmp" "$vendor"
