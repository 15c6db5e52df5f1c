package io.switchboard.kafka.internal.mapping;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.KeyFormat;
import io.switchboard.spi.OutboundRecord;
import io.switchboard.testkit.CoreRecords;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.common.serialization.IntegerDeserializer;
import org.apache.kafka.common.serialization.IntegerSerializer;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.serialization.UUIDDeserializer;
import org.apache.kafka.common.serialization.UUIDSerializer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The key bytes of each key format are exactly those of kafka-clients' serializer of the same type, both ways. */
@Timeout(30)
class KeyFormatBytesTest {

    private static final String TOPIC = "t";

    private static byte[] written(KeyFormat format, String key) {
        Capabilities kafka = Capabilities.builder("kafka").publishTimestamp(true).maxMessageSize(1 << 20).build();
        OutboundRecord record = CoreRecords.published(kafka, Map.of(KeyFormat.PROPERTY, format.id()), Codec.bytes(),
                Message.builder(new byte[] {1}).key(key).build());
        return KafkaRecords.toKafka(record, TOPIC, format).key();
    }

    @Test
    @DisplayName("long, integer, uuid, string and bytes write what LongSerializer, IntegerSerializer, UUIDSerializer, "
            + "StringSerializer and ByteArraySerializer write, and read back what their deserializers read")
    void sameBytesAsKafkaClientsSerializers() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < 1_000; i++) {
            long l = i < 2 ? (i == 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : random.nextLong() >> random.nextInt(64);
            byte[] longBytes = new LongSerializer().serialize(TOPIC, l);
            assertThat(written(KeyFormat.LONG, Long.toString(l))).isEqualTo(longBytes);
            assertThat(KafkaRecords.key(longBytes, KeyFormat.LONG))
                    .isEqualTo(new LongDeserializer().deserialize(TOPIC, longBytes).toString());

            int n = i < 2 ? (i == 0 ? Integer.MIN_VALUE : Integer.MAX_VALUE) : random.nextInt() >> random.nextInt(32);
            byte[] intBytes = new IntegerSerializer().serialize(TOPIC, n);
            assertThat(written(KeyFormat.INTEGER, Integer.toString(n))).isEqualTo(intBytes);
            assertThat(KafkaRecords.key(intBytes, KeyFormat.INTEGER))
                    .isEqualTo(new IntegerDeserializer().deserialize(TOPIC, intBytes).toString());

            UUID uuid = new UUID(random.nextLong(), random.nextLong());
            byte[] uuidBytes = new UUIDSerializer().serialize(TOPIC, uuid);
            assertThat(written(KeyFormat.UUID, uuid.toString())).isEqualTo(uuidBytes);
            assertThat(KafkaRecords.key(uuidBytes, KeyFormat.UUID))
                    .isEqualTo(new UUIDDeserializer().deserialize(TOPIC, uuidBytes).toString());

            byte[] raw = new byte[random.nextInt(16)];
            random.nextBytes(raw);
            assertThat(written(KeyFormat.BYTES, Base64.getEncoder().encodeToString(raw))).isEqualTo(raw);
            assertThat(KafkaRecords.key(raw, KeyFormat.BYTES)).isEqualTo(Base64.getEncoder().encodeToString(raw));
        }
        assertThat(written(KeyFormat.STRING, "k-ü")).isEqualTo(new StringSerializer().serialize(TOPIC, "k-ü"));
    }
}
