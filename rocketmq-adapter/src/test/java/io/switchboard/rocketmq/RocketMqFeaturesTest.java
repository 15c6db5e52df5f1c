package io.switchboard.rocketmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.Message;
import io.switchboard.PublishException;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.RetryPolicy;
import io.switchboard.Switchboard;
import io.switchboard.testkit.ContractSupport;
import io.switchboard.testkit.Received;
import io.switchboard.testkit.Recorder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** What RocketMQ adds to the contract: transactions, tags, order under concurrency, delays. */
@DisplayName("RocketMQ specifics")
class RocketMqFeaturesTest extends ContractSupport {

    private static final Codec<String> TEXT = Codec.utf8();

    @Override
    protected String brokerId() {
        return "rocketmq";
    }

    @Override
    protected Map<String, String> brokerProperties() {
        return RocketMqContractTest.embeddedBroker();
    }

    @Nested
    @DisplayName("Transactional messages")
    class Transactions {

        @Test
        @DisplayName("are delivered when the local transaction commits")
        void commit() {
            ScriptedHandler handler = new ScriptedHandler(TransactionOutcome.COMMIT, TransactionOutcome.COMMIT);
            TxFixture tx = transactional("tx-commit", handler, "cloudevents");

            PublishReceipt receipt = join(tx.publisher().publish(Message.builder("paid").header("order", "o-1").build()));

            assertThat(tx.received().awaitCount(1).payloads()).containsExactly("paid");
            assertThat(handler.executed).singleElement().satisfies(m -> {
                assertThat(m.messageId()).isEqualTo(receipt.messageId());
                assertThat(m.destination()).isEqualTo(tx.destination());
                assertThat(m.headers()).containsEntry("order", "o-1");
            });
        }

        @Test
        @DisplayName("are discarded when the local transaction rolls back")
        void rollback() {
            ScriptedHandler handler = new ScriptedHandler(TransactionOutcome.ROLLBACK, TransactionOutcome.ROLLBACK);
            TxFixture tx = transactional("tx-rollback", handler, "cloudevents");

            assertThatThrownBy(() -> join(tx.publisher().publish("cancelled")))
                    .hasRootCauseInstanceOf(PublishException.class).rootCause().hasMessageContaining("rolled back");
            handler.outcome = TransactionOutcome.COMMIT;
            join(tx.publisher().publish("after"));

            assertThat(tx.received().awaitCount(1).payloads()).containsExactly("after");
            assertThat(handler.executed).extracting(m -> new String(m.payload())).containsExactly("cancelled", "after");
        }

        @Test
        @DisplayName("left unknown are resolved by the broker's check-back")
        void checkBack() {
            ScriptedHandler handler = new ScriptedHandler(TransactionOutcome.UNKNOWN, TransactionOutcome.COMMIT);
            TxFixture tx = transactional("tx-check", handler, "cloudevents");

            PublishReceipt pending = join(tx.publisher().publish("decided-later"));
            assertThat(tx.received().awaitCount(1).payloads()).containsExactly("decided-later");
            handler.outcome = TransactionOutcome.COMMIT;
            join(tx.publisher().publish("marker"));
            tx.received().awaitCount(2);

            assertThat(handler.checked).isNotEmpty().allSatisfy(m -> assertThat(m.messageId()).isEqualTo(pending.messageId()));
            assertThat(tx.received().payloads()).containsExactlyInAnyOrder("decided-later", "marker");
        }

        @Test
        @DisplayName("show the handler the message id with the compact envelope too")
        void compactEnvelope() {
            ScriptedHandler handler = new ScriptedHandler(TransactionOutcome.COMMIT, TransactionOutcome.COMMIT);
            TxFixture tx = transactional("tx-compact", handler, "compact");

            PublishReceipt receipt = join(tx.publisher().publish(Message.builder("paid").id("pay;1").build()));

            assertThat(tx.received().awaitCount(1).ids()).containsExactly("pay;1");
            assertThat(handler.executed).singleElement().satisfies(m -> {
                assertThat(m.messageId()).isEqualTo("pay;1").isEqualTo(receipt.messageId());
                assertThat(m.headers()).containsKey(Envelope.COMPACT).doesNotContainKey(Envelope.ID);
            });
        }

        /** A Switchboard with the handler registered, an exactly-once publisher and a subscription. */
        private TxFixture transactional(String instance, TransactionHandler handler, String envelope) {
            Switchboard sb = newSwitchboard(b -> b.instanceName(instance).property("switchboard.envelope", envelope));
            cleanups.add(RocketMqTransactions.register(instance, handler));
            String dest = destination();
            Recorder<String> rec = recorder();
            subscribe(sb, dest, TEXT, b -> b.group("g").delivery(Delivery.EXACTLY_ONCE), rec);
            return new TxFixture(dest, sb.publisher(dest, TEXT).delivery(Delivery.EXACTLY_ONCE).build(), rec);
        }
    }

    private record TxFixture(String destination, Publisher<String> publisher, Recorder<String> received) {}

    @Nested
    @DisplayName("Tags")
    class Tags {

        @Test
        @DisplayName("filter broker-side: a subscription gets only the tags it names")
        void filterByTag() {
            String dest = destination();
            Recorder<String> tagged = recorder();
            Recorder<String> all = recorder();
            subscribe(switchboard, dest, TEXT, b -> b.group("tagged").filter("TagA || TagC"), tagged);
            subscribe(switchboard, dest, TEXT, b -> b.group("all"), all);
            Publisher<String> a = switchboard.publisher(dest, TEXT).property("rocketmq.tag", "TagA").build();
            Publisher<String> b = switchboard.publisher(dest, TEXT).property("rocketmq.tag", "TagB").build();

            join(b.publish("b-1"));
            join(a.publish("a-1"));
            join(b.publish(Message.builder("c-1").header("rocketmq.tag", "TagC").build()));
            join(b.publish("b-2"));
            join(a.publish("a-2"));

            assertThat(all.awaitCount(5).payloads()).containsExactlyInAnyOrder("b-1", "a-1", "c-1", "b-2", "a-2");
            assertThat(tagged.awaitCount(3).payloads()).containsExactlyInAnyOrder("a-1", "c-1", "a-2");
        }
    }

    @Nested
    @DisplayName("Ordering")
    class Ordering {

        @Test
        @DisplayName("keeps each key's order with concurrent publishers, queues and handlers")
        void perKeyUnderConcurrency() throws Exception {
            String dest = destination();
            Recorder<String> rec = recorder();
            subscribe(switchboard, dest, TEXT, b -> b.group("g").concurrency(8).maxInFlight(64), rec);
            Publisher<String> pub = switchboard.publisher(dest, TEXT).build();
            int keys = 24;
            int perKey = 100;
            ExecutorService threads = Executors.newFixedThreadPool(4);
            List<CompletableFuture<Void>> publishers = new ArrayList<>();
            try {
                for (int t = 0; t < 4; t++) {
                    int thread = t;
                    publishers.add(CompletableFuture.runAsync(() -> {
                        List<CompletableFuture<PublishReceipt>> sent = new ArrayList<>();
                        for (int i = 0; i < perKey; i++) {
                            for (int k = thread; k < keys; k += 4) {
                                sent.add(pub.publish(Message.of("key-" + k, k + ":" + i)).toCompletableFuture());
                            }
                        }
                        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).join();
                    }, threads));
                }
                join(CompletableFuture.allOf(publishers.toArray(CompletableFuture[]::new)));
            } finally {
                threads.shutdown();
            }

            rec.awaitCount(keys * perKey);
            Map<String, List<Integer>> sequences = new HashMap<>();
            Map<String, List<Integer>> queues = new HashMap<>();
            for (Received<String> r : rec.received()) {
                String[] parts = r.message().payload().split(":");
                sequences.computeIfAbsent(parts[0], x -> new ArrayList<>()).add(Integer.parseInt(parts[1]));
                queues.computeIfAbsent(parts[0], x -> new ArrayList<>()).add(r.context().partition());
            }
            assertThat(sequences).hasSize(keys);
            sequences.forEach((key, seq) -> assertThat(seq).as("order of key " + key).isSorted().hasSize(perKey));
            queues.forEach((key, q) -> assertThat(q.stream().distinct()).as("queues of key " + key).hasSize(1));
            assertThat(queues.values().stream().map(q -> q.get(0)).collect(Collectors.toSet()))
                    .as("keys spread over queues").hasSizeGreaterThan(1);
        }
    }

    @Nested
    @DisplayName("Publishing several at once (publishAll)")
    class PublishAll {

        @Test
        @DisplayName("sends unkeyed messages as one RocketMQ batch: one queue, consecutive offsets; keyed ones keep their key's queue")
        void oneBatchPerCall() {
            String dest = destination();
            Recorder<String> rec = recorder();
            subscribe(switchboard, dest, TEXT, b -> b.group("g"), rec);
            Publisher<String> pub = switchboard.publisher(dest, TEXT).build();
            List<Message<String>> batch = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                batch.add(Message.of("b-" + i));
            }
            List<PublishReceipt> receipts = join(pub.publishAll(batch));

            assertThat(receipts).extracting(PublishReceipt::partition).as("one queue for the whole call").containsOnly(
                    receipts.get(0).partition());
            long first = receipts.get(0).offset();
            for (int i = 0; i < receipts.size(); i++) {
                assertThat(receipts.get(i).offset()).as("offset of message " + i).isEqualTo(first + i);
            }
            List<Message<String>> keyed = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                keyed.add(Message.of("key-" + (i % 4), "k-" + i));
            }
            List<PublishReceipt> keyedReceipts = join(pub.publishAll(keyed));
            Map<String, Integer> queueOfKey = new HashMap<>();
            for (int i = 0; i < keyed.size(); i++) {
                Integer before = queueOfKey.putIfAbsent(keyed.get(i).key(), keyedReceipts.get(i).partition());
                if (before != null) {
                    assertThat(keyedReceipts.get(i).partition()).as("queue of " + keyed.get(i).key()).isEqualTo(before);
                }
            }
            assertThat(rec.awaitCount(60).payloads()).hasSize(60).doesNotHaveDuplicates();
        }
    }

    @Nested
    @DisplayName("Concurrent consumption (rocketmq.consume-mode=concurrently)")
    class Concurrently {

        @Test
        @DisplayName("handles every message once, with core's retries and dead letters, on several handler threads")
        void everyMessageOnce() {
            String dest = destination();
            Recorder<String> dead = recorder();
            subscribe(switchboard, deadLetterOf(dest), TEXT, b -> b.group("dlq-reader"), dead);
            Recorder<String> rec = new Recorder<>(timeout(),
                    r -> r.message().payload().equals("poison") || (r.message().payload().equals("m-7") && r.context().attempt() == 1));
            subscribe(switchboard, dest, TEXT, b -> b.group("g").concurrency(4).property("rocketmq.consume-mode", "concurrently")
                    .retry(RetryPolicy.fixed(3, Duration.ofMillis(20))), rec);
            Publisher<String> pub = switchboard.publisher(dest, TEXT).build();
            int count = 400;
            List<CompletableFuture<PublishReceipt>> sent = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                sent.add(pub.publish(Message.of("key-" + (i % 16), "m-" + i)).toCompletableFuture());
            }
            sent.add(pub.publish("poison").toCompletableFuture());
            join(CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)));

            rec.awaitCount(count);
            Message<String> dl = dead.awaitCount(1).received().get(0).message();
            assertThat(rec.payloads()).hasSize(count).doesNotHaveDuplicates().doesNotContain("poison");
            assertThat(rec.received()).allSatisfy(r -> assertThat(r.context().partition()).isEqualTo(-1));
            assertThat(rec.attempts().stream().filter(r -> r.message().payload().equals("m-7")))
                    .extracting(r -> r.context().attempt()).containsExactly(1, 2);
            assertThat(dl.payload()).isEqualTo("poison");
            assertThat(dl.headers()).containsEntry(Envelope.DEAD_LETTER_ATTEMPTS, "3")
                    .containsEntry(Envelope.DEAD_LETTER_REASON, "handler-failed");
            assertThat(rec.received().stream().map(Received::thread).distinct().count())
                    .as("handler threads").isGreaterThan(1);
        }

        @Test
        @DisplayName("refuses an unknown consume mode, naming the value and the choices")
        void unknownMode() {
            String dest = destination();
            assertThatThrownBy(() -> switchboard.subscriber(dest, TEXT).group("g").property("rocketmq.consume-mode", "sideways")
                    .subscribe((m, c) -> { }))
                    .isInstanceOf(ConfigurationException.class)
                    .hasMessageContaining("rocketmq.consume-mode").hasMessageContaining("sideways")
                    .hasMessageContaining("concurrently");
        }
    }

    @Nested
    @DisplayName("Delayed delivery")
    class Delayed {

        @Test
        @DisplayName("arrives no earlier than asked, whatever the timer's precision")
        void noEarlierThanAsked() {
            String dest = destination();
            Map<String, Long> arrivals = new ConcurrentHashMap<>();
            subscribe(switchboard, dest, TEXT, b -> b.group("g"),
                    (m, c) -> arrivals.put(m.payload(), System.currentTimeMillis()));
            Publisher<String> pub = switchboard.publisher(dest, TEXT).build();
            Map<String, Long> earliest = new HashMap<>();
            for (long delay : new long[] {1200, 2500, 1700}) {
                String payload = "after-" + delay;
                earliest.put(payload, System.currentTimeMillis() + delay);
                join(pub.publish(Message.builder(payload).delay(Duration.ofMillis(delay)).build()));
            }
            join(pub.publish("now"));

            await().atMost(timeout()).until(() -> arrivals.size() == 4);
            earliest.forEach((payload, notBefore) ->
                    assertThat(arrivals.get(payload)).as(payload).isGreaterThanOrEqualTo(notBefore));
        }
    }

    private final List<AutoCloseable> cleanups = new ArrayList<>();

    @AfterEach
    void closeRegistrations() throws Exception {
        for (AutoCloseable c : cleanups) {
            c.close();
        }
    }

    /** Answers with scripted outcomes and records what it was asked. */
    static final class ScriptedHandler implements TransactionHandler {
        volatile TransactionOutcome outcome;
        final TransactionOutcome checkOutcome;
        final ConcurrentLinkedQueue<TransactionalMessage> executed = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<TransactionalMessage> checked = new ConcurrentLinkedQueue<>();

        ScriptedHandler(TransactionOutcome outcome, TransactionOutcome checkOutcome) {
            this.outcome = outcome;
            this.checkOutcome = checkOutcome;
        }

        @Override
        public TransactionOutcome execute(TransactionalMessage message) {
            executed.add(message);
            return outcome;
        }

        @Override
        public TransactionOutcome check(TransactionalMessage message) {
            checked.add(message);
            return checkOutcome;
        }
    }
}
