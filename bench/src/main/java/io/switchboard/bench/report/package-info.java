/** Reports: console tables, CSV, JSON and the HTML page with Chart.js; SDK/native pairing. */
package io.switchboard.bench.report;
