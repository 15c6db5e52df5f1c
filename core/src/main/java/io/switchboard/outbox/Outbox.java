package io.switchboard.outbox;

import io.micrometer.core.instrument.MeterRegistry;
import io.switchboard.BrokerInstance;
import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.InvalidDestinationException;
import io.switchboard.InvalidMessageException;
import io.switchboard.Message;
import io.switchboard.MessageTooLargeException;
import io.switchboard.Switchboard;
import io.switchboard.TypedCodec;
import io.switchboard.spi.BrokerHealth;
import io.switchboard.spi.KeyFormat;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transactional outbox: {@link #publish(Connection, String, Message)} writes a message as a row of the outbox table
 * on the caller's connection, inside the caller's transaction, and never commits; the relay (one per outbox, started
 * by {@link Builder#build()} or {@link #start()}) sends the committed rows through the Switchboard's publishers, so
 * routes, A/B weights, fleet routes, failover and migration decide the broker at relay time, and deletes each row
 * once its broker acknowledged it. Nothing reaches a broker unless the transaction commits; a committed message is
 * sent at least once, with the id it was given at {@code publish}, so an exactly-once subscriber (or
 * {@link TransactionalInbox}) drops a repeat.
 *
 * <pre>{@code
 * Outbox outbox = Outbox.builder(switchboard, dataSource).table("switchboard_outbox").build();   // relay started
 * try (Connection c = dataSource.getConnection()) {
 *     c.setAutoCommit(false);
 *     saveOrder(c, order);                                                          // the application's write
 *     outbox.publish(c, "orders", Message.builder(json).key(order.customer()).build());
 *     c.commit();                                                                   // both, or neither
 * }
 * }</pre>
 *
 * <p>Per-key order: a row's bucket is {@code hash(key) mod buckets}; a relay sends a bucket only while it holds the
 * bucket's row of {@code <table>_lock} ({@code SELECT .. FOR UPDATE SKIP LOCKED}), in id order, and the next batch
 * only after the previous one was acknowledged, so several replicas relay at once and none sends a row another one
 * is sending. PostgreSQL wakes the relay with {@code LISTEN/NOTIFY} (a trigger made with the table); other databases
 * are polled, from {@code pollMin} doubling to {@code pollMax} while idle. See docs/outbox.md.
 *
 * <p>Thread-safe. {@link #close()} stops the relay (rows left wait for the next start) and closes the publishers it
 * made; it does not close the Switchboard or the data source.
 */
public final class Outbox implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Outbox.class);
    private static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,40}(\\.[A-Za-z_][A-Za-z0-9_]{0,40})?");
    /** Room for the envelope's own headers, as the publishers count it. */
    private static final int ENVELOPE_ALLOWANCE = 512;
    static final int MAX_DESTINATION_LENGTH = 255;
    static final int MAX_KEY_LENGTH = 1024;
    static final String OPAQUE = "application/octet-stream";

    final Switchboard switchboard;
    /** The key format of each broker instance whose format is not {@code string}: a row's key is checked at write. */
    private final Map<String, KeyFormat> keyFormats;
    final DataSource dataSource;
    final String table;
    final Dialect dialect;
    final int buckets;
    final int batchSize;
    final int bucketsPerClaim;
    final Duration retention;
    final Duration pollMin;
    final Duration pollMax;
    final Duration backoffMin;
    final Duration backoffMax;
    final Duration sendTimeout;
    final Duration degradedAfter;
    final Duration statsInterval;
    final Delivery delivery;
    final int maxAttempts;
    final long maxBatchBytes;
    final RelayWakeup wakeup;
    final MeterRegistry meters;
    final boolean notifyTrigger;
    private final String database;
    private final int maxMessageSize;
    private final String smallestInstance;
    /** A broker instance without delayed delivery, or null. */
    private final String undelayedInstance;
    private final String insertSql;
    private final OutboxStats stats;
    private volatile Connection lastChecked;
    final int relayThreads;
    private final List<Relay> relays = new ArrayList<>();
    private boolean closed;

    private Outbox(Builder b, Dialect dialect, String database, boolean notifyTrigger) {
        this.switchboard = b.switchboard;
        this.keyFormats = keyFormats(b.switchboard);
        this.dataSource = b.dataSource;
        this.table = b.table;
        this.dialect = dialect;
        this.database = database;
        this.notifyTrigger = notifyTrigger;
        this.buckets = b.buckets;
        this.batchSize = b.batchSize;
        this.bucketsPerClaim = Math.min(b.bucketsPerClaim, b.buckets);
        this.relayThreads = b.relayThreads;
        this.retention = b.retention;
        this.pollMin = b.pollMin;
        this.pollMax = b.pollMax;
        this.backoffMin = b.backoffMin;
        this.backoffMax = b.backoffMax;
        this.sendTimeout = b.sendTimeout;
        this.degradedAfter = b.degradedAfter;
        this.statsInterval = b.statsInterval;
        this.delivery = b.delivery;
        this.maxAttempts = b.maxAttempts;
        this.maxBatchBytes = b.maxBatchBytes;
        this.wakeup = new RelayWakeup(this);
        this.meters = b.meters != null ? b.meters : b.switchboard.meterRegistry();
        int smallest = Integer.MAX_VALUE;
        String smallestName = null;
        for (String name : switchboard.instances()) {
            BrokerInstance instance = switchboard.instance(name);
            if (instance.capabilities().maxMessageSize() < smallest) {
                smallest = instance.capabilities().maxMessageSize();
                smallestName = name + "' (" + instance.brokerId() + ")";
            }
        }
        this.maxMessageSize = smallest;
        this.smallestInstance = smallestName;
        String undelayed = null;
        for (String name : switchboard.instances()) {
            BrokerInstance instance = switchboard.instance(name);
            if (undelayed == null && !instance.capabilities().delayedDelivery()) {
                undelayed = name + "' (" + instance.brokerId() + ")";
            }
        }
        this.undelayedInstance = undelayed;
        this.insertSql = "INSERT INTO " + table + " (bucket, destination, message_key, message_id, content_type, headers,"
                + " payload, created_micros, deliver_at_millis, written_micros) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
        this.stats = new OutboxStats(this);
    }

    /**
     * Starts a builder.
     *
     * @param switchboard the Switchboard whose publishers (and routes) the relay sends through
     * @param dataSource the application's database, where the outbox table is
     * @return a builder with the defaults
     */
    public static Builder builder(Switchboard switchboard, DataSource dataSource) {
        return new Builder(switchboard, dataSource);
    }

    /**
     * Writes {@code message} for {@code destination} as a row of the outbox table, on {@code connection}, inside its
     * open transaction; it does not commit. The message is sent once the transaction commits, to the broker its
     * destination's route names then; a rollback leaves nothing to send.
     *
     * @param connection the connection of the application's transaction (auto-commit off), on the outbox's database
     * @param destination the destination
     * @param message the message; an id is given to it here when it has none, and kept on every send
     * @return the message's id
     * @throws OutboxException when the connection is in auto-commit mode or closed, is on another database, or the
     *     row could not be written (roll back then)
     * @throws InvalidDestinationException when a broker instance of the Switchboard refuses the destination's name
     * @throws MessageTooLargeException when the message is larger than the smallest broker instance accepts
     */
    public String publish(Connection connection, String destination, Message<byte[]> message) {
        checkDestination(destination);
        return insert(connection, destination, OPAQUE, List.of(message), Codec.bytes()).get(0);
    }

    /**
     * A typed writer for one destination: its name is checked once, here, and its payloads are encoded with
     * {@code codec} (its content type travels with each message).
     *
     * @param <T> the payload type
     * @param destination the destination
     * @param codec the payloads' codec
     * @return the writer
     * @throws InvalidDestinationException when a broker instance of the Switchboard refuses the destination's name
     */
    public <T> OutboxPublisher<T> publisher(String destination, Codec<T> codec) {
        Objects.requireNonNull(codec, "codec");
        checkDestination(destination);
        return new OutboxPublisher<>(this, destination, codec);
    }

    /** {@return the outbox table's name} */
    public String table() {
        return table;
    }

    /** {@return the number of rows not sent yet, as last read (every stats interval, or by {@link #health()})} */
    public long backlog() {
        return stats.backlog();
    }

    /** {@return the age of the oldest row not sent yet, as last read; zero when there is none} */
    public Duration oldestUnsentAge() {
        return stats.oldestAge();
    }

    /**
     * Reads the backlog now and answers: {@code UP}, {@code DEGRADED} when the oldest unsent message is older than
     * {@code degradedAfter} (the relay cannot send: a broker refuses, or the relay is stopped), {@code DOWN} when the
     * table cannot be read.
     *
     * @return the outbox's health, with the backlog and the oldest unsent age in its reason
     */
    public BrokerHealth health() {
        return stats.health();
    }

    /** Starts the relay and the backlog readings (when not started yet); {@link Builder#build()} calls it unless told not to. */
    public synchronized void start() {
        if (closed) {
            throw new OutboxException("Outbox '" + table + "' is closed; build a new one");
        }
        if (relays.isEmpty()) {
            wakeup.reopen();
            for (int i = 0; i < relayThreads; i++) {
                Relay relay = new Relay(this, relayThreads == 1 ? "" : "-" + (i + 1));
                relays.add(relay);
                relay.start();
            }
            stats.start();
        }
    }

    /** {@return true while the relay runs} */
    public synchronized boolean isRunning() {
        return !relays.isEmpty() && relays.stream().allMatch(Relay::isAlive);
    }

    /**
     * Stops the relay: a batch being sent is waited for up to the send timeout (its rows stay in the table unless
     * acknowledged), then the relay's connections and publishers are closed. Idempotent; {@link #start()} afterwards
     * starts a new relay.
     */
    public synchronized void stop() {
        relays.forEach(Relay::requestStop);
        wakeup.wakeAll();
        relays.forEach(Relay::stop);
        relays.clear();
        wakeup.close();
        stats.stop();
    }

    /** {@return the number of parked messages (refused {@code maxAttempts} times), as last read} */
    public long parked() {
        return stats.parked();
    }

    /**
     * Moves every parked message back into the outbox, to be sent again (after the messages of its key written since
     * it was parked). Call it once the cause is mended: the route, the broker's limit, the destination.
     *
     * @return how many messages were moved back
     * @throws OutboxException when the database refuses
     */
    public int redrive() {
        return redrive(null);
    }

    /**
     * Moves one parked message back into the outbox, to be sent again.
     *
     * @param messageId the parked message's id
     * @return 1 when it was parked, else 0
     * @throws OutboxException when the database refuses
     */
    public int redrive(String messageId) {
        String where = messageId == null ? "" : " WHERE message_id = ?";
        String copy = "INSERT INTO " + table + " (bucket, destination, message_key, message_id, content_type, headers, payload,"
                + " created_micros, deliver_at_millis, written_micros) SELECT bucket, destination, message_key, message_id,"
                + " content_type, headers, payload, created_micros, deliver_at_millis, CAST(? AS BIGINT) FROM " + table
                + "_parked" + where + " ORDER BY id";
        String delete = "DELETE FROM " + table + "_parked" + where;
        Connection c = null;
        boolean autoCommit = true;
        int isolation = Connection.TRANSACTION_READ_COMMITTED;
        try {
            c = dataSource.getConnection();
            autoCommit = c.getAutoCommit();
            isolation = c.getTransactionIsolation();
            c.setAutoCommit(false);
            int moved;
            try (PreparedStatement in = c.prepareStatement(copy); PreparedStatement out = c.prepareStatement(delete)) {
                in.setLong(1, micros(Instant.now())); // written again now: its age counts from here
                if (messageId != null) {
                    in.setString(2, messageId);
                    out.setString(1, messageId);
                }
                moved = in.executeUpdate();
                out.executeUpdate();
            }
            c.commit();
            if (moved > 0) {
                log.info("Outbox '{}': {} parked message(s) moved back to be sent again", table, moved);
            }
            stats.readNow();
            return moved;
        } catch (SQLException e) {
            throw sqlFailure("move parked messages back", e, c);
        } finally {
            if (c != null) {
                Sessions.handBack(c, autoCommit, isolation, table);
            }
        }
    }

    /** Counts a message the relay held after a failure. */
    void heldNow(String destination) {
        stats.heldNow(destination);
    }

    /** Counts a message the relay parked. */
    void parkedNow(String destination) {
        stats.parkedNow(destination);
    }

    /** Stops the relay for good. */
    @Override
    public synchronized void close() {
        stop();
        closed = true;
    }

    @Override
    public String toString() {
        return "Outbox[" + table + " on " + dialect + ", " + buckets + " buckets, " + relayThreads + " relay thread"
                + (relayThreads == 1 ? "" : "s") + ", relay " + (isRunning() ? "running" : "stopped") + "]";
    }

    /** The instances' key formats other than {@code string}, by instance name. */
    private static Map<String, KeyFormat> keyFormats(Switchboard switchboard) {
        Map<String, KeyFormat> formats = new java.util.LinkedHashMap<>();
        for (String name : switchboard.instances()) {
            KeyFormat format = KeyFormat.of(switchboard.instance(name).config());
            if (format != KeyFormat.STRING) {
                formats.put(name, format);
            }
        }
        return Map.copyOf(formats);
    }

    void checkDestination(String destination) {
        if (destination == null || destination.isEmpty() || destination.length() > MAX_DESTINATION_LENGTH) {
            throw new InvalidDestinationException("Destination '" + destination + "' is not valid for outbox '" + table
                    + "': give a name of 1 to " + MAX_DESTINATION_LENGTH + " characters");
        }
        for (String name : switchboard.instances()) {
            BrokerInstance instance = switchboard.instance(name);
            instance.capabilities().destinationNames().violation(destination).ifPresent(rule -> {
                throw new InvalidDestinationException("Destination '" + destination + "' is not valid on broker '" + name
                        + "' (" + instance.brokerId() + "), where its route may send it at relay time: " + rule
                        + ". Rename the destination");
            });
        }
    }

    /**
     * The headers with the type id a {@link TypedCodec} writes for the payload (unless the application set one); the
     * relay sends them as they are stored, so the type id goes in its own header, not the CloudEvents type.
     */
    private static <T> Map<String, String> withTypeId(Map<String, String> headers, T payload, Codec<T> codec,
            String destination) {
        if (!(codec instanceof TypedCodec<T> typed) || headers.containsKey(typed.header())) {
            return headers;
        }
        if (Envelope.TYPE.equals(typed.header())) {
            throw new ConfigurationException("The outbox for '" + destination + "' cannot write type ids as the CloudEvents "
                    + "type (" + Envelope.TYPE + "): its relay sends what it stored with the relay's own envelope. Write them "
                    + "in a header of their own (TypedCodec's default, " + TypedCodec.SPRING_TYPE_ID + ")");
        }
        Map<String, String> with = new java.util.LinkedHashMap<>(headers);
        with.put(typed.header(), typed.typeIdOf(payload));
        return with;
    }

    /** Checks and writes the messages; returns their ids. */
    <T> List<String> insert(Connection c, String destination, String contentType, List<Message<T>> messages, Codec<T> codec) {
        Objects.requireNonNull(messages, "messages");
        checkConnection(c);
        long now = micros(Instant.now());
        List<String> ids = new ArrayList<>(messages.size());
        try (PreparedStatement insert = c.prepareStatement(insertSql)) {
            for (Message<T> m : messages) {
                if (m == null || m.payload() == null) {
                    throw new InvalidMessageException("A message for '" + destination + "' in outbox '" + table + "' is "
                            + (m == null ? "null" : "without payload") + "; give a message with a payload");
                }
                byte[] payload = codec.encode(m.payload());
                Message<T> stamped = m.stamped();
                String key = stamped.key();
                if (key != null && key.length() > MAX_KEY_LENGTH) {
                    throw new InvalidMessageException("Key of message " + stamped.id() + " for '" + destination + "' has "
                            + key.length() + " characters but outbox '" + table + "' keeps at most " + MAX_KEY_LENGTH
                            + "; use a shorter key (a hash of it, say)");
                }
                if (key != null) {
                    keyFormats.forEach((name, format) -> format.check(key, destination, name)); // as the relay's publisher will
                }
                Map<String, String> headers = withTypeId(stamped.headers(), m.payload(), codec, destination);
                checkHeaders(stamped.id(), destination, headers);
                checkSize(stamped.id(), destination, payload, headers);
                insert.setInt(1, bucket(key, stamped.id()));
                insert.setString(2, destination);
                insert.setString(3, key);
                insert.setString(4, stamped.id());
                insert.setString(5, OPAQUE.equals(contentType) ? null : contentType);
                if (headers.isEmpty()) {
                    insert.setNull(6, Types.VARCHAR);
                } else {
                    insert.setString(6, HeaderText.encode(headers));
                }
                insert.setBytes(7, payload);
                insert.setLong(8, micros(stamped.timestamp()));
                long due = deliverAt(stamped, now);
                if (due > 0 && undelayedInstance != null) {
                    throw new io.switchboard.UnsupportedCapabilityException("Message " + stamped.id() + " for '" + destination
                            + "' is delayed but broker instance '" + undelayedInstance + ", where its route may send it at"
                            + " relay time, has no delayed delivery; nothing was written to outbox '" + table + "'. Send it"
                            + " without a delay, or route the destination to brokers with delayed delivery");
                }
                if (due > 0) {
                    insert.setLong(9, due);
                } else {
                    insert.setNull(9, Types.BIGINT);
                }
                insert.setLong(10, now);
                ids.add(stamped.id());
                if (messages.size() == 1) {
                    insert.executeUpdate();
                } else {
                    insert.addBatch();
                }
            }
            if (messages.size() > 1) {
                insert.executeBatch();
            }
        } catch (SQLException e) {
            throw sqlFailure("write " + messages.size() + " message(s) for '" + destination + "' (roll back the transaction)",
                    e, c);
        }
        return ids;
    }

    private static long deliverAt(Message<?> m, long nowMicros) {
        if (m.deliverAt() != null) {
            return m.deliverAt().toEpochMilli();
        }
        if (m.delay() != null && !m.delay().isZero()) {
            return nowMicros / 1000 + m.delay().toMillis();
        }
        return 0;
    }

    private void checkSize(String id, String destination, byte[] payload, Map<String, String> headers) {
        int headerBytes = ENVELOPE_ALLOWANCE;
        for (Map.Entry<String, String> e : headers.entrySet()) {
            headerBytes += e.getKey().length() + e.getValue().length();
        }
        long total = (long) payload.length + headerBytes;
        if (total > maxMessageSize) {
            throw new MessageTooLargeException("Message " + id + " for '" + destination + "' is " + total + " bytes (payload "
                    + payload.length + " + headers " + headerBytes + ") but broker instance '" + smallestInstance
                    + ", where its route may send it at relay time, accepts at most " + maxMessageSize + " bytes; nothing"
                    + " was written to outbox '" + table + "'. Send a reference to the data (claim check) or raise the"
                    + " broker's limit");
        }
    }

    /**
     * The relay sends a message's headers as they are written; the ones an application may set follow
     * {@link Message.Builder#header}'s rules, checked here so that a message is refused at once rather than at every
     * relay attempt. Switchboard's own {@code sb_} headers, which a received (dead-lettered, say) message carries, are
     * kept as a publisher keeps them when it forwards that message.
     */
    private void checkHeaders(String id, String destination, Map<String, String> headers) {
        if (headers.isEmpty()) {
            return;
        }
        Message.Builder<byte[]> check = null;
        for (Map.Entry<String, String> e : headers.entrySet()) {
            String name = e.getKey();
            if (name != null && name.startsWith("sb_") && e.getValue() != null) {
                continue;
            }
            if (check == null) {
                check = Message.builder(new byte[0]);
            }
            try {
                check.header(name, e.getValue());
            } catch (InvalidMessageException refused) {
                throw new InvalidMessageException("Message " + id + " for '" + destination + "' was not written to outbox '"
                        + table + "': " + refused.getMessage(), refused);
            }
        }
    }

    int bucket(String key, String id) {
        return Math.floorMod((key != null ? key : id).hashCode(), buckets);
    }

    private void checkConnection(Connection c) {
        if (c == null) {
            throw new OutboxException("Outbox '" + table + "': the connection is null; give the connection of the transaction"
                    + " that writes the application's data");
        }
        try {
            if (c.isClosed()) {
                throw new OutboxException("Outbox '" + table + "': the connection is closed, so no transaction can hold the"
                        + " message; publish on the open connection of the transaction that writes the application's data."
                        + " Nothing was written");
            }
            if (c.getAutoCommit()) {
                throw new OutboxException("Outbox '" + table + "': the connection is in auto-commit mode (no transaction is"
                        + " open, or it has ended), so the message would commit alone, without the application's writes;"
                        + " call connection.setAutoCommit(false) before the writes (or publish inside @Transactional) and"
                        + " commit after publish. Nothing was written");
            }
            if (c != lastChecked) {
                String theirs = identity(c.getMetaData());
                if (!theirs.equals(database)) {
                    throw new OutboxException("Outbox '" + table + "': the connection is to " + theirs + " but the outbox's"
                            + " data source is " + database + "; the message and the application's writes would commit in"
                            + " different transactions. Build the outbox on the data source of the application's"
                            + " transactions, or publish on a connection from it. Nothing was written");
                }
                lastChecked = c;
            }
        } catch (SQLException e) {
            throw sqlFailure("check the connection", e, c);
        }
    }

    /** The database a connection is to: its URL without parameters (which also keeps passwords out) and its user. */
    static String identity(DatabaseMetaData md) throws SQLException {
        String url = md.getURL();
        if (url == null) {
            url = "?";
        }
        int parameters = url.indexOf('?');
        int settings = url.indexOf(';');
        int cut = parameters < 0 ? settings : settings < 0 ? parameters : Math.min(parameters, settings);
        return (cut < 0 ? url : url.substring(0, cut)) + " as user '" + md.getUserName() + "'";
    }

    OutboxException sqlFailure(String action, SQLException e, Connection c) {
        return new OutboxException("Outbox table '" + table + "': could not " + action + " (SQL state " + e.getSQLState()
                + "): " + e.getMessage() + (isPermission(e) ? "; " + grantAdvice(c) : ""), e);
    }

    static boolean isPermission(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s) {
                String state = s.getSQLState();
                int code = s.getErrorCode();
                if ("42501".equals(state) || code == 1142 || code == 1044 || code == 1045 || code == 1227 || code == 90096) {
                    return true; // PostgreSQL insufficient_privilege; MariaDB command/access denied; H2 not enough rights
                }
            }
        }
        return false;
    }

    String grantAdvice(Connection c) {
        String user = "the application's user";
        try {
            if (c != null) {
                user = "user '" + c.getMetaData().getUserName() + "'";
            }
        } catch (SQLException ignored) {
            // keep the generic name
        }
        return "grant SELECT, INSERT, UPDATE and DELETE on " + table + " and " + table + "_lock to " + user
                + (dialect == Dialect.POSTGRESQL ? " (and USAGE on the sequence of " + table + ".id)" : "")
                + ", or have an owner create them with " + dialect.scriptResource() + " and build with createSchema(false)";
    }

    static long micros(Instant t) {
        return t.getEpochSecond() * 1_000_000L + t.getNano() / 1000;
    }

    static Instant fromMicros(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
    }

    /** Builds an {@link Outbox}; each setter checks its value at once. */
    public static final class Builder {
        private final Switchboard switchboard;
        private final DataSource dataSource;
        private String table = "switchboard_outbox";
        private int buckets = 64;
        private int batchSize = 500;
        private int bucketsPerClaim = 16;
        private int relayThreads = 4;
        private Duration retention = Duration.ZERO;
        private Duration pollMin = Duration.ofMillis(10);
        private Duration pollMax = Duration.ofMillis(500);
        private Duration backoffMin = Duration.ofMillis(100);
        private Duration backoffMax = Duration.ofSeconds(10);
        private Duration sendTimeout = Duration.ofSeconds(30);
        private Duration degradedAfter = Duration.ofMinutes(1);
        private Duration statsInterval = Duration.ofSeconds(2);
        private Delivery delivery = Delivery.AT_LEAST_ONCE;
        private int maxAttempts = 10;
        private long maxBatchBytes = 16L * 1024 * 1024;
        private MeterRegistry meters;
        private boolean createSchema = true;
        private boolean autoStart = true;

        private Builder(Switchboard switchboard, DataSource dataSource) {
            this.switchboard = Objects.requireNonNull(switchboard, "switchboard");
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /**
         * The table; default {@code switchboard_outbox}; letters, digits and '_', optionally {@code schema.table}. The
         * lock table is {@code <table>_lock}.
         *
         * @param name the table's name
         * @return this builder
         */
        public Builder table(String name) {
            if (name == null || !TABLE.matcher(name).matches()) {
                throw new ConfigurationException("Outbox table name '" + name + "' is not valid: use letters, digits and '_'"
                        + " (at most 41), optionally schema.table, such as switchboard_outbox");
            }
            this.table = name;
            return this;
        }

        /**
         * The number of ordering buckets; default 64; 1 to 4096. Keep it the same on every replica of an application:
         * a key's rows written with another count land in another bucket and lose their order with the earlier ones.
         *
         * @param count the number of buckets
         * @return this builder
         */
        public Builder buckets(int count) {
            this.buckets = range("buckets", count, 1, 4096, "64");
            return this;
        }

        /**
         * Rows sent per batch; default 500; 1 to 10,000.
         *
         * @param rows rows per batch
         * @return this builder
         */
        public Builder batchSize(int rows) {
            this.batchSize = range("batch-size", rows, 1, 10_000, "500");
            return this;
        }

        /**
         * The most buckets one relay holds for a batch; default 16 (the rest are left to other replicas).
         *
         * @param count buckets per batch
         * @return this builder
         */
        public Builder bucketsPerClaim(int count) {
            this.bucketsPerClaim = range("buckets-per-claim", count, 1, 4096, "16");
            return this;
        }

        /**
         * Relay threads in this replica; default 4; 1 to 32. Each holds buckets of its own (as replicas do), with a
         * connection of its own (two on PostgreSQL, for LISTEN), so batches of different buckets are in flight at once:
         * one thread waits for its batch's acknowledgements while another reads and sends the next.
         *
         * @param threads relay threads
         * @return this builder
         */
        public Builder relayThreads(int threads) {
            this.relayThreads = range("relay-threads", threads, 1, 32, "4");
            return this;
        }

        /**
         * Keep sent rows this long (marked sent) instead of deleting them; default zero: delete once acknowledged.
         *
         * @param retention how long sent rows are kept, or zero
         * @return this builder
         */
        public Builder retention(Duration retention) {
            if (retention == null || retention.isNegative()) {
                throw new ConfigurationException("Outbox retention is " + retention + " but must be zero (delete sent rows)"
                        + " or positive, such as 7d");
            }
            this.retention = retention;
            return this;
        }

        /**
         * The idle poll: from {@code min}, doubling up to {@code max} while the table stays empty; defaults 10 ms and
         * 500 ms. On PostgreSQL the relay waits for a notification instead, and polls every {@code max} as well.
         *
         * @param min the first wait after the table was found empty
         * @param max the longest wait
         * @return this builder
         */
        public Builder poll(Duration min, Duration max) {
            this.pollMin = positive("poll min", min);
            this.pollMax = positive("poll max", max);
            if (max.compareTo(min) < 0) {
                throw new ConfigurationException("Outbox poll max " + max + " is below poll min " + min + "; give max >= min");
            }
            return this;
        }

        /**
         * The back-off while a broker refuses: from {@code min}, doubling up to {@code max}; defaults 100 ms and 10 s.
         *
         * @param min the first wait after a failed batch
         * @param max the longest wait
         * @return this builder
         */
        public Builder backoff(Duration min, Duration max) {
            this.backoffMin = positive("backoff min", min);
            this.backoffMax = positive("backoff max", max);
            if (max.compareTo(min) < 0) {
                throw new ConfigurationException("Outbox backoff max " + max + " is below backoff min " + min + "; give max >= min");
            }
            return this;
        }

        /**
         * How long a batch's acknowledgements are waited for; default 30 s. Rows not acknowledged by then stay and are
         * sent again.
         *
         * @param timeout the longest wait for a batch
         * @return this builder
         */
        public Builder sendTimeout(Duration timeout) {
            this.sendTimeout = positive("send timeout", timeout);
            return this;
        }

        /**
         * Health is DEGRADED while the oldest unsent row is older than this; default 1 min.
         *
         * @param age the threshold
         * @return this builder
         */
        public Builder degradedAfter(Duration age) {
            this.degradedAfter = positive("degraded-after", age);
            return this;
        }

        /**
         * How often the backlog and the oldest unsent age are read for the meters; default 2 s.
         *
         * @param interval the interval
         * @return this builder
         */
        public Builder statsInterval(Duration interval) {
            this.statsInterval = positive("stats interval", interval);
            return this;
        }

        /**
         * The relay's delivery guarantee; default {@link Delivery#AT_LEAST_ONCE}.
         *
         * @param delivery the guarantee of the relay's publishers
         * @return this builder
         */
        public Builder delivery(Delivery delivery) {
            Objects.requireNonNull(delivery, "delivery");
            if (delivery == Delivery.AT_MOST_ONCE) {
                throw new ConfigurationException("Outbox delivery AT_MOST_ONCE is refused: the relay deletes a row only once"
                        + " its broker acknowledged it, which an at-most-once publisher never waits for, so a message lost"
                        + " on the way would be gone with its row; use AT_LEAST_ONCE (the default) or EXACTLY_ONCE");
            }
            this.delivery = delivery;
            return this;
        }

        /**
         * How many times a message refused for itself (invalid, too large, a destination or a capability its route's
         * broker lacks) is tried before it is parked in {@code <table>_parked}; default 10; 1 to 1,000. Its key's
         * later messages wait while it is tried and go on once it is parked. A broker's failure (time-out,
         * refusal, lost connection) never parks a message: it waits, with back-off, and its key with it.
         *
         * @param attempts attempts before parking
         * @return this builder
         */
        public Builder maxAttempts(int attempts) {
            this.maxAttempts = range("max-attempts", attempts, 1, 1000, "10");
            return this;
        }

        /**
         * The most payload bytes one relay thread reads and sends in one batch; default 16 MiB; at least 1 KiB. A
         * message larger than this is sent alone.
         *
         * @param bytes payload bytes a batch
         * @return this builder
         */
        public Builder maxBatchBytes(long bytes) {
            if (bytes < 1024) {
                throw new ConfigurationException("Outbox max-batch-bytes is " + bytes + " but must be at least 1024, such as"
                        + " 16777216 (16 MiB)");
            }
            this.maxBatchBytes = bytes;
            return this;
        }

        /**
         * The registry of the outbox's meters; default the Switchboard's.
         *
         * @param registry the registry
         * @return this builder
         */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meters = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * Create the tables (and on PostgreSQL the notify trigger) when the table is missing; default true.
         *
         * @param create false when a migration makes them (scripts in {@code io/switchboard/outbox/schema-*.sql})
         * @return this builder
         */
        public Builder createSchema(boolean create) {
            this.createSchema = create;
            return this;
        }

        /**
         * Start the relay in {@link #build()}; default true. False for a container that starts it ({@link Outbox#start()}).
         *
         * @param start false to start the relay later
         * @return this builder
         */
        public Builder autoStart(boolean start) {
            this.autoStart = start;
            return this;
        }

        /**
         * {@return the outbox, its schema checked (and created when asked), its relay started unless told not to}
         *
         * @throws OutboxException naming the table, the missing permission and the fix when the tables cannot be made
         *     or used, or the database is not supported
         */
        public Outbox build() {
            Dialect dialect;
            String database;
            boolean trigger;
            try {
                Connection c = dataSource.getConnection();
                boolean autoCommit = true;
                int isolation = Connection.TRANSACTION_READ_COMMITTED;
                try {
                    autoCommit = c.getAutoCommit();
                    isolation = c.getTransactionIsolation();
                    c.setAutoCommit(true);
                    DatabaseMetaData md = c.getMetaData();
                    dialect = Dialect.of(md, table);
                    database = identity(md);
                    Schema schema = new Schema(table, dialect);
                    schema.ensure(c, createSchema, buckets);
                    trigger = schema.hasNotifyTrigger(c);
                } finally {
                    Sessions.handBack(c, autoCommit, isolation, table);
                }
            } catch (SQLException e) {
                throw new OutboxException("Outbox table '" + table + "': could not reach the database (SQL state "
                        + e.getSQLState() + "): " + e.getMessage() + "; check the data source", e);
            }
            Outbox outbox = new Outbox(this, dialect, database, trigger);
            warnWhenPoolIsSmall(trigger && dialect == Dialect.POSTGRESQL);
            log.info("Outbox '{}' on {} ({} buckets, batches of {}, {})", table, database, buckets, batchSize,
                    dialect == Dialect.POSTGRESQL && trigger ? "woken by LISTEN/NOTIFY" : "polled every " + pollMin + " to " + pollMax);
            if (autoStart) {
                outbox.start();
            }
            return outbox;
        }

        /**
         * A pool that lends at most {@code maximumPoolSize} connections (HikariCP, and pools with the same getter) keeps
         * the relay's threads and its LISTEN connection for as long as the relay runs: warns when they leave the
         * application fewer than two.
         */
        private void warnWhenPoolIsSmall(boolean listens) {
            int held = relayThreads + (listens ? 1 : 0);
            try {
                java.lang.reflect.Method getter = dataSource.getClass().getMethod("getMaximumPoolSize");
                Object max = getter.invoke(dataSource);
                if (max instanceof Integer size && size > 0 && size - held < 2) {
                    log.warn("Outbox '{}': the relay holds {} of the pool's {} connections while it runs ({} relay"
                            + " threads{}), leaving the application {}; raise the pool's maximumPoolSize to at least {} or"
                            + " lower relayThreads", table, held, size, relayThreads, listens ? " and one LISTEN" : "",
                            Math.max(0, size - held), held + 2);
                }
            } catch (ReflectiveOperationException | RuntimeException ignored) {
                // not a pool that says its size
            }
        }

        private static int range(String name, int value, int min, int max, String example) {
            if (value < min || value > max) {
                throw new ConfigurationException("Outbox " + name + " is " + value + " but must be " + min + " to " + max
                        + ", such as " + example);
            }
            return value;
        }

        private static Duration positive(String name, Duration d) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new ConfigurationException("Outbox " + name + " is " + d + " but must be positive, such as 100ms");
            }
            return d;
        }
    }
}
