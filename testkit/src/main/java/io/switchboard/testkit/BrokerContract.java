package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.switchboard.Codec;
import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.Envelope;
import io.switchboard.InvalidDestinationException;
import io.switchboard.InvalidMessageException;
import io.switchboard.Message;
import io.switchboard.MessageTooLargeException;
import io.switchboard.PublishReceipt;
import io.switchboard.Publisher;
import io.switchboard.RetryPolicy;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import io.switchboard.SwitchboardClosedException;
import io.switchboard.UnknownBrokerException;
import io.switchboard.UnknownCodecException;
import io.switchboard.UnsupportedCapabilityException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every adapter must show, run against a real broker. An adapter's test is a
 * subclass that names the adapter and supplies its broker's properties:
 *
 * <pre>{@code
 * class KafkaContractTest extends BrokerContract {
 *     protected String brokerId() { return "kafka"; }
 *     protected Map<String, String> brokerProperties() {
 *         return Map.of("kafka.bootstrap.servers", EmbeddedKafka.shared().bootstrapServers());
 *     }
 * }
 * }</pre>
 *
 * <p>A test is skipped only when the adapter's {@link io.switchboard.spi.Capabilities} declare the
 * feature unsupported, and the skip message says so. A missing broker is a failure.
 */
public abstract class BrokerContract extends ObservabilityContract {

    /** A JSON payload for the codec tests. */
    public record Order(String id, int quantity, List<String> items) {}

    private static final Codec<String> TEXT = Codec.utf8();

    private Message<String> keyed(String key, String payload) {
        return Message.builder(payload).key(key).build();
    }

    @Nested
    @DisplayName("A round trip")
    class RoundTrip {

        @Test
        @DisplayName("keeps payload, key, headers and id")
        void keepsPayloadKeyHeadersAndId() {
            String dest = destination();
            Recorder<String> rec = recorder();
            subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, rec);
            Message<String> sent = Message.builder("hello").key("k-1").header("tenant", "acme").header("x-n", "7")
                    .id("id-" + dest).build();
            PublishReceipt receipt = join(publisher(dest, TEXT, Delivery.AT_LEAST_ONCE).publish(sent));

            Message<String> got = rec.awaitCount(1).received().get(0).message();
            assertThat(got.payload()).isEqualTo("hello");
            assertThat(got.key()).isEqualTo("k-1");
            assertThat(got.headers()).containsEntry("tenant", "acme").containsEntry("x-n", "7");
            assertThat(got.id()).isEqualTo("id-" + dest).isEqualTo(receipt.messageId());
        }

        @Test
        @DisplayName("carries a JSON payload through the json codec")
        void carriesJson() {
            String dest = destination();
            Codec<Order> json = Codec.json(Order.class);
            Recorder<Order> rec = recorder();
            subscribe(dest, json, "g", Delivery.AT_LEAST_ONCE, rec);
            Order order = new Order("o-1", 3, List.of("apple", "pear"));
            join(publisher(dest, json, Delivery.AT_LEAST_ONCE).publish(order));
            assertThat(rec.awaitCount(1).payloads()).containsExactly(order);
        }

        @Test
        @DisplayName("carries bytes unchanged through the bytes codec")
        void carriesBytes() {
            String dest = destination();
            Recorder<byte[]> rec = recorder();
            subscribe(dest, Codec.bytes(), "g", Delivery.AT_LEAST_ONCE, rec);
            byte[] payload = new byte[256];
            for (int i = 0; i < payload.length; i++) {
                payload[i] = (byte) i;
            }
            join(publisher(dest, Codec.bytes(), Delivery.AT_LEAST_ONCE).publish(payload));
            assertThat(rec.awaitCount(1).payloads().get(0)).isEqualTo(payload);
        }

        @Test
        @DisplayName("stamps a time-ordered id and a publish time with microsecond precision")
        void stampsIdAndTime() {
            String dest = destination();
            Recorder<String> rec = recorder();
            subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, rec);
            Instant before = Instant.now().minusSeconds(1);
            Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
            join(pub.publish(Message.of("k", "first")));
            join(pub.publish(Message.of("k", "second")));

            List<Received<String>> got = rec.awaitCount(2).received();
            Message<String> first = got.get(0).message();
            Message<String> second = got.get(1).message();
            assertThat(first.id()).matches("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
            assertThat(first.id().substring(0, 13).compareTo(second.id().substring(0, 13))).isLessThanOrEqualTo(0);
            assertThat(first.timestamp()).isAfter(before).isBefore(Instant.now().plusSeconds(1));
            assertThat(got.get(0).context().traceparent()).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-01");
        }

        @Test
        @DisplayName("publishes a batch and returns a receipt per message")
        void publishesBatch() {
            String dest = destination();
            Recorder<String> rec = recorder();
            subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, rec);
            List<Message<String>> batch = IntStream.range(0, 20).mapToObj(i -> Message.of("m" + i)).collect(Collectors.toList());
            List<PublishReceipt> receipts = join(publisher(dest, TEXT, Delivery.AT_LEAST_ONCE).publishAll(batch));
            assertThat(receipts).hasSize(20).allSatisfy(r -> {
                assertThat(r.destination()).isEqualTo(dest);
                assertThat(r.broker()).isEqualTo(switchboard.instanceName());
            });
            assertThat(rec.awaitCount(20).payloads()).containsExactlyInAnyOrderElementsOf(
                    batch.stream().map(Message::payload).collect(Collectors.toList()));
        }

        @Test
        @DisplayName("tells the handler its destination, group and first attempt")
        void contextIsFilledIn() {
            String dest = destination();
            Recorder<String> rec = recorder();
            subscribe(dest, TEXT, "billing", Delivery.AT_LEAST_ONCE, rec);
            join(publisher(dest, TEXT, Delivery.AT_LEAST_ONCE).publish("x"));
            Received<String> got = rec.awaitCount(1).received().get(0);
            assertThat(got.context().destination()).isEqualTo(dest);
            assertThat(got.context().group()).isEqualTo("billing");
            assertThat(got.context().attempt()).isEqualTo(1);
            assertThat(got.context().broker()).isEqualTo(switchboard.instanceName());
        }
    }

    @Nested
    @DisplayName("Ordering")
    class Ordering {

        @Test
        @DisplayName("keeps messages with the same key in publish order, with concurrent handlers")
        void perKeyOrder() {
            assumeTrue(capabilities().orderingPerKey(), "broker '" + brokerId() + "' does not declare ordering per key");
            String dest = destination();
            Recorder<String> rec = recorder();
            subscribe(switchboard, dest, TEXT, b -> b.group("g").concurrency(4), rec);
            Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
            List<CompletableFuture<PublishReceipt>> sent = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                for (int k = 0; k < 8; k++) {
                    sent.add(pub.publish(keyed("key-" + k, k + ":" + i)).toCompletableFuture());
                }
            }
            join(CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)));
            rec.awaitCount(400);
            Map<String, List<Integer>> perKey = new HashMap<>();
            for (String p : rec.payloads()) {
                String[] parts = p.split(":");
                perKey.computeIfAbsent(parts[0], x -> new ArrayList<>()).add(Integer.parseInt(parts[1]));
            }
            assertThat(perKey).hasSize(8);
            perKey.values().forEach(seq -> assertThat(seq).isSorted().hasSize(50));
        }
    }

    @Nested
    @DisplayName("Consumer groups")
    class ConsumerGroups {

        @Test
        @DisplayName("share the messages among members: each message is handled by one member")
        void membersCompete() {
            String dest = destination();
            Recorder<String> a = recorder();
            Recorder<String> b = recorder();
            subscribe(dest, TEXT, "workers", Delivery.AT_LEAST_ONCE, a);
            subscribe(newSwitchboard(), dest, TEXT, s -> s.group("workers").delivery(Delivery.AT_LEAST_ONCE), b);
            Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
            List<CompletableFuture<PublishReceipt>> sent = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                sent.add(pub.publish(keyed("k" + i, "m" + i)).toCompletableFuture());
            }
            join(CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)));
            await().atMost(timeout()).until(() -> a.received().size() + b.received().size() >= 200);
            List<String> all = new ArrayList<>(a.payloads());
            all.addAll(b.payloads());
            assertThat(all).hasSize(200).doesNotHaveDuplicates();
            assertThat(a.payloads()).as("member a's share").isNotEmpty();
            assertThat(b.payloads()).as("member b's share").isNotEmpty();
        }

        @Test
        @DisplayName("give every group its own copy of every message")
        void groupsAreIndependent() {
            String dest = destination();
            Recorder<String> billing = recorder();
            Recorder<String> audit = recorder();
            subscribe(dest, TEXT, "billing", Delivery.AT_LEAST_ONCE, billing);
            subscribe(dest, TEXT, "audit", Delivery.AT_LEAST_ONCE, audit);
            Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
            for (int i = 0; i < 30; i++) {
                join(pub.publish("m" + i));
            }
            assertThat(billing.awaitCount(30).payloads()).hasSize(30).doesNotHaveDuplicates();
            assertThat(audit.awaitCount(30).payloads()).hasSize(30).doesNotHaveDuplicates();
        }

        @Test
        @DisplayName("keep messages published while no member is subscribed")
        void groupIsDurable() {
            String dest = destination();
            Subscription first = subscribe(dest, TEXT, "durable", Delivery.AT_LEAST_ONCE, recorder());
            first.close();
            Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
            for (int i = 0; i < 10; i++) {
                join(pub.publish("while-away-" + i));
            }
            Recorder<String> back = recorder();
            subscribe(dest, TEXT, "durable", Delivery.AT_LEAST_ONCE, back);
            assertThat(back.awaitCount(10).payloads()).hasSize(10).doesNotHaveDuplicates();
        }
    }

    @Nested
    @DisplayName("Broadcast")
    class Broadcast {

        @Test
        @DisplayName("delivers every message to every broadcast subscriber")
        void everySubscriberGetsEverything() {
            assumeTrue(capabilities().broadcast(), "broker '" + brokerId() + "' does not declare broadcast");
            String dest = destination();
            Recorder<String> one = recorder();
            Recorder<String> two = recorder();
            subscribe(switchboard, dest, TEXT, b -> b.broadcast(), one);
            subscribe(newSwitchboard(), dest, TEXT, b -> b.broadcast(), two);
            Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
            for (int i = 0; i < 20; i++) {
                join(pub.publish("b" + i));
            }
            assertThat(one.awaitCount(20).payloads()).hasSize(20).doesNotHaveDuplicates();
            assertThat(two.awaitCount(20).payloads()).hasSize(20).doesNotHaveDuplicates();
        }

        @Test
        @DisplayName("is refused at build time by a broker that cannot broadcast")
        void refusedWithoutCapability() {
            assumeFalse(capabilities().broadcast(), "broker '" + brokerId() + "' supports broadcast");
            assertThatThrownBy(() -> switchboard.subscriber(destination(), TEXT).broadcast().subscribe((m, c) -> { }))
                    .isInstanceOf(UnsupportedCapabilityException.class).hasMessageContaining(brokerId());
        }
    }

    @Nested
    @DisplayName("At-most-once")
    class AtMostOnce {

        @Test
        @DisplayName("does not redeliver a message whose handler failed")
        void noRedelivery() {
            String dest = destination();
            Recorder<String> rec = new Recorder<>(timeout(), r -> r.message().payload().equals("boom"));
            subscribe(dest, TEXT, "g", Delivery.AT_MOST_ONCE, rec);
            Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_MOST_ONCE);
            join(pub.publish(keyed("same", "boom")));
            join(pub.publish(keyed("same", "after")));
            rec.awaitCount(1);
            assertThat(rec.payloads()).containsExactly("after");
            assertThat(rec.attempts()).extracting(r -> r.message().payload()).containsExactly("boom", "after");
        }

        @Test
        @DisplayName("delivers messages published without waiting for replication")
        void delivers() {
            String dest = destination();
            Recorder<String> rec = recorder();
            subscribe(dest, TEXT, "g", Delivery.AT_MOST_ONCE, rec);
            Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_MOST_ONCE);
            for (int i = 0; i < 50; i++) {
                join(pub.publish("amo-" + i));
            }
            assertThat(rec.awaitCount(50).payloads()).hasSize(50).doesNotHaveDuplicates();
        }
    }

    @Nested
    @DisplayName("At-least-once")
    class AtLeastOnce {

        @Test
        @DisplayName("retries a failed handler and counts the attempts")
        void retriesUntilSuccess() {
            String dest = destination();
            Recorder<String> rec = new Recorder<>(timeout(), r -> r.context().attempt() < 3);
            subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, rec);
            join(publisher(dest, TEXT, Delivery.AT_LEAST_ONCE).publish("flaky"));
            rec.awaitCount(1);
            assertThat(rec.attempts()).extracting(r -> r.context().attempt()).containsExactly(1, 2, 3);
            assertThat(rec.received().get(0).context().isLastAttempt()).isTrue();
        }

        @Test
        @DisplayName("sends a message to the dead-letter destination after the last attempt, with error headers")
        void deadLettersAfterMaxAttempts() {
            String dest = destination();
            Recorder<String> dead = recorder();
            subscribe(deadLetterOf(dest), TEXT, "dlq-reader", Delivery.AT_LEAST_ONCE, dead);
            Recorder<String> rec = new Recorder<>(timeout(), r -> true);
            subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, rec);
            PublishReceipt receipt = join(publisher(dest, TEXT, Delivery.AT_LEAST_ONCE).publish(keyed("k-9", "doomed")));

            Message<String> dl = dead.awaitCount(1).received().get(0).message();
            assertThat(rec.attempts()).hasSize(3);
            assertThat(dl.payload()).isEqualTo("doomed");
            assertThat(dl.key()).isEqualTo("k-9");
            assertThat(dl.id()).isEqualTo(receipt.messageId());
            assertThat(dl.headers())
                    .containsEntry(Envelope.DEAD_LETTER_ATTEMPTS, "3")
                    .containsEntry(Envelope.ERROR_TYPE, IllegalStateException.class.getName())
                    .containsEntry(Envelope.ORIGINAL_DESTINATION, dest)
                    .containsEntry(Envelope.DEAD_LETTER_GROUP, "g")
                    .containsEntry(Envelope.DEAD_LETTER_REASON, "handler-failed");
            assertThat(dl.headers().get(Envelope.ERROR_MESSAGE)).contains("planned failure");
        }

        @Test
        @DisplayName("keeps later messages flowing while one message is retried and dead-lettered")
        void laterMessagesFlow() {
            String dest = destination();
            Recorder<String> dead = recorder();
            subscribe(deadLetterOf(dest), TEXT, "dlq-reader", Delivery.AT_LEAST_ONCE, dead);
            Recorder<String> rec = new Recorder<>(timeout(), r -> r.message().payload().equals("bad"));
            subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, rec);
            Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
            join(pub.publish(keyed("k", "good-1")));
            join(pub.publish(keyed("k", "bad")));
            join(pub.publish(keyed("k", "good-2")));
            assertThat(rec.awaitCount(2).payloads()).containsExactly("good-1", "good-2");
            assertThat(dead.awaitCount(1).payloads()).containsExactly("bad");
        }

        @Test
        @DisplayName("dead-letters at once when retries are off")
        void noRetryPolicy() {
            String dest = destination();
            Recorder<String> dead = recorder();
            subscribe(deadLetterOf(dest), TEXT, "dlq-reader", Delivery.AT_LEAST_ONCE, dead);
            Recorder<String> rec = new Recorder<>(timeout(), r -> true);
            subscribe(switchboard, dest, TEXT, b -> b.group("g").retry(RetryPolicy.NONE), rec);
            join(publisher(dest, TEXT, Delivery.AT_LEAST_ONCE).publish("once"));
            assertThat(dead.awaitCount(1).received().get(0).message().headers()).containsEntry(Envelope.DEAD_LETTER_ATTEMPTS, "1");
            assertThat(rec.attempts()).hasSize(1);
        }
    }

    @Nested
    @DisplayName("Exactly-once")
    class ExactlyOnce {

        @Test
        @DisplayName("handles each message id once when duplicates are published")
        void duplicatesHandledOnce() {
            String dest = destination();
            Recorder<String> rec = recorder();
            subscribe(dest, TEXT, "g", Delivery.EXACTLY_ONCE, rec);
            Publisher<String> pub = publisher(dest, TEXT, Delivery.EXACTLY_ONCE);
            for (int i = 0; i < 10; i++) {
                Message<String> m = Message.builder("p" + i).key("k").id("dup-" + i).build();
                join(pub.publish(m));
                join(pub.publish(m));
                if (i % 3 == 0) {
                    join(pub.publish(m));
                }
            }
            join(pub.publish(Message.builder("marker").key("k").id("marker").build()));
            rec.awaitCount(11);
            assertThat(rec.payloads()).containsExactly("p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "marker");
        }

        @Test
        @DisplayName("lets a retry handle a message whose first attempt failed")
        void failedAttemptReleasesTheId() {
            String dest = destination();
            Recorder<String> rec = new Recorder<>(timeout(), r -> r.context().attempt() == 1);
            subscribe(dest, TEXT, "g", Delivery.EXACTLY_ONCE, rec);
            join(publisher(dest, TEXT, Delivery.EXACTLY_ONCE).publish(Message.builder("retry-me").id("eo-1").build()));
            assertThat(rec.awaitCount(1).payloads()).containsExactly("retry-me");
            assertThat(rec.attempts()).hasSize(2);
        }

        @Test
        @DisplayName("deduplicates per consumer group: each group handles the id once")
        void perGroup() {
            String dest = destination();
            Recorder<String> a = recorder();
            Recorder<String> b = recorder();
            subscribe(dest, TEXT, "a", Delivery.EXACTLY_ONCE, a);
            subscribe(dest, TEXT, "b", Delivery.EXACTLY_ONCE, b);
            Publisher<String> pub = publisher(dest, TEXT, Delivery.EXACTLY_ONCE);
            Message<String> m = Message.builder("once").key("k").id("same-id").build();
            join(pub.publish(m));
            join(pub.publish(m));
            join(pub.publish(Message.builder("end").key("k").build()));
            assertThat(a.awaitCount(2).payloads()).containsExactly("once", "end");
            assertThat(b.awaitCount(2).payloads()).containsExactly("once", "end");
        }
    }

    @Nested
    @DisplayName("A poison message")
    class Poison {

        @Test
        @DisplayName("that cannot be decoded goes straight to the dead-letter destination")
        void undecodableToDlq() {
            String dest = destination();
            Recorder<byte[]> dead = recorder();
            subscribe(deadLetterOf(dest), Codec.bytes(), "dlq-reader", Delivery.AT_LEAST_ONCE, dead);
            Recorder<BrokerContract.Order> rec = recorder();
            subscribe(dest, Codec.json(Order.class), "g", Delivery.AT_LEAST_ONCE, rec);
            byte[] garbage = "{not json".getBytes(StandardCharsets.UTF_8);
            join(publisher(dest, Codec.bytes(), Delivery.AT_LEAST_ONCE).publish(garbage));
            Received<byte[]> dl = dead.awaitCount(1).received().get(0);
            assertThat(dl.message().payload()).isEqualTo(garbage);
            assertThat(dl.message().headers()).containsEntry(Envelope.DEAD_LETTER_REASON, "undecodable")
                    .containsKey(Envelope.ERROR_MESSAGE);
            assertThat(rec.attempts()).isEmpty();
        }

        @Test
        @DisplayName("does not block the messages behind it")
        void laterMessagesStillFlow() {
            String dest = destination();
            Recorder<byte[]> dead = recorder();
            subscribe(deadLetterOf(dest), Codec.bytes(), "dlq-reader", Delivery.AT_LEAST_ONCE, dead);
            Recorder<BrokerContract.Order> rec = recorder();
            subscribe(dest, Codec.json(Order.class), "g", Delivery.AT_LEAST_ONCE, rec);
            Publisher<byte[]> raw = publisher(dest, Codec.bytes(), Delivery.AT_LEAST_ONCE);
            Publisher<Order> orders = publisher(dest, Codec.json(Order.class), Delivery.AT_LEAST_ONCE);
            join(raw.publish(Message.builder("[[[".getBytes(StandardCharsets.UTF_8)).key("k").build()));
            for (int i = 0; i < 5; i++) {
                join(orders.publish(Message.builder(new Order("o" + i, i, List.of())).key("k").build()));
            }
            assertThat(rec.awaitCount(5).payloads()).extracting(Order::id).containsExactly("o0", "o1", "o2", "o3", "o4");
            dead.awaitCount(1);
        }

        @Test
        @DisplayName("with invalid UTF-8 for a text subscriber is dead-lettered")
        void invalidUtf8() {
            String dest = destination();
            Recorder<byte[]> dead = recorder();
            subscribe(deadLetterOf(dest), Codec.bytes(), "dlq-reader", Delivery.AT_LEAST_ONCE, dead);
            Recorder<String> rec = recorder();
            subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, rec);
            join(publisher(dest, Codec.bytes(), Delivery.AT_LEAST_ONCE).publish(new byte[] {(byte) 0xC3, (byte) 0x28}));
            assertThat(dead.awaitCount(1).received().get(0).message().headers())
                    .containsEntry(Envelope.DEAD_LETTER_REASON, "undecodable");
            assertThat(rec.attempts()).isEmpty();
        }
    }

    @Nested
    @DisplayName("Closing")
    class Closing {

        @Test
        @DisplayName("a subscription lets handlers in flight finish and loses nothing")
        void gracefulCloseLosesNothing() throws Exception {
            String dest = destination();
            CountDownLatch inHandler = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            List<String> handled = java.util.Collections.synchronizedList(new ArrayList<>());
            Subscription first = subscribe(switchboard, dest, TEXT, b -> b.group("g").maxInFlight(8), (m, c) -> {
                if (m.payload().equals("m0")) {
                    inHandler.countDown();
                    release.await(timeout().toMillis(), TimeUnit.MILLISECONDS);
                }
                handled.add(m.payload());
            });
            Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
            for (int i = 0; i < 40; i++) {
                join(pub.publish(keyed("k", "m" + i)));
            }
            assertThat(inHandler.await(timeout().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            ExecutorService closer = Executors.newSingleThreadExecutor();
            try {
                CompletableFuture<Void> closing = CompletableFuture.runAsync(first::close, closer);
                release.countDown();
                join(closing);
            } finally {
                closer.shutdown();
            }
            assertThat(handled).contains("m0");
            assertThat(join(first.terminated())).isNull();

            Recorder<String> second = recorder();
            subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, second);
            await().atMost(timeout()).until(() -> {
                List<String> all = new ArrayList<>(handled);
                all.addAll(second.payloads());
                return all.stream().distinct().count() == 40;
            });
            assertThat(second.payloads()).doesNotContain("m0");
        }

        @Test
        @DisplayName("a publisher refuses to publish after close")
        void publishAfterClose() {
            Publisher<String> pub = publisher(destination(), TEXT, Delivery.AT_LEAST_ONCE);
            pub.close();
            pub.close();
            assertThatThrownBy(() -> pub.publish("late")).isInstanceOf(SwitchboardClosedException.class)
                    .hasMessageContaining("closed");
        }

        @Test
        @DisplayName("the Switchboard closes what it made and refuses new work")
        void switchboardClosesEverything() {
            String dest = destination();
            Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
            Subscription sub = subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, recorder());
            switchboard.close();
            assertThat(sub.isActive()).isFalse();
            assertThatThrownBy(() -> pub.publish("late")).isInstanceOf(SwitchboardClosedException.class);
            assertThatThrownBy(() -> switchboard.publisher(dest, TEXT)).isInstanceOf(SwitchboardClosedException.class);
        }

        @Test
        @DisplayName("a subscription's close is idempotent and completes terminated()")
        void closeIsIdempotent() {
            Subscription sub = subscribe(destination(), TEXT, "g", Delivery.AT_LEAST_ONCE, recorder());
            sub.close();
            sub.close();
            assertThat(sub.isActive()).isFalse();
            assertThat(sub.terminated().toCompletableFuture()).isCompleted();
        }
    }

    @Nested
    @DisplayName("Under load")
    class UnderLoad {

        @Test
        @DisplayName("many concurrent publisher threads lose nothing")
        void concurrentPublishers() throws Exception {
            String dest = destination();
            Recorder<String> rec = recorder();
            subscribe(switchboard, dest, TEXT, b -> b.group("g").concurrency(4), rec);
            Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
            ExecutorService threads = Executors.newFixedThreadPool(8);
            try {
                List<CompletableFuture<Void>> done = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    int thread = t;
                    done.add(CompletableFuture.runAsync(() -> {
                        List<CompletableFuture<PublishReceipt>> sent = new ArrayList<>();
                        for (int i = 0; i < 250; i++) {
                            sent.add(pub.publish("t" + thread + "-" + i).toCompletableFuture());
                        }
                        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).join();
                    }, threads));
                }
                join(CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)));
            } finally {
                threads.shutdown();
            }
            assertThat(rec.awaitCount(2000).payloads()).hasSize(2000).doesNotHaveDuplicates();
        }

        @Test
        @DisplayName("a 10,000-message run arrives with exact counts")
        void tenThousand() {
            String dest = destination();
            Recorder<String> rec = recorder();
            subscribe(switchboard, dest, TEXT, b -> b.group("g").concurrency(2).maxInFlight(1000), rec);
            Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
            List<CompletableFuture<PublishReceipt>> sent = new ArrayList<>(10_000);
            for (int i = 0; i < 10_000; i++) {
                sent.add(pub.publish(keyed("k" + (i % 16), Integer.toString(i))).toCompletableFuture());
            }
            join(CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)));
            rec.awaitCount(10_000);
            assertThat(rec.payloads()).hasSize(10_000).doesNotHaveDuplicates();
            assertThat(rec.ids()).hasSize(10_000);
        }
    }

    @Nested
    @DisplayName("Bad input")
    class BadInput {

        @Test
        @DisplayName("an illegal destination name is refused, naming the name and the rule")
        void illegalDestination() {
            String bad = "no spaces/or slashes allowed!";
            assertThatThrownBy(() -> switchboard.publisher(bad, TEXT).build())
                    .isInstanceOf(InvalidDestinationException.class).hasMessageContaining(bad).hasMessageContaining(brokerId());
            assertThatThrownBy(() -> switchboard.subscriber(bad, TEXT).subscribe((m, c) -> { }))
                    .isInstanceOf(InvalidDestinationException.class).hasMessageContaining(bad);
        }

        @Test
        @DisplayName("an oversized payload is refused before sending, naming size and limit")
        void oversized() {
            Publisher<byte[]> pub = publisher(destination(), Codec.bytes(), Delivery.AT_LEAST_ONCE);
            int limit = capabilities().maxMessageSize();
            assertThatThrownBy(() -> pub.publish(new byte[limit + 1]))
                    .isInstanceOf(MessageTooLargeException.class).hasMessageContaining(Integer.toString(limit));
        }

        @Test
        @DisplayName("a null payload is refused")
        void nullPayload() {
            Publisher<String> pub = publisher(destination(), TEXT, Delivery.AT_LEAST_ONCE);
            assertThatThrownBy(() -> pub.publish((String) null)).isInstanceOf(InvalidMessageException.class)
                    .hasMessageContaining("null payload");
        }

        @Test
        @DisplayName("an unknown codec name is refused, listing the known ones")
        void unknownCodec() {
            assertThatThrownBy(() -> Codec.named("avro", Order.class)).isInstanceOf(UnknownCodecException.class)
                    .hasMessageContaining("avro").hasMessageContaining("json");
        }

        @Test
        @DisplayName("a header name reserved for the envelope is refused")
        void reservedHeader() {
            assertThatThrownBy(() -> Message.builder("x").header(Envelope.ID, "forged"))
                    .isInstanceOf(InvalidMessageException.class).hasMessageContaining(Envelope.ID);
        }

        @Test
        @DisplayName("an unknown broker id is refused, listing the ids on the classpath")
        void unknownBroker() {
            assertThatThrownBy(() -> Switchboard.create("carrier-pigeon")).isInstanceOf(UnknownBrokerException.class)
                    .hasMessageContaining("carrier-pigeon").hasMessageContaining(brokerId());
        }

        @Test
        @DisplayName("a malformed property is refused, naming key and value")
        void brokenConfig() {
            Switchboard broken = Switchboard.builder().broker(brokerId()).properties(brokerProperties())
                    .property("switchboard.partitions", "many").build();
            try {
                assertThatThrownBy(() -> broken.publisher(destination(), TEXT).build())
                        .isInstanceOf(ConfigurationException.class)
                        .hasMessageContaining("switchboard.partitions").hasMessageContaining("many");
            } finally {
                broken.close();
            }
        }

        @Test
        @DisplayName("a delay is refused by a broker without delayed delivery")
        void delayWithoutCapability() {
            assumeFalse(capabilities().delayedDelivery(), "broker '" + brokerId() + "' supports delayed delivery");
            Publisher<String> pub = publisher(destination(), TEXT, Delivery.AT_LEAST_ONCE);
            assertThatThrownBy(() -> pub.publish(Message.builder("later").delay(Duration.ofSeconds(2)).build()))
                    .isInstanceOf(UnsupportedCapabilityException.class).hasMessageContaining(brokerId());
        }

        @Test
        @DisplayName("a filter is refused by a broker without broker-side filtering")
        void filterWithoutCapability() {
            assumeFalse(capabilities().filtering(), "broker '" + brokerId() + "' supports filtering");
            assertThatThrownBy(() -> switchboard.subscriber(destination(), TEXT).filter("tagA").subscribe((m, c) -> { }))
                    .isInstanceOf(UnsupportedCapabilityException.class).hasMessageContaining(brokerId());
        }
    }

    @Nested
    @DisplayName("Delayed delivery")
    class Delayed {

        @Test
        @DisplayName("arrives no earlier than asked")
        void arrivesNoEarlier() {
            assumeTrue(capabilities().delayedDelivery(), "broker '" + brokerId() + "' does not declare delayed delivery");
            String dest = destination();
            Recorder<String> rec = recorder();
            subscribe(dest, TEXT, "g", Delivery.AT_LEAST_ONCE, rec);
            long sentAt = System.currentTimeMillis();
            join(publisher(dest, TEXT, Delivery.AT_LEAST_ONCE).publish(Message.builder("later").delay(Duration.ofSeconds(2)).build()));
            rec.awaitCount(1);
            long arrivedAfter = System.currentTimeMillis() - sentAt;
            assertThat(arrivedAfter).as("delivery no earlier than the delay").isGreaterThanOrEqualTo(2000 - 1000);
        }
    }
}
