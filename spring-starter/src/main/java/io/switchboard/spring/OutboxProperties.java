package io.switchboard.spring;

import io.switchboard.Delivery;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.util.unit.DataSize;

/**
 * Everything under {@code switchboard.outbox.} in {@code application.yml}: the transactional outbox on the application's
 * {@code DataSource} (see {@link SwitchboardOutbox}). Off unless {@code switchboard.outbox.enabled=true}.
 *
 * <pre>{@code
 * switchboard:
 *   outbox:
 *     enabled: true
 *     initialize-schema: always        # embedded (default) | always | never
 * }</pre>
 */
@ConfigurationProperties("switchboard.outbox")
public class OutboxProperties {

    /** Whether the transactional outbox is on: the SwitchboardOutbox bean, its relay, meters and health; needs a DataSource. */
    private boolean enabled;

    /** The outbox table, optionally schema.table; its lock table is <table>_lock [switchboard_outbox]. */
    private String table = "switchboard_outbox";

    /**
     * Create the tables (and on PostgreSQL the notify trigger) when missing: embedded (only on an in-memory database),
     * always, or never (a Flyway/Liquibase migration makes them from io/switchboard/outbox/schema-*.sql) [embedded].
     */
    private DatabaseInitializationMode initializeSchema = DatabaseInitializationMode.EMBEDDED;

    /** Ordering buckets, 1 to 4096: a key's messages are sent in commit order; the same on every replica [64]. */
    private int buckets = 64;

    /** Rows the relay sends per batch, 1 to 10,000 [500]. */
    private int batchSize = 500;

    /** The most buckets one relay holds for a batch; the rest are left to other replicas [16]. */
    private int bucketsPerClaim = 16;

    /**
     * Relay threads in this application, 1 to 32, each holding a connection of the DataSource (two on PostgreSQL)
     * for its lifetime [4]; 1 where the pool is small.
     */
    private int relayThreads = 4;

    /** Keep sent rows (marked sent) this long before purging them; 0 deletes each row once its broker acknowledged it [0]. */
    private Duration retention = Duration.ZERO;

    /** The relay's wait while the table is empty: from min, doubling up to max (on PostgreSQL a notification wakes it at once). */
    private final Interval poll = new Interval(Duration.ofMillis(10), Duration.ofMillis(500));

    /** The relay's wait after a batch a broker did not acknowledge: from min, doubling up to max; the rows wait in the table. */
    private final Interval backoff = new Interval(Duration.ofMillis(100), Duration.ofSeconds(10));

    /** How long the relay waits for a batch's acknowledgements; rows not acknowledged by then are sent again [30s]. */
    private Duration sendTimeout = Duration.ofSeconds(30);

    /** Health is DEGRADED while the oldest unsent message is older than this [1m]. */
    private Duration degradedAfter = Duration.ofMinutes(1);

    /** How often the backlog and the oldest unsent age are read for the meters [2s]. */
    private Duration statsInterval = Duration.ofSeconds(2);

    /** The relay's delivery guarantee when it publishes: at-least-once or exactly-once (at-most-once is refused) [at-least-once]. */
    private Delivery delivery = Delivery.AT_LEAST_ONCE;

    /** Attempts of a message refused for itself (invalid, too large, a capability its route's broker lacks) before it is parked in <table>_parked [10]. */
    private int maxAttempts = 10;

    /** The most payload bytes one relay thread sends in one batch; a larger message goes alone [16MB]. */
    private DataSize maxBatchBytes = DataSize.ofMegabytes(16);

    /** Start the relay with the application context; false for a replica that only writes [true]. */
    private boolean autoStartup = true;

    /** {@return whether the transactional outbox is on} */
    public boolean isEnabled() {
        return enabled;
    }

    /**
     * Sets {@link #isEnabled()}.
     *
     * @param enabled the value to set
     */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** {@return the outbox table} */
    public String getTable() {
        return table;
    }

    /**
     * Sets {@link #getTable()}.
     *
     * @param table the value to set
     */
    public void setTable(String table) {
        this.table = table;
    }

    /** {@return when the tables are created: embedded, always or never} */
    public DatabaseInitializationMode getInitializeSchema() {
        return initializeSchema;
    }

    /**
     * Sets {@link #getInitializeSchema()}.
     *
     * @param initializeSchema the value to set
     */
    public void setInitializeSchema(DatabaseInitializationMode initializeSchema) {
        this.initializeSchema = initializeSchema;
    }

    /** {@return the number of ordering buckets} */
    public int getBuckets() {
        return buckets;
    }

    /**
     * Sets {@link #getBuckets()}.
     *
     * @param buckets the value to set
     */
    public void setBuckets(int buckets) {
        this.buckets = buckets;
    }

    /** {@return rows the relay sends per batch} */
    public int getBatchSize() {
        return batchSize;
    }

    /**
     * Sets {@link #getBatchSize()}.
     *
     * @param batchSize the value to set
     */
    public void setBatchSize(int batchSize) {
        this.batchSize = batchSize;
    }

    /** {@return relay threads in this application} */
    public int getRelayThreads() {
        return relayThreads;
    }

    /**
     * Sets {@link #getRelayThreads()}.
     *
     * @param relayThreads the value to set
     */
    public void setRelayThreads(int relayThreads) {
        this.relayThreads = relayThreads;
    }

    /** {@return the most buckets one relay holds for a batch} */
    public int getBucketsPerClaim() {
        return bucketsPerClaim;
    }

    /**
     * Sets {@link #getBucketsPerClaim()}.
     *
     * @param bucketsPerClaim the value to set
     */
    public void setBucketsPerClaim(int bucketsPerClaim) {
        this.bucketsPerClaim = bucketsPerClaim;
    }

    /** {@return how long sent rows are kept; zero deletes them once acknowledged} */
    public Duration getRetention() {
        return retention;
    }

    /**
     * Sets {@link #getRetention()}.
     *
     * @param retention the value to set
     */
    public void setRetention(Duration retention) {
        this.retention = retention;
    }

    /** {@return the relay's wait while the table is empty} */
    public Interval getPoll() {
        return poll;
    }

    /** {@return the relay's wait after a batch a broker did not acknowledge} */
    public Interval getBackoff() {
        return backoff;
    }

    /** {@return how long the relay waits for a batch's acknowledgements} */
    public Duration getSendTimeout() {
        return sendTimeout;
    }

    /**
     * Sets {@link #getSendTimeout()}.
     *
     * @param sendTimeout the value to set
     */
    public void setSendTimeout(Duration sendTimeout) {
        this.sendTimeout = sendTimeout;
    }

    /** {@return the age of the oldest unsent message past which health is DEGRADED} */
    public Duration getDegradedAfter() {
        return degradedAfter;
    }

    /**
     * Sets {@link #getDegradedAfter()}.
     *
     * @param degradedAfter the value to set
     */
    public void setDegradedAfter(Duration degradedAfter) {
        this.degradedAfter = degradedAfter;
    }

    /** {@return how often the backlog and the oldest unsent age are read} */
    public Duration getStatsInterval() {
        return statsInterval;
    }

    /**
     * Sets {@link #getStatsInterval()}.
     *
     * @param statsInterval the value to set
     */
    public void setStatsInterval(Duration statsInterval) {
        this.statsInterval = statsInterval;
    }

    /** {@return the relay's delivery guarantee} */
    public Delivery getDelivery() {
        return delivery;
    }

    /**
     * Sets {@link #getDelivery()}.
     *
     * @param delivery the value to set
     */
    public void setDelivery(Delivery delivery) {
        this.delivery = delivery;
    }

    /** {@return attempts of a message refused for itself before it is parked} */
    public int getMaxAttempts() {
        return maxAttempts;
    }

    /**
     * Sets {@link #getMaxAttempts()}.
     *
     * @param maxAttempts the value to set
     */
    public void setMaxAttempts(int maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    /** {@return the most payload bytes a relay thread sends in one batch} */
    public DataSize getMaxBatchBytes() {
        return maxBatchBytes;
    }

    /**
     * Sets {@link #getMaxBatchBytes()}.
     *
     * @param maxBatchBytes the value to set
     */
    public void setMaxBatchBytes(DataSize maxBatchBytes) {
        this.maxBatchBytes = maxBatchBytes;
    }

    /** {@return whether the relay starts with the application context} */
    public boolean isAutoStartup() {
        return autoStartup;
    }

    /**
     * Sets {@link #isAutoStartup()}.
     *
     * @param autoStartup the value to set
     */
    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    /** A wait that starts at {@code min} and doubles up to {@code max}. */
    public static class Interval {
        /** The first wait. */
        private Duration min;

        /** The longest wait. */
        private Duration max;

        Interval(Duration min, Duration max) {
            this.min = min;
            this.max = max;
        }

        /** {@return the first wait} */
        public Duration getMin() {
            return min;
        }

        /**
         * Sets {@link #getMin()}.
         *
         * @param min the value to set
         */
        public void setMin(Duration min) {
            this.min = min;
        }

        /** {@return the longest wait} */
        public Duration getMax() {
            return max;
        }

        /**
         * Sets {@link #getMax()}.
         *
         * @param max the value to set
         */
        public void setMax(Duration max) {
            this.max = max;
        }
    }
}
