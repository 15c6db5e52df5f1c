package io.switchboard.rabbit.internal.mapping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The delay levels' arithmetic")
class DelayLevelsTest {

    @Test
    @DisplayName("a delay is rounded up to whole 10 ms units; a past or present instant means now")
    void roundsUp() {
        assertThat(DelayLevels.units(1_000, 1_000)).isZero();
        assertThat(DelayLevels.units(900, 1_000)).isZero();
        assertThat(DelayLevels.units(1_001, 1_000)).isEqualTo(1);
        assertThat(DelayLevels.units(1_010, 1_000)).isEqualTo(1);
        assertThat(DelayLevels.units(1_011, 1_000)).isEqualTo(2);
        assertThat(DelayLevels.units(3_000, 0)).isEqualTo(300);
    }

    @Test
    @DisplayName("the waits of the set bits' levels add up to the delay, and the record enters at its highest bit")
    void levelsAddUp() {
        for (long units : new long[] {1, 2, 3, 300, 1023, 1024, 123_456, DelayLevels.MAX_UNITS}) {
            Map<String, Object> headers = new HashMap<>();
            DelayLevels.write(units, "orders", headers);
            int entry = DelayLevels.entryLevel(units);
            long waited = 0;
            for (int n = entry; n >= 0; n--) {
                assertThat(headers).containsKey(DelayLevels.levelHeader(n));
                if ("1".equals(headers.get(DelayLevels.levelHeader(n)))) {
                    waited += DelayLevels.ttlMillis(n);
                }
            }
            assertThat(headers.get(DelayLevels.levelHeader(entry))).isEqualTo("1");
            assertThat(headers).hasSize(entry + 2).containsEntry(DelayLevels.TO_HEADER, "orders");
            assertThat(waited).isEqualTo(units * DelayLevels.UNIT_MILLIS);
        }
    }

    @Test
    @DisplayName("every level's TTL fits RabbitMQ's largest timer; a longer delay is refused naming the limit")
    void limits() {
        assertThat(DelayLevels.ttlMillis(DelayLevels.LEVELS - 1)).isLessThanOrEqualTo(0xFFFF_FFFFL);
        assertThat(DelayLevels.units(DelayLevels.MAX_DELAY_MILLIS, 0)).isEqualTo(DelayLevels.MAX_UNITS);
        assertThatThrownBy(() -> DelayLevels.units(DelayLevels.MAX_DELAY_MILLIS + 1, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 5368709110 ms");
    }
}
