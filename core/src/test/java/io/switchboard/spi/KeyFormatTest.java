package io.switchboard.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.ConfigurationException;
import io.switchboard.InvalidMessageException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class KeyFormatTest {

    private static final BrokerConfig NONE = new BrokerConfig("b", "memory", Map.of());

    @Test
    void isChosenByNameOnThePublisherOrSubscriptionElseTheInstanceAndIsStringByDefault() {
        BrokerConfig longs = new BrokerConfig("b", "memory", Map.of(KeyFormat.PROPERTY, "long"));
        assertThat(KeyFormat.of(NONE)).isEqualTo(KeyFormat.STRING);
        assertThat(KeyFormat.of(longs)).isEqualTo(KeyFormat.LONG);
        assertThat(KeyFormat.of(Map.of(KeyFormat.PROPERTY, " UUID "), longs)).isEqualTo(KeyFormat.UUID);
        assertThat(KeyFormat.of(Map.of(), longs)).isEqualTo(KeyFormat.LONG);
        for (KeyFormat format : KeyFormat.values()) {
            assertThat(KeyFormat.of(Map.of(KeyFormat.PROPERTY, format.id()), NONE)).isEqualTo(format);
        }
    }

    @Test
    void anUnknownNameIsRefusedNamingTheValueAndTheKnownNames() {
        assertThatThrownBy(() -> KeyFormat.of(Map.of(KeyFormat.PROPERTY, "int64"), NONE))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("'int64'").hasMessageContaining(KeyFormat.PROPERTY)
                .hasMessageContaining("'string'").hasMessageContaining("'long'").hasMessageContaining("'integer'")
                .hasMessageContaining("'uuid'").hasMessageContaining("'bytes'");
    }

    @Test
    void longIsEightBytesBigEndianBothWays() {
        for (long v : new long[] {0, 42, -7, 1, -1, Long.MAX_VALUE, Long.MIN_VALUE, 1L << 40,
                ThreadLocalRandom.current().nextLong()}) {
            byte[] expected = ByteBuffer.allocate(8).putLong(v).array();
            assertThat(KeyFormat.LONG.toBytes(Long.toString(v))).isEqualTo(expected);
            assertThat(KeyFormat.LONG.fromBytes(expected)).isEqualTo(Long.toString(v));
            assertThat(KeyFormat.LONG.fits(Long.toString(v))).isTrue();
        }
    }

    @Test
    void integerIsFourBytesBigEndianBothWays() {
        for (int v : new int[] {0, 42, -7, Integer.MAX_VALUE, Integer.MIN_VALUE, ThreadLocalRandom.current().nextInt()}) {
            byte[] expected = ByteBuffer.allocate(4).putInt(v).array();
            assertThat(KeyFormat.INTEGER.toBytes(Integer.toString(v))).isEqualTo(expected);
            assertThat(KeyFormat.INTEGER.fromBytes(expected)).isEqualTo(Integer.toString(v));
        }
    }

    @Test
    void onlyTheTextLongToStringWritesIsALong() {
        for (String bad : new String[] {"abc", "", "-", "+42", "042", "-0", "00", " 42", "42 ", "4.2", "1e3",
                "9223372036854775808", "-9223372036854775809", "99999999999999999999", "٤٢"}) {
            assertThat(KeyFormat.LONG.fits(bad)).as(bad).isFalse();
            assertThatThrownBy(() -> KeyFormat.LONG.toBytes(bad)).as(bad).isInstanceOf(InvalidMessageException.class);
        }
        assertThat(KeyFormat.INTEGER.fits("2147483648")).isFalse();
        assertThat(KeyFormat.INTEGER.fits("-2147483648")).isTrue();
        assertThat(KeyFormat.INTEGER.fits("-2147483649")).isFalse();
    }

    @Test
    void aRefusedKeyNamesTheKeyTheFormatAndTheFix() {
        assertThatThrownBy(() -> KeyFormat.LONG.check("abc", "orders", "kafka-1"))
                .isInstanceOf(InvalidMessageException.class)
                .hasMessageContaining("'abc'").hasMessageContaining("'orders'").hasMessageContaining("'kafka-1'")
                .hasMessageContaining("'long'").hasMessageContaining(KeyFormat.PROPERTY)
                .hasMessageContaining("Long.toString");
        assertThatThrownBy(() -> KeyFormat.UUID.check("ABC", "orders", "kafka-1")).hasMessageContaining("UUID.toString()");
        assertThatThrownBy(() -> KeyFormat.BYTES.check("not base64!", "orders", "kafka-1")).hasMessageContaining("base64");
    }

    @Test
    void uuidIsItsLowercaseTextInUtf8() {
        UUID id = UUID.randomUUID();
        assertThat(KeyFormat.UUID.toBytes(id.toString())).isEqualTo(id.toString().getBytes(StandardCharsets.UTF_8));
        assertThat(KeyFormat.UUID.fromBytes(id.toString().getBytes(StandardCharsets.UTF_8))).isEqualTo(id.toString());
        assertThat(KeyFormat.UUID.fits(id.toString().toUpperCase())).isFalse();
        assertThat(KeyFormat.UUID.fits("1-1-1-1-1")).isFalse(); // UUID.fromString would take it
        assertThat(KeyFormat.UUID.fits(id.toString().replace('-', '_'))).isFalse();
    }

    @Test
    void bytesAreTheKeysBase64Text() {
        byte[] raw = {0, 1, (byte) 0xFF, 42, -7};
        String text = Base64.getEncoder().encodeToString(raw);
        assertThat(KeyFormat.BYTES.fromBytes(raw)).isEqualTo(text);
        assertThat(KeyFormat.BYTES.toBytes(text)).isEqualTo(raw);
        assertThat(KeyFormat.BYTES.toBytes("")).isEmpty();
        for (int n = 0; n < 8; n++) {
            byte[] some = new byte[n];
            ThreadLocalRandom.current().nextBytes(some);
            assertThat(KeyFormat.BYTES.toBytes(KeyFormat.BYTES.fromBytes(some))).isEqualTo(some);
        }
        for (String bad : new String[] {"abc", "a===", "QR==", "QUI=x", "ab-_", "YWJj\n"}) {
            assertThat(KeyFormat.BYTES.fits(bad)).as(bad).isFalse();
        }
    }

    @Test
    void stringIsUtf8AndTakesAnyText() {
        assertThat(KeyFormat.STRING.toBytes("k-ü")).isEqualTo("k-ü".getBytes(StandardCharsets.UTF_8));
        assertThat(KeyFormat.STRING.fromBytes("k-ü".getBytes(StandardCharsets.UTF_8))).isEqualTo("k-ü");
        assertThat(KeyFormat.STRING.fits("base64:AAEC")).isTrue();
        assertThat(KeyFormat.STRING.isRaw("base64:AAEC")).isFalse();
    }

    @Test
    void bytesThatDoNotFitReadAsBase64TextThatWritesTheSameBytes() {
        byte[] three = {1, 2, 3};
        for (KeyFormat format : new KeyFormat[] {KeyFormat.LONG, KeyFormat.INTEGER, KeyFormat.UUID}) {
            String text = format.fromBytes(three);
            assertThat(text).isEqualTo("base64:AQID");
            assertThat(format.isRaw(text)).isTrue();
            assertThat(format.fits(text)).isTrue();
            assertThat(format.toBytes(text)).isEqualTo(three);
            assertThat(format.toBytes(format.fromBytes(new byte[0]))).isEmpty();
        }
        assertThat(KeyFormat.UUID.fromBytes(UUID.randomUUID().toString().toUpperCase().getBytes(StandardCharsets.UTF_8)))
                .startsWith(KeyFormat.RAW_PREFIX);
        assertThat(KeyFormat.LONG.fits("base64:not base64")).isFalse();
    }
}
