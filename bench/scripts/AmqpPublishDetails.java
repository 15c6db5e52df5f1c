import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What each detail of the SDK's AMQP publishes costs a RabbitMQ server that is the bottleneck: seed 001's shape (topics
 * x 8 partition queues, 128 B persistent messages, confirms with a window of 1,000 per channel, 4 sending threads,
 * consumers acking each message with a prefetch of 1,000 per topic), plain amqp-client, the variants taking turns
 * so that a drifting machine spreads over all of them. Variants (names joined with '+'): {@code plain}, {@code mand}
 * (mandatory), {@code ehdr} (an empty header table, as the SDK sends an unkeyed record without envelope), {@code hdr}
 * (a header table with the key as {@code cloudEvents_subject}), {@code props} (message-id and
 * timestamp), {@code 2ch} (two channels per topic, as {@code rabbitmq.publisher-channels=2}), {@code topic} (a topic
 * exchange whose partition queues are bound with {@code <p>} and {@code <p>.#}, the latter as the adapter binds them,
 * instead of a direct exchange; {@code topic-exact}: bound with {@code <p>} only; {@code topic-star}: {@code <p>} and
 * {@code <p>.*}),
 * {@code dlx} (queues declared with an {@code x-dead-letter-exchange}, as the adapter's group queues), {@code id}
 * (message-id alone), {@code ts} (timestamp alone). The consumers' prefetch per queue is {@code -Dprefetch} (default
 * 125; the bench's 256 over 8 partition queues is 32).
 *
 * <p>With {@code -Drate=N} the senders publish N msg/s in all instead of as fast as the window lets them, and each
 * variant prints the server's CPU a consumed message (the {@code beam.smp} process's user and system time from
 * {@code /proc}, so the server must run on this machine): at a rate the server keeps up with, that figure is steadier
 * than a saturated throughput on a machine whose throughput drifts.
 *
 * <pre>
 * java -cp ~/.m2/repository/com/rabbitmq/amqp-client/5.37.0/amqp-client-5.37.0.jar:~/.m2/repository/org/slf4j/slf4j-api/2.0.7/slf4j-api-2.0.7.jar \
 *     -Drounds=4 -Dsecs=6 bench/scripts/AmqpPublishDetails.java plain mand hdr props 2ch mand+hdr+props+2ch
 * </pre>
 */
public class AmqpPublishDetails {
    static final int TOPICS = Integer.getInteger("topics", 8);
    static final int PARTITIONS = 8;
    static final int WINDOW = 1000;
    static final int THREADS = 4;
    static final byte[] BODY = new byte[Integer.getInteger("bytes", 128)];
    /** {@code -Drate}: msg/s in all, or 0 for as fast as the confirm windows allow. */
    static final int TARGET = Integer.getInteger("rate", 0);

    /** The server's CPU time so far in microseconds: user and system time of the {@code beam.smp} process. */
    static long serverCpuMicros() throws IOException {
        long pid = ProcessHandle.allProcesses()
                .filter(p -> p.info().command().map(c -> c.endsWith("beam.smp")).orElse(false))
                .mapToLong(ProcessHandle::pid).findFirst()
                .orElseThrow(() -> new IllegalStateException("no beam.smp process: start RabbitMQ (rabbitmq-server -detached)"));
        String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + pid + "/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
        return ticks * 1_000_000L / 100; // USER_HZ is 100 on Linux
    }

    public static void main(String[] variants) throws Exception {
        int rounds = Integer.getInteger("rounds", 4);
        long seconds = Long.getLong("secs", 6);
        String uri = System.getProperty("uri", "amqp://guest:guest@127.0.0.1:5672");
        Map<String, List<Double>> rates = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            for (String variant : variants) {
                double[] result = run(uri, variant, seconds);
                rates.computeIfAbsent(variant, k -> new ArrayList<>()).add(TARGET > 0 ? result[1] : result[0]);
                System.out.printf("round %d %-28s %8.0f msg/s consumed, server CPU %6.2f us a message%n", round, variant,
                        result[0], result[1]);
            }
        }
        String unit = TARGET > 0 ? "us of server CPU a message" : "msg/s";
        rates.forEach((variant, list) -> System.out.printf("%-28s mean %8.2f %s over %s%n", variant,
                list.stream().mapToDouble(d -> d).average().orElse(0), unit, list));
    }

    /** One channel with confirms and its window of unconfirmed publishes. */
    static final class Producer {
        final Channel channel;
        final Semaphore window = new Semaphore(WINDOW);
        final ConcurrentSkipListMap<Long, Boolean> outstanding = new ConcurrentSkipListMap<>();

        Producer(Connection connection) throws IOException {
            channel = connection.createChannel();
            channel.confirmSelect();
            channel.addConfirmListener((tag, multiple) -> window.release(settle(tag, multiple)), (tag, multiple) -> {
                throw new IllegalStateException("nacked");
            });
        }

        private int settle(long tag, boolean multiple) {
            if (!multiple) {
                return outstanding.remove(tag) != null ? 1 : 0;
            }
            Map<Long, Boolean> done = outstanding.headMap(tag, true);
            int n = done.size();
            done.clear();
            return n;
        }
    }

    /** Consumed msg/s and the server's CPU in microseconds a consumed message. */
    static double[] run(String uri, String variant, long seconds) throws Exception {
        java.util.Set<String> items = java.util.Set.of(variant.split("\\+"));
        boolean mandatory = items.contains("mand");
        boolean headers = items.contains("hdr");
        boolean properties = items.contains("props");
        boolean idOnly = items.contains("id");
        boolean timestampOnly = items.contains("ts");
        int channels = variant.contains("2ch") ? 2 : 1;
        boolean topic = variant.contains("topic");
        String binding = variant.contains("topic-exact") ? "" : variant.contains("topic-star") ? ".*" : ".#";
        Map<String, Object> queueArguments = new HashMap<>(Map.of("x-queue-type", "classic"));
        if (variant.contains("dlx")) {
            queueArguments.put("x-dead-letter-exchange", "details-dead-letters");
        }
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(uri);
        String run = "details-" + Long.toHexString(System.nanoTime());
        AtomicLong consumed = new AtomicLong();
        try (Connection publishing = factory.newConnection(run + "-publish");
                Connection consuming = factory.newConnection(run + "-consume")) {
            Channel admin = publishing.createChannel();
            for (int t = 0; t < TOPICS; t++) {
                String exchange = run + "-t" + t;
                admin.exchangeDeclare(exchange, topic ? BuiltinExchangeType.TOPIC : BuiltinExchangeType.DIRECT, true);
                Channel consumer = consuming.createChannel();
                consumer.basicQos(Integer.getInteger("prefetch", WINDOW / PARTITIONS));
                for (int p = 0; p < PARTITIONS; p++) {
                    String queue = exchange + "." + p;
                    admin.queueDeclare(queue, true, false, false, queueArguments);
                    admin.queueBind(queue, exchange, Integer.toString(p));
                    if (topic && !binding.isEmpty()) {
                        admin.queueBind(queue, exchange, p + binding);
                    }
                    consumer.basicConsume(queue, false, new DefaultConsumer(consumer) {
                        @Override
                        public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body)
                                throws IOException {
                            consumed.incrementAndGet();
                            getChannel().basicAck(envelope.getDeliveryTag(), false);
                        }
                    });
                }
            }
            Producer[][] producers = new Producer[TOPICS][channels];
            for (int t = 0; t < TOPICS; t++) {
                for (int c = 0; c < channels; c++) {
                    producers[t][c] = new Producer(publishing);
                }
            }
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> senders = new ArrayList<>();
            int threads = Math.min(THREADS, TOPICS); // a thread with no topic of its own would only spin
            for (int i = 0; i < threads; i++) {
                int first = i;
                Thread sender = new Thread(() -> {
                    long n = 0;
                    long gap = TARGET > 0 ? 1_000_000_000L * threads / TARGET : 0;
                    long next = System.nanoTime();
                    try {
                        while (!stop.get()) {
                            for (int t = first; t < TOPICS; t += threads) {
                                if (gap > 0) {
                                    next += gap;
                                    long wait = next - System.nanoTime();
                                    if (wait > 0) {
                                        java.util.concurrent.locks.LockSupport.parkNanos(wait);
                                    }
                                }
                                Producer producer = producers[t][(int) (Thread.currentThread().getId() % channels)];
                                if (!producer.window.tryAcquire(1, TimeUnit.SECONDS)) {
                                    continue;
                                }
                                AMQP.BasicProperties.Builder props = new AMQP.BasicProperties.Builder().deliveryMode(2);
                                if (items.contains("ehdr")) {
                                    props.headers(new HashMap<>());
                                }
                                if (headers) {
                                    Map<String, Object> table = new HashMap<>();
                                    table.put("cloudEvents_subject", "key-" + (n % 1000));
                                    props.headers(table);
                                }
                                if (properties) {
                                    props.messageId(UUID.randomUUID().toString())
                                            .timestamp(new Date(System.currentTimeMillis() / 1000 * 1000));
                                }
                                if (idOnly) {
                                    props.messageId(UUID.randomUUID().toString());
                                }
                                if (timestampOnly) {
                                    props.timestamp(new Date(System.currentTimeMillis() / 1000 * 1000));
                                }
                                synchronized (producer) {
                                    producer.outstanding.put(producer.channel.getNextPublishSeqNo(), Boolean.TRUE);
                                    producer.channel.basicPublish(run + "-t" + t, Long.toString(n % PARTITIONS), mandatory,
                                            props.build(), BODY);
                                }
                                n++;
                            }
                        }
                    } catch (IOException | InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                });
                sender.start();
                senders.add(sender);
            }
            Thread.sleep(2000); // warm-up
            long before = consumed.get();
            long cpuBefore = serverCpuMicros();
            long start = System.nanoTime();
            Thread.sleep(seconds * 1000);
            long count = consumed.get() - before;
            double rate = count / ((System.nanoTime() - start) / 1e9);
            double cpu = (serverCpuMicros() - cpuBefore) / (double) Math.max(1, count);
            stop.set(true);
            for (Thread sender : senders) {
                sender.join(5000);
            }
            for (int t = 0; t < TOPICS; t++) {
                for (int p = 0; p < PARTITIONS; p++) {
                    admin.queueDelete(run + "-t" + t + "." + p);
                }
                admin.exchangeDelete(run + "-t" + t);
            }
            return new double[] {rate, cpu};
        }
    }
}
