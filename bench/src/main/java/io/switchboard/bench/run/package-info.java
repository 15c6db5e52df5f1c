/** Running workloads and suites: senders, warm-up, drain, progress. */
package io.switchboard.bench.run;
