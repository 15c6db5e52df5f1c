package io.switchboard.internal.provision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.PublishException;
import io.switchboard.SwitchboardClosedException;
import io.switchboard.SwitchboardException;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.spi.Provisioner;
import io.switchboard.spi.RawPublisher;
import io.switchboard.spi.SendResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Provisioning in batched rounds off the caller's thread (pure logic, a recording provisioner)")
class ProvisionQueueTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    /** Records each call's names; refuses names starting with "bad"; the first round can be held on a latch. */
    private static final class Recording implements Provisioner {
        final List<List<String>> calls = new CopyOnWriteArrayList<>();
        final CountDownLatch entered = new CountDownLatch(2);
        volatile CountDownLatch hold = new CountDownLatch(0);
        volatile String unreachable;

        @Override
        public void ensureDestination(DestinationSpec spec) {
            ensureDestinations(List.of(spec));
        }

        @Override
        public void ensureDestinations(List<DestinationSpec> specs) {
            List<String> names = specs.stream().map(DestinationSpec::name).toList();
            calls.add(names);
            entered.countDown();
            try {
                if (!hold.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never released the held round");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (unreachable != null) {
                throw new SwitchboardException(unreachable);
            }
            names.stream().filter(n -> n.startsWith("bad")).findFirst().ifPresent(n -> {
                throw new SwitchboardException("refused '" + n + "'");
            });
        }

        @Override
        public void deleteDestination(String name) {
        }
    }

    private final Recording provisioner = new Recording();
    private final ProvisionQueue queue = new ProvisionQueue("i1", provisioner, d -> DestinationSpec.of(d, 1), false);

    @AfterEach
    void close() {
        provisioner.hold = new CountDownLatch(0);
        queue.close();
    }

    @Test
    @DisplayName("the first request runs on the caller's thread and throws its error there; a made destination is not asked again")
    void firstRequestInline() {
        assertThatThrownBy(() -> queue.submit(List.of("bad1"), null)).hasMessageContaining("refused 'bad1'");
        List<String> ran = new ArrayList<>();
        CompletableFuture<Void> done = queue.submit(List.of("a", "a.dlq"), () -> ran.add(Thread.currentThread().getName()));
        assertThat(done).isCompleted();
        assertThat(ran).containsExactly(Thread.currentThread().getName());
        assertThat(queue.submit(List.of("a"), null)).isCompleted();
        assertThat(provisioner.calls).containsExactly(List.of("bad1"), List.of("a", "a.dlq"));
    }

    @Test
    @DisplayName("requests made while a round runs go together into the next round's one call, starts after it, a few at once")
    void batchesWhatWaits() throws Exception {
        CompletableFuture<Void> held = holdARound();
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        java.util.Set<String> starters = java.util.concurrent.ConcurrentHashMap.newKeySet();
        List<CompletableFuture<Void>> later = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            String name = "d" + i;
            later.add(queue.submit(List.of(name, name + ".dlq"), () -> {
                order.add(name);
                starters.add(Thread.currentThread().getName());
            }));
        }
        CompletableFuture<Integer> startedBeforePublisher = queue.submit(List.of("d0"), null).thenApply(v -> order.size());
        assertThat(held).isNotDone();
        provisioner.hold.countDown();
        CompletableFuture.allOf(later.toArray(CompletableFuture[]::new)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(provisioner.calls).hasSize(3);
        assertThat(provisioner.calls.get(2)).hasSize(100).contains("d0", "d49.dlq");
        assertThat(order).hasSize(50).doesNotHaveDuplicates();
        assertThat(starters).hasSizeLessThanOrEqualTo(ProvisionQueue.STARTERS)
                .allMatch(name -> name.startsWith("switchboard-provision[i1]"));
        assertThat(startedBeforePublisher).as("a publisher's request completes after the round's starts").succeedsWithin(WAIT)
                .isEqualTo(50);
        assertThat(Thread.getAllStackTraces().keySet()).anyMatch(t -> t.getName().equals("switchboard-provision[i1]"));
    }

    @Test
    @DisplayName("a deferred destination (a dead-letter one) is made after the round's starts, and pending() tells when")
    void deferredAfterStarts() throws Exception {
        holdARound();
        List<CompletableFuture<Void>> pendingAtStart = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> one = queue.submit(List.of("s1"), List.of("s1.dlq"),
                () -> pendingAtStart.add(queue.pending("s1.dlq")));
        CompletableFuture<Void> two = queue.submit(List.of("s2"), List.of("s2.dlq"),
                () -> pendingAtStart.add(queue.pending("s2.dlq")));
        provisioner.hold.countDown();
        assertThat(one).succeedsWithin(WAIT);
        assertThat(two).succeedsWithin(WAIT);
        assertThat(pendingAtStart).hasSize(2).allSatisfy(f -> assertThat(f).isNotNull().succeedsWithin(WAIT));
        assertThat(provisioner.calls).containsSubsequence(List.of("s1", "s2"), List.of("s1.dlq", "s2.dlq"));
        await(() -> queue.pending("s1.dlq") == null);
        assertThat(queue.submit(List.of("s1"), List.of("s1.dlq"), null)).as("all made: inline").isCompleted();
    }

    @Test
    @DisplayName("a publisher's request completes after the round's starts, without waiting for its deferred destinations")
    void publisherDoesNotWaitForDeferred() throws Exception {
        holdARound();
        CountDownLatch deferredHeld = new CountDownLatch(1);
        // the start holds what comes next on the worker: the round's deferred call
        CompletableFuture<Void> subscribed = queue.submit(List.of("s1"), List.of("s1.dlq"), () -> provisioner.hold = deferredHeld);
        CompletableFuture<Void> published = queue.submit(List.of("p1"), null);
        provisioner.hold.countDown();
        assertThat(subscribed).succeedsWithin(WAIT);
        assertThat(published).as("the publisher's destination is made and the round's starts ran").succeedsWithin(WAIT);
        CompletableFuture<Void> deadLetter = queue.pending("s1.dlq");
        assertThat(deadLetter).as("the dead-letter destination is still being made").isNotNull().isNotDone();
        deferredHeld.countDown();
        assertThat(deadLetter).succeedsWithin(WAIT);
    }

    @Test
    @DisplayName("deferred destinations wait while requests do: the next round is made before them")
    void deferredAfterWaitingRounds() throws Exception {
        queue.submit(List.of("first"), null);
        List<CompletableFuture<Void>> asked = new CopyOnWriteArrayList<>();
        // asked while the round runs (its start): waits, and goes before the round's dead-letter destination
        CompletableFuture<Void> started = queue.submit(List.of("s1"), List.of("s1.dlq"),
                () -> asked.add(queue.submit(List.of("p2"), null)));
        assertThat(started).succeedsWithin(WAIT);
        assertThat(asked).hasSize(1).allSatisfy(f -> assertThat(f).succeedsWithin(WAIT));
        await(() -> queue.pending("s1.dlq") == null);
        assertThat(provisioner.calls).containsExactly(List.of("first"), List.of("s1"), List.of("p2"), List.of("s1.dlq"));
    }

    @Test
    @DisplayName("deferred destinations wait for what the round's starts began (a subscription's readiness), up to a bound")
    void deferredWaitForSettled() throws Exception {
        queue.submit(List.of("first"), null);
        CompletableFuture<Void> ready = new CompletableFuture<>();
        assertThat(queue.submit(List.of("s1"), List.of("s1.dlq"), () -> { }, ready)).succeedsWithin(WAIT);
        org.awaitility.Awaitility.await("no dead-letter call before the subscription is ready")
                .during(Duration.ofMillis(300)).atMost(WAIT).until(() -> !provisioner.calls.contains(List.of("s1.dlq")));
        ready.complete(null);
        await(() -> queue.pending("s1.dlq") == null);
        assertThat(provisioner.calls).containsExactly(List.of("first"), List.of("s1"), List.of("s1.dlq"));

        long began = System.nanoTime();
        queue.submit(List.of("s2"), List.of("s2.dlq"), () -> { }, new CompletableFuture<>()); // never ready
        await(() -> queue.pending("s2.dlq") == null);
        assertThat(Duration.ofNanos(System.nanoTime() - began)).as("made after the bound, not never")
                .isGreaterThanOrEqualTo(Duration.ofSeconds(ProvisionQueue.SETTLE_SECONDS - 1));
        assertThat(provisioner.calls).endsWith(List.of("s2"), List.of("s2.dlq"));
    }

    @Test
    @DisplayName("a subscription to a destination made already starts on the caller's thread; its dead-letter one follows")
    void madeAlreadyStartsInline() throws Exception {
        queue.submit(List.of("orders"), null);
        // hold the dead-letter round: unheld, the worker could make orders.dlq before the start looks (a flake in CI)
        provisioner.hold = new CountDownLatch(1);
        List<String> ranOn = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> pendingAtStart = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> started = queue.submit(List.of("orders"), List.of("orders.dlq"), () -> {
            ranOn.add(Thread.currentThread().getName());
            pendingAtStart.add(queue.pending("orders.dlq"));
        });
        assertThat(started).isCompleted();
        assertThat(ranOn).containsExactly(Thread.currentThread().getName());
        CompletableFuture<Void> deadLetter = pendingAtStart.get(0);
        provisioner.hold.countDown();
        assertThat(deadLetter).as("the dead-letter destination's publisher waits for it").isNotNull()
                .succeedsWithin(WAIT);
        assertThat(provisioner.calls).containsExactly(List.of("orders"), List.of("orders.dlq"));
    }

    @Test
    @DisplayName("a destination the application made through provisioning() starts its subscription on the caller's thread")
    void madeThroughTheViewStartsInline() throws Exception {
        queue.submit(List.of("first"), null);
        queue.view().ensureDestinations(List.of(DestinationSpec.of("orders", 8)));
        provisioner.hold = new CountDownLatch(1); // hold the next round: the dead-letter one
        List<String> ranOn = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> started = queue.submit(List.of("orders"), List.of("orders.dlq"),
                () -> ranOn.add(Thread.currentThread().getName()));
        assertThat(started).as("not queued behind a round").isCompleted();
        assertThat(ranOn).containsExactly(Thread.currentThread().getName());
        CompletableFuture<Void> deadLetter = queue.pending("orders.dlq");
        provisioner.hold.countDown();
        assertThat(deadLetter).as("the dead-letter destination follows in a round").isNotNull().succeedsWithin(WAIT);
        assertThat(provisioner.calls).as("orders made once, by the application")
                .containsExactly(List.of("first"), List.of("orders"), List.of("orders.dlq"));
    }

    @Test
    @DisplayName("with switchboard.provisioning=inline every request runs on the caller's thread, all at once")
    void inlineMode() {
        try (ProvisionQueue inline = new ProvisionQueue("i2", provisioner, d -> DestinationSpec.of(d, 1), true)) {
            inline.submit(List.of("a"), null);
            List<String> ranOn = new ArrayList<>();
            assertThat(inline.submit(List.of("b"), List.of("b.dlq"), () -> ranOn.add(Thread.currentThread().getName())))
                    .isCompleted();
            assertThat(ranOn).containsExactly(Thread.currentThread().getName());
            assertThat(provisioner.calls).containsExactly(List.of("a"), List.of("b", "b.dlq"));
            assertThatThrownBy(() -> inline.submit(List.of("bad3"), null)).hasMessageContaining("refused 'bad3'");
        }
    }

    @Test
    @DisplayName("a refused destination fails its own request only; the others of the round are made")
    void refusedOneByOne() throws Exception {
        holdARound();
        CompletableFuture<Void> good1 = queue.submit(List.of("g1"), null);
        CompletableFuture<Void> bad = queue.submit(List.of("bad2"), null);
        CompletableFuture<Void> good2 = queue.submit(List.of("g2"), null);
        provisioner.hold.countDown();
        assertThat(good1).succeedsWithin(WAIT);
        assertThat(good2).succeedsWithin(WAIT);
        assertThat(bad).failsWithin(WAIT).withThrowableOfType(ExecutionException.class).withMessageContaining("refused 'bad2'");
        assertThat(provisioner.calls).contains(List.of("g1", "bad2", "g2"), List.of("g1"), List.of("bad2"), List.of("g2"));
    }

    @Test
    @DisplayName("after two requests in a row failed one by one, the rest fail with the round's error without more calls")
    void brokerGoneFailsTheRest() throws Exception {
        holdARound();
        List<CompletableFuture<Void>> round = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            round.add(queue.submit(List.of("x" + i), null));
        }
        provisioner.unreachable = "broker gone";
        provisioner.hold.countDown();
        for (CompletableFuture<Void> request : round) {
            assertThat(request).failsWithin(WAIT).withThrowableOfType(ExecutionException.class)
                    .withMessageContaining("broker gone");
        }
        int roundCall = provisioner.calls.indexOf(List.of("x0", "x1", "x2", "x3", "x4"));
        assertThat(provisioner.calls.subList(roundCall + 1, provisioner.calls.size())).containsExactly(List.of("x0"), List.of("x1"));
    }

    @Test
    @DisplayName("close fails what waits, and no provisioning thread remains")
    void closeFailsWaiting() throws Exception {
        CompletableFuture<Void> held = holdARound();
        List<String> ran = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> waiting = queue.submit(List.of("w"), () -> ran.add("w"));
        Thread releaser = new Thread(() -> {
            sleepQuietly(200);
            provisioner.hold.countDown();
        });
        releaser.start();
        queue.close();
        assertThat(waiting).failsWithin(WAIT).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(SwitchboardClosedException.class);
        assertThat(held).isDone();
        assertThat(ran).isEmpty();
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals("switchboard-provision[i1]"));
        assertThatThrownBy(() -> queue.submit(List.of("after"), null)).isInstanceOf(SwitchboardClosedException.class);
    }

    @Test
    @DisplayName("a send waits for its destination, then goes straight through; a destination not made fails each send, naming it")
    void sendsWaitForTheDestination() throws Exception {
        List<OutboundRecord> sent = new CopyOnWriteArrayList<>();
        RawPublisher raw = new Kept(sent);
        CompletableFuture<Void> provisioned = new CompletableFuture<>();
        AwaitingDestination awaiting = new AwaitingDestination(raw, provisioned, "orders", "i1", WAIT);
        OutboundRecord record = new OutboundRecord("orders", null, Map.of(), new byte[] {1}, 0);
        CompletableFuture<CompletableFuture<SendResult>> sending = CompletableFuture.supplyAsync(() -> awaiting.send(record));
        sleepQuietly(100);
        assertThat(sent).as("nothing sent before the destination is made").isEmpty();
        provisioned.complete(null);
        assertThat(sending.get(WAIT.toSeconds(), TimeUnit.SECONDS)).succeedsWithin(WAIT);
        assertThat(sent).hasSize(1);

        AwaitingDestination refused = new AwaitingDestination(raw, CompletableFuture.failedFuture(
                new SwitchboardException("Kafka refused to create topic 'bad'")), "bad", "i1", WAIT);
        assertThat(refused.send(record)).failsWithin(WAIT).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(PublishException.class).withMessageContaining("Destination 'bad' could not be provisioned")
                .withMessageContaining("Kafka refused to create topic 'bad'");
        AwaitingDestination slow = new AwaitingDestination(raw, new CompletableFuture<>(), "slow", "i1", Duration.ofMillis(50));
        assertThat(slow.send(record)).failsWithin(WAIT).withThrowableOfType(ExecutionException.class)
                .withMessageContaining("'slow' was still being provisioned on broker instance 'i1' after PT0.05S");
        assertThat(sent).hasSize(1);
    }

    /** Creates at once; the destinations take writes when the test releases {@code writable} (or never: {@code unwritable}). */
    private static final class TwoStep implements Provisioner {
        final List<String> events = new CopyOnWriteArrayList<>();
        volatile CountDownLatch writable = new CountDownLatch(0);
        volatile String unwritable;

        @Override
        public void ensureDestination(DestinationSpec spec) {
            createDestinations(List.of(spec)).run();
        }

        @Override
        public void ensureDestinations(List<DestinationSpec> specs) {
            createDestinations(specs).run();
        }

        @Override
        public Runnable createDestinations(List<DestinationSpec> specs) {
            List<String> names = specs.stream().map(DestinationSpec::name).toList();
            events.add("created " + names);
            CountDownLatch latch = writable;
            return () -> {
                try {
                    if (!latch.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                        throw new IllegalStateException("the test never let " + names + " take writes");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                if (unwritable != null) {
                    throw new SwitchboardException(unwritable + " " + names);
                }
                events.add("writable " + names);
            };
        }

        @Override
        public void deleteDestination(String name) {
        }
    }

    /** A queue that provisioned once inline; what {@code twoStep} creates next takes writes when the test says. */
    private static ProvisionQueue heldWrites(TwoStep twoStep, String instance) {
        ProvisionQueue queue = new ProvisionQueue(instance, twoStep, d -> DestinationSpec.of(d, 1), false);
        queue.submit(List.of("first"), null);
        twoStep.writable = new CountDownLatch(1);
        return queue;
    }

    @Test
    @DisplayName("a round's subscriptions start once its destinations are created; every request completes once they take writes")
    void startsBeforeWritable() throws Exception {
        TwoStep twoStep = new TwoStep();
        try (ProvisionQueue split = heldWrites(twoStep, "i2")) {
            CompletableFuture<Void> subscription = split.submit(List.of("s1"), List.of("s1.dlq"),
                    () -> twoStep.events.add("started s1"), null);
            CompletableFuture<Void> publisher = split.submit(List.of("s1"), null);
            await(() -> twoStep.events.contains("started s1"));
            assertThat(twoStep.events).containsSubsequence("created [s1]", "started s1").doesNotContain("writable [s1]");
            assertThat(subscription).as("the subscription's request waits for writes").isNotDone();
            assertThat(publisher).as("the publisher's request waits for writes").isNotDone();
            assertThat(split.submit(List.of("s1"), null)).as("s1 is not counted as made before it takes writes").isNotDone();
            twoStep.writable.countDown();
            assertThat(subscription).succeedsWithin(WAIT);
            assertThat(publisher).succeedsWithin(WAIT);
            assertThat(split.pending("s1.dlq")).satisfiesAnyOf(f -> assertThat(f).isNull(), f -> assertThat(f).succeedsWithin(WAIT));
            assertThat(twoStep.events).containsSubsequence("created [s1]", "started s1", "writable [s1]")
                    .contains("created [s1.dlq]", "writable [s1.dlq]");

            twoStep.writable = new CountDownLatch(0);
            twoStep.unwritable = "no leader for";
            List<String> started = new CopyOnWriteArrayList<>();
            CompletableFuture<Void> late = split.submit(List.of("s2"), List.of("s2.dlq"), () -> started.add("s2"), null);
            CompletableFuture<Void> latePublisher = split.submit(List.of("s2"), null);
            assertThat(late).as("a subscription whose destination never takes writes fails to start")
                    .failsWithin(WAIT).withThrowableOfType(ExecutionException.class).withMessageContaining("no leader for");
            assertThat(latePublisher).failsWithin(WAIT).withThrowableOfType(ExecutionException.class)
                    .withMessageContaining("no leader for");
            assertThat(started).containsExactly("s2");
            assertThat(split.pending("s2.dlq")).satisfiesAnyOf(f -> assertThat(f).isNull(), f -> assertThat(f).isCompletedExceptionally());
        }
    }

    @Test
    @DisplayName("the next round's destinations are created while an earlier round waits for writes; one of its destinations is not created twice")
    void nextRoundWhileWaitingForWrites() throws Exception {
        TwoStep twoStep = new TwoStep();
        try (ProvisionQueue split = heldWrites(twoStep, "i3")) {
            CompletableFuture<Void> subscription = split.submit(List.of("s3"), () -> twoStep.events.add("started s3"));
            await(() -> twoStep.events.contains("started s3"));
            CompletableFuture<Void> other = split.submit(List.of("s4"), null);
            CompletableFuture<Void> same = split.submit(List.of("s3"), null);
            await(() -> twoStep.events.contains("created [s4]"));
            assertThat(twoStep.events).as("created while [s3] waits for writes").doesNotContain("writable [s3]");
            assertThat(List.of(subscription, other, same)).noneMatch(CompletableFuture::isDone);
            twoStep.writable.countDown();
            assertThat(CompletableFuture.allOf(subscription, other, same)).succeedsWithin(WAIT);
            assertThat(twoStep.events).containsOnlyOnce("created [s3]").contains("writable [s3]", "writable [s4]");
        }
    }

    /** Provisions once inline, then holds the worker's first round so that what is asked next waits for the round after. */
    private CompletableFuture<Void> holdARound() throws InterruptedException {
        queue.submit(List.of("first"), null);
        provisioner.hold = new CountDownLatch(1);
        CompletableFuture<Void> held = queue.submit(List.of("held"), null);
        assertThat(provisioner.entered.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the worker's first round began").isTrue();
        return held;
    }

    /** Keeps what it is given. */
    private record Kept(List<OutboundRecord> sent) implements RawPublisher {
        @Override
        public CompletableFuture<SendResult> send(OutboundRecord record) {
            sent.add(record);
            return CompletableFuture.completedFuture(new SendResult(0, sent.size()));
        }

        @Override
        public void close() {
        }
    }

    private static void await(java.util.function.BooleanSupplier condition) {
        org.awaitility.Awaitility.await("the condition").atMost(WAIT).until(condition::getAsBoolean);
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
