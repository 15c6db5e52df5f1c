package io.switchboard.rabbit.internal.provision;

import static io.switchboard.rabbit.internal.mapping.DelayLevels.DELIVERY_EXCHANGE;
import static io.switchboard.rabbit.internal.mapping.DelayLevels.LEVELS;

import com.rabbitmq.client.BuiltinExchangeType;
import io.switchboard.rabbit.internal.RabbitAdapter;
import io.switchboard.rabbit.internal.RabbitSettings;
import io.switchboard.rabbit.internal.mapping.DelayLevels;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delay levels of one broker, for delayed delivery without plugins (the binary design of NServiceBus and
 * kombu; the arithmetic is in {@link DelayLevels}). Level {@code n} is a durable headers exchange and a durable
 * queue, both {@code switchboard.delay.<n>}: the exchange routes a message whose header
 * {@code switchboard-delay-<n>} is {@code "1"} to the queue, where it waits {@code 2^n × 10 ms}
 * ({@code x-message-ttl}) and is then dead-lettered to level {@code n - 1}'s exchange; with {@code "0"} the
 * exchange passes it straight on to level {@code n - 1}'s exchange. Below level 0 is the headers exchange
 * {@code switchboard.delay.deliver}, bound to each destination's exchange on header
 * {@code switchboard-delay-to}: the message reaches the destination with the routing key it was published with,
 * so the group queues (and their filters) get it as if it had been published then.
 *
 * <p>Declared once per broker, idempotently, on an adapter's first delayed record; with
 * {@code rabbitmq.queue-type=quorum} the level queues are quorum queues (message TTL and at-least-once
 * dead-lettering, {@code x-dead-letter-strategy=at-least-once} with {@code x-overflow=reject-publish}, since
 * RabbitMQ 3.10). Nothing lives in the application: the broker holds every waiting message, persistent.
 */
public final class DelayChain {

    private static final Logger log = LoggerFactory.getLogger(DelayChain.class);

    private final RabbitAdapter adapter;
    private final Set<String> bound = ConcurrentHashMap.newKeySet();
    private final boolean quorum;
    private volatile boolean declared;

    DelayChain(RabbitAdapter adapter, RabbitSettings settings) {
        this.adapter = adapter;
        this.quorum = settings.quorumQueues();
    }

    /** {@return the exchange a record delayed by {@code units} is published to: the level of its highest bit} */
    public String entry(long units) {
        return DelayLevels.levelName(DelayLevels.entryLevel(units), quorum);
    }

    /**
     * Makes sure the levels exist and that due messages for {@code destination} reach its exchange. Blocks on
     * the broker the first time (per adapter, and per destination); afterwards a set lookup.
     *
     * @throws io.switchboard.SwitchboardException when the broker refuses a declaration
     */
    public void ensure(String destination) {
        if (!declared) {
            declare();
        }
        if (!bound.contains(destination)) {
            adapter.withChannel("bind destination '" + destination + "' to the delay levels", channel -> {
                channel.exchangeBind(destination, DELIVERY_EXCHANGE, "", Map.of("x-match", "all",
                        DelayLevels.TO_HEADER, destination));
                return null;
            });
            bound.add(destination);
        }
    }

    /** Forgets the binding of a deleted destination (deleting its exchange removed it). */
    void forget(String destination) {
        bound.remove(destination);
    }

    private synchronized void declare() {
        if (declared) {
            return;
        }
        adapter.withChannel("declare the delay levels " + DelayLevels.levelName(0, quorum) + " .. "
                + DelayLevels.levelName(LEVELS - 1, quorum), channel -> {
            channel.exchangeDeclare(DELIVERY_EXCHANGE, BuiltinExchangeType.HEADERS, true);
            for (int n = 0; n < LEVELS; n++) {
                channel.exchangeDeclare(DelayLevels.levelName(n, quorum), BuiltinExchangeType.HEADERS, true);
            }
            for (int n = 0; n < LEVELS; n++) {
                String level = DelayLevels.levelName(n, quorum);
                String next = n == 0 ? DELIVERY_EXCHANGE : DelayLevels.levelName(n - 1, quorum);
                channel.queueDeclare(level, true, false, false, queueArguments(n, next, quorum));
                channel.queueBind(level, level, "", Map.of("x-match", "all", DelayLevels.levelHeader(n), "1"));
                channel.exchangeBind(next, level, "", Map.of("x-match", "all", DelayLevels.levelHeader(n), "0"));
            }
            return null;
        });
        declared = true;
        log.debug("Delay levels declared on RabbitMQ at {} ({} queues)", adapter.printableUri(), quorum ? "quorum" : "classic");
    }

    private static Map<String, Object> queueArguments(int level, String deadLetterExchange, boolean quorum) {
        Map<String, Object> args = new HashMap<>();
        args.put("x-queue-type", quorum ? "quorum" : "classic");
        args.put("x-message-ttl", DelayLevels.ttlMillis(level));
        args.put("x-dead-letter-exchange", deadLetterExchange);
        if (quorum) {
            args.put("x-dead-letter-strategy", "at-least-once");
            args.put("x-overflow", "reject-publish");
        }
        return args;
    }
}
