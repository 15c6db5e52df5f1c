package io.switchboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** A receipt is a value as a record of its six values would be, whether its id is given or written when read. */
class PublishReceiptTest {

    private static final String ID = "0192f1b4c3d54e6f8a7b9c0d1e2f3a4b";

    @Test
    void anIdFromASupplierIsWrittenOnceAndOnlyWhenRead() {
        AtomicInteger calls = new AtomicInteger();
        Supplier<String> id = () -> {
            calls.incrementAndGet();
            return ID;
        };
        PublishReceipt receipt = PublishReceipt.withIdFrom(id, "orders", "main", "kafka", 2, 41L);

        assertThat(calls).as("id written before anyone read it").hasValue(0);
        assertThat(receipt.messageId()).isEqualTo(ID);
        assertThat(receipt.messageId()).isEqualTo(ID);
        assertThat(calls).as("id written once").hasValue(1);
        assertThat(receipt.destination()).isEqualTo("orders");
        assertThat(receipt.instance()).isEqualTo("main");
        assertThat(receipt.brokerId()).isEqualTo("kafka");
        assertThat(receipt.partition()).isEqualTo(2);
        assertThat(receipt.offset()).isEqualTo(41L);
    }

    @Test
    void equalityHashAndTextDoNotDependOnHowTheIdCame() {
        PublishReceipt given = new PublishReceipt(ID, "orders", "main", "kafka", 2, 41L);
        PublishReceipt lazy = PublishReceipt.withIdFrom(() -> ID, "orders", "main", "kafka", 2, 41L);

        assertThat(lazy).isEqualTo(given).hasSameHashCodeAs(given);
        assertThat(given).isEqualTo(lazy);
        assertThat(lazy).isNotEqualTo(new PublishReceipt(ID, "orders", "main", "kafka", 2, 42L));
        assertThat(lazy).isNotEqualTo(new PublishReceipt("other", "orders", "main", "kafka", 2, 41L));
        assertThat(lazy).hasToString("PublishReceipt[messageId=" + ID
                + ", destination=orders, instance=main, brokerId=kafka, partition=2, offset=41]");
    }

    @Test
    @SuppressWarnings("removal")
    void theDeprecatedConstructorAndAccessorStillWork() {
        PublishReceipt old = new PublishReceipt(ID, "orders", "main", 0, 7L);
        assertThat(old.brokerId()).isNull();
        assertThat(old.broker()).isEqualTo("main");
    }

    @Test
    void jacksonWritesAndReadsItAsTheRecordItWas() throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        PublishReceipt lazy = PublishReceipt.withIdFrom(() -> ID, "orders", "main", "rabbitmq", -1, -1L);

        String json = mapper.writeValueAsString(lazy);

        assertThat(json).isEqualTo("{\"messageId\":\"" + ID + "\",\"destination\":\"orders\",\"instance\":\"main\","
                + "\"brokerId\":\"rabbitmq\",\"partition\":-1,\"offset\":-1}");
        assertThat(mapper.readValue(json, PublishReceipt.class)).isEqualTo(lazy);
    }

    @Test
    void aMissingIdSupplierIsRefused() {
        assertThatThrownBy(() -> PublishReceipt.withIdFrom(null, "orders", "main", "kafka", 0, 0L))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("messageId");
    }

    @Test
    void aPositionReceiptsIdIsTheRecordsPosition() throws Exception {
        PublishReceipt at = PublishReceipt.atPosition("orders", "main", "kafka", 3, 41L);

        assertThat(at.messageId()).isEqualTo("orders-3-41");
        assertThat(at).isEqualTo(new PublishReceipt("orders-3-41", "orders", "main", "kafka", 3, 41L))
                .hasSameHashCodeAs(new PublishReceipt("orders-3-41", "orders", "main", "kafka", 3, 41L));
        assertThat(new ObjectMapper().writeValueAsString(PublishReceipt.atPosition("orders", "main", "kafka", 0, 7L)))
                .startsWith("{\"messageId\":\"orders-0-7\",");
    }
}
