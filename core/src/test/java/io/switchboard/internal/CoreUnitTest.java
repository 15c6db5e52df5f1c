package io.switchboard.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.ConfigurationException;
import io.switchboard.RetryPolicy;
import io.switchboard.internal.envelope.Envelopes;
import io.switchboard.internal.envelope.MessageIds;
import io.switchboard.internal.idempotency.InMemoryIdempotencyStore;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.DestinationNameRule;
import io.switchboard.spi.IdempotencyStore.Claim;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class CoreUnitTest {

    @Nested
    @DisplayName("RetryPolicy")
    class Retry {
        @Test
        @DisplayName("grows the backoff exponentially up to the maximum")
        void exponential() {
            RetryPolicy p = new RetryPolicy(5, Duration.ofMillis(100), 2.0, Duration.ofMillis(350), 0.0);
            assertThat(p.backoffAfter(1)).isEqualTo(Duration.ofMillis(100));
            assertThat(p.backoffAfter(2)).isEqualTo(Duration.ofMillis(200));
            assertThat(p.backoffAfter(3)).isEqualTo(Duration.ofMillis(350));
        }

        @Test
        @DisplayName("keeps jitter within its spread")
        void jitter() {
            RetryPolicy p = new RetryPolicy(3, Duration.ofMillis(100), 1.0, Duration.ofMillis(100), 0.2);
            for (int i = 0; i < 200; i++) {
                assertThat(p.backoffAfter(1).toMillis()).isBetween(80L, 120L);
            }
        }

        @Test
        @DisplayName("refuses a bad value, naming it")
        void validates() {
            assertThatThrownBy(() -> new RetryPolicy(0, Duration.ZERO, 1.0, Duration.ZERO, 0.0))
                    .isInstanceOf(ConfigurationException.class).hasMessageContaining("but was 0");
            assertThatThrownBy(() -> new RetryPolicy(2, Duration.ofSeconds(2), 2.0, Duration.ofSeconds(1), 0.0))
                    .isInstanceOf(ConfigurationException.class).hasMessageContaining("maxBackoff");
        }
    }

    @Nested
    @DisplayName("BrokerConfig")
    class Config {
        @Test
        @DisplayName("masks secrets and URI passwords in toString and printable values")
        void masksSecrets() {
            BrokerConfig c = new BrokerConfig("a", "rabbitmq", Map.of(
                    "rabbitmq.uri", "amqp://guest:s3cret@localhost:5672/", "kafka.sasl.jaas.config", "user=x password=y",
                    "rabbitmq.password", "hunter2"));
            assertThat(c.toString()).doesNotContain("s3cret").doesNotContain("hunter2").doesNotContain("password=y")
                    .contains("amqp://guest:******@localhost:5672/");
        }

        @Test
        @DisplayName("parses durations and names the key and value when it cannot")
        void durations() {
            BrokerConfig c = new BrokerConfig("a", "memory", Map.of("t1", "250ms", "t2", "5s", "t3", "PT2M", "bad", "soon"));
            assertThat(c.getDuration("t1", null)).isEqualTo(Duration.ofMillis(250));
            assertThat(c.getDuration("t2", null)).isEqualTo(Duration.ofSeconds(5));
            assertThat(c.getDuration("t3", null)).isEqualTo(Duration.ofMinutes(2));
            assertThatThrownBy(() -> c.getDuration("bad", null)).isInstanceOf(ConfigurationException.class)
                    .hasMessageContaining("'bad'").hasMessageContaining("soon");
        }

        @Test
        @DisplayName("strips a prefix for pass-through properties")
        void prefix() {
            BrokerConfig c = new BrokerConfig("a", "kafka", Map.of("kafka.linger.ms", "5", "other", "x"));
            assertThat(c.withPrefix("kafka.")).containsExactly(Map.entry("linger.ms", "5"));
        }
    }

    @Nested
    @DisplayName("Ids and names")
    class Ids {
        @Test
        @DisplayName("message ids are unique UUIDv7 strings")
        void uuidV7() {
            Set<String> ids = new HashSet<>();
            for (int i = 0; i < 10_000; i++) {
                ids.add(MessageIds.next());
            }
            assertThat(ids).hasSize(10_000).allMatch(id -> id.charAt(14) == '7');
        }

        @Test
        @DisplayName("timestamps are RFC 3339 with six fraction digits and parse back exactly")
        void timeFormat() {
            for (Instant t : List.of(Instant.parse("1970-01-01T00:00:00Z"), Instant.parse("2024-02-29T23:59:59.999999Z"),
                    Instant.parse("2026-11-22T02:59:00.000001Z"), Instant.parse("2100-03-01T12:00:00.5Z"),
                    Instant.parse("1969-12-31T23:59:59.123456Z"))) {
                String text = MessageIds.formatMicros(t.getEpochSecond(), t.getNano());
                assertThat(text).hasSize(27);
                assertThat(Instant.parse(text)).isEqualTo(t);
            }
        }

        @Test
        @DisplayName("the receipt-side parser reads back what formatMicros wrote, as Instant.parse does, and refuses other forms")
        void timeParse() {
            java.util.Random random = new java.util.Random(42);
            for (int i = 0; i < 20_000; i++) {
                Instant t = Instant.ofEpochSecond(random.nextLong(-62_135_596_800L + 86_400, 253_402_300_799L),
                        random.nextInt(1_000_000) * 1000);
                String text = MessageIds.formatMicros(t.getEpochSecond(), t.getNano());
                if (t.getEpochSecond() < -62_135_596_800L + 366 * 86_400L) {
                    continue; // year 0000 prints as 4 digits but Instant.parse wants it too; skip the edge
                }
                assertThat(MessageIds.parseMicros(text)).as(text).isEqualTo(Instant.parse(text)).isEqualTo(t);
            }
            assertThat(MessageIds.parseMicros("2024-02-29T23:59:59.999999Z")).isEqualTo(Instant.parse("2024-02-29T23:59:59.999999Z"));
            assertThat(MessageIds.parseMicros("2023-02-29T00:00:00.000000Z")).isNull();
            assertThat(MessageIds.parseMicros("2026-13-01T00:00:00.000000Z")).isNull();
            assertThat(MessageIds.parseMicros("2026-11-22T24:00:00.000000Z")).isNull();
            assertThat(MessageIds.parseMicros("2026-11-22T10:00:00.12345xZ")).isNull();
            assertThat(MessageIds.parseMicros("2026-11-22T10:00:00Z")).isNull();
            assertThat(MessageIds.parseMicros("2026-11-22T10:00:00.123456+01:00")).isNull();
            assertThat(Envelopes.userHeaders(java.util.Map.of("ce_id", "x", "content-type", "t"))).isEmpty();
            assertThat(Envelopes.userHeaders(java.util.Map.of("ce_id", "x", "tenant", "t1"))).containsExactly(java.util.Map.entry("tenant", "t1"));
        }

        @Test
        @DisplayName("message ids are valid UUIDs")
        void uuidParses() {
            String id = MessageIds.next();
            assertThat(UUID.fromString(id).version()).isEqualTo(7);
            assertThat(UUID.fromString(id).variant()).isEqualTo(2);
            assertThat(UUID.fromString(id).toString()).isEqualTo(id);
        }

        @Test
        @DisplayName("short message ids are UUIDs version 7 in 22 characters that sort as the UUIDs do")
        void shortIds() {
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 2_000; i++) {
                ids.add(MessageIds.nextShort());
            }
            long now = System.currentTimeMillis();
            for (String id : ids) {
                assertThat(id).hasSize(MessageIds.SHORT_ID_LENGTH).matches("[-0-9A-Z_a-z]{22}");
                UUID uuid = decodeShort(id);
                assertThat(uuid.version()).isEqualTo(7);
                assertThat(uuid.variant()).isEqualTo(2);
                assertThat(uuid.getMostSignificantBits() >>> 16).isBetween(now - 60_000, now);
            }
            for (int i = 1; i < ids.size(); i++) {
                UUID a = decodeShort(ids.get(i - 1));
                UUID b = decodeShort(ids.get(i));
                int byBits = Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits()) != 0
                        ? Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits())
                        : Long.compareUnsigned(a.getLeastSignificantBits(), b.getLeastSignificantBits());
                assertThat(Integer.signum(ids.get(i - 1).compareTo(ids.get(i)))).as("%s vs %s", a, b)
                        .isEqualTo(Integer.signum(byBits));
            }
        }

        /** The 128 bits of a short id, read independently of the encoder: 6 bits a character, the last 4 dropped. */
        private UUID decodeShort(String id) {
            String alphabet = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";
            java.math.BigInteger bits = java.math.BigInteger.ZERO;
            for (char c : id.toCharArray()) {
                bits = bits.shiftLeft(6).add(java.math.BigInteger.valueOf(alphabet.indexOf(c)));
            }
            assertThat(bits.testBit(0) || bits.testBit(1) || bits.testBit(2) || bits.testBit(3)).isFalse();
            bits = bits.shiftRight(4);
            return new UUID(bits.shiftRight(64).longValue(), bits.longValue());
        }

        @Test
        @DisplayName("a destination rule reports length, characters and reserved names")
        void nameRule() {
            DestinationNameRule rule = DestinationNameRule.of("[a-z.]+", 5, "lower-case letters and dots", Set.of(".."), Set.of("amq."));
            assertThat(rule.violation("abc")).isEmpty();
            assertThat(rule.violation("abcdef")).get().asString().contains("at most 5");
            assertThat(rule.violation("A")).get().asString().contains("lower-case");
            assertThat(rule.violation("..")).get().asString().contains("reserved");
            assertThat(rule.violation("amq.x")).get().asString().contains("prefix");
        }
    }

    @Nested
    @DisplayName("InMemoryIdempotencyStore")
    class Store {
        @Test
        @DisplayName("lets one claim through, answers BUSY while it is held and DONE after, and frees a released id")
        void claims() {
            InMemoryIdempotencyStore s = new InMemoryIdempotencyStore(10);
            assertThat(s.claim("g", "1")).isEqualTo(Claim.CLAIMED);
            assertThat(s.claim("g", "1")).as("held by another delivery").isEqualTo(Claim.BUSY);
            s.release("g", "1");
            assertThat(s.claim("g", "1")).isEqualTo(Claim.CLAIMED);
            s.complete("g", "1");
            assertThat(s.claim("g", "1")).isEqualTo(Claim.DONE);
            s.release("g", "1");
            assertThat(s.claim("g", "1")).as("a release after completion changes nothing").isEqualTo(Claim.DONE);
            assertThat(s.claim("other-group", "1")).isEqualTo(Claim.CLAIMED);
        }

        @Test
        @DisplayName("forgets the oldest completed ids beyond its capacity")
        void bounded() {
            InMemoryIdempotencyStore s = new InMemoryIdempotencyStore(2);
            for (String id : new String[] {"a", "b", "c"}) {
                s.claim("g", id);
                s.complete("g", id);
            }
            assertThat(s.claim("g", "a")).isEqualTo(Claim.CLAIMED);
            assertThat(s.claim("g", "c")).isEqualTo(Claim.DONE);
        }
    }
}
