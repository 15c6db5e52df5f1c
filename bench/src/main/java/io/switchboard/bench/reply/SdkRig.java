package io.switchboard.bench.reply;

import io.switchboard.Codec;
import io.switchboard.Delivery;
import io.switchboard.Message;
import io.switchboard.Requester;
import io.switchboard.Subscription;
import io.switchboard.Switchboard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Switchboard's request/reply: one {@link Requester} in a Switchboard of its own, and each responder a replying
 * subscription in a Switchboard of its own (as separate services), one group.
 */
final class SdkRig implements Rig {

    private final String broker;
    private final List<Switchboard> switchboards = new ArrayList<>();
    private final Requester<byte[], byte[]> requester;

    SdkRig(String broker, Map<String, String> properties, String destination, int responders, int dropPercent,
            Duration timeout, Delivery delivery) {
        this.broker = broker;
        AtomicLong seen = new AtomicLong();
        for (int i = 0; i < responders; i++) {
            Switchboard sb = Switchboard.builder().broker(broker).properties(properties).build();
            switchboards.add(sb);
            Subscription s = sb.subscriber(destination, Codec.bytes()).group("responders")
                    .subscribeReplying(Codec.bytes(), (m, c) -> RequestReplyBench.drops(seen.incrementAndGet(), dropPercent)
                            ? null : m.payload());
            s.ready().toCompletableFuture().orTimeout(60, TimeUnit.SECONDS).join();
        }
        Switchboard sb = Switchboard.builder().broker(broker).properties(properties).build();
        switchboards.add(sb);
        requester = sb.requester(destination, Codec.bytes(), Codec.bytes()).timeout(timeout).delivery(delivery).build();
    }

    @Override
    public String name() {
        return broker + " sdk";
    }

    @Override
    public void request(byte[] payload, Outcome outcome) {
        Rig.completes(requester.request(Message.of(payload)), outcome);
    }

    @Override
    public int pending() {
        return requester.pending();
    }

    @Override
    public void close() {
        requester.close();
        switchboards.forEach(Switchboard::close);
    }
}
