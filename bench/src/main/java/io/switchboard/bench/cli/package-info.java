/** The switchboard-bench command line (picocli): run, seeds, list. */
package io.switchboard.bench.cli;
