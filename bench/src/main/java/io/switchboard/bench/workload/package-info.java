/** Workload files: the model, the YAML parser with field-naming errors, grids. */
package io.switchboard.bench.workload;
