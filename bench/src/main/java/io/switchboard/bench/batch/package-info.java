/** Batch listeners against single-message listeners and Spring Kafka's batch listener: drain throughput. */
package io.switchboard.bench.batch;
