/** Implementation of the Kafka adapter; not API. */
package io.switchboard.kafka.internal;
