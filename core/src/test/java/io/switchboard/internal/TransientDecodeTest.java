package io.switchboard.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.switchboard.Codec;
import io.switchboard.CodecException;
import io.switchboard.Switchboard;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
@DisplayName("A payload whose codec fails transiently is read again later, not dead-lettered")
class TransientDecodeTest {

    /** A codec that cannot decode while what it waits on (a schema registry, say) does not answer. */
    static final class WaitingCodec implements Codec<String> {
        final AtomicInteger outages;
        final AtomicInteger calls = new AtomicInteger();

        WaitingCodec(int outages) {
            this.outages = new AtomicInteger(outages);
        }

        @Override
        public byte[] encode(String value) {
            return value.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String decode(byte[] bytes) {
            calls.incrementAndGet();
            if (outages.getAndDecrement() > 0) {
                throw new CodecException("the registry did not answer") {
                    @Override
                    public boolean isTransient() {
                        return true;
                    }
                };
            }
            return new String(bytes, StandardCharsets.UTF_8);
        }

        @Override
        public String contentType() {
            return "text/plain; charset=utf-8";
        }
    }

    @Test
    @DisplayName("two transient failures: the message is handled at the third read, nothing reaches the dead letters")
    void readAgainAfterOutage() {
        Map<String, String> props = Map.of("memory.broker", "transient-" + UUID.randomUUID());
        try (Switchboard sb = Switchboard.builder().instance("main", "memory", props).build()) {
            List<String> handled = new CopyOnWriteArrayList<>();
            AtomicInteger deadLetters = new AtomicInteger();
            var dlq = sb.subscriber("prices.dlq", Codec.bytes()).group("audit").subscribe((m, c) -> deadLetters.incrementAndGet());
            WaitingCodec codec = new WaitingCodec(2);
            var subscription = sb.subscriber("prices", codec).group("quotes").subscribe((m, c) -> handled.add(m.payload()));
            dlq.ready().toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
            subscription.ready().toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
            sb.publisher("prices", Codec.utf8()).build().publish("42.10").toCompletableFuture().orTimeout(30, TimeUnit.SECONDS)
                    .join();
            await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() == 1);
            assertThat(handled).containsExactly("42.10");
            assertThat(codec.calls).hasValue(3);
            assertThat(deadLetters).hasValue(0);
        }
    }
}
