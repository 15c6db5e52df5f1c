package io.switchboard.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Codec;
import io.switchboard.Message;
import io.switchboard.Switchboard;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The example of docs/outbox.md, run as it is written there (H2 in memory, the in-memory broker). */
@DisplayName("docs/outbox.md's example")
class OutboxExampleTest {

    @Test
    @DisplayName("an order and its message commit together; the rolled-back one is neither saved nor sent")
    void example() throws Exception {
        // tag::outbox-example[]
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:shop-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE orders (id VARCHAR(36) PRIMARY KEY, customer VARCHAR(64))");
        }
        List<String> billed = new CopyOnWriteArrayList<>();
        try (Switchboard sb = Switchboard.builder().broker("memory").property("memory.broker", "shop-" + UUID.randomUUID()).build();
                Outbox outbox = Outbox.builder(sb, dataSource).build()) {             // creates switchboard_outbox, starts the relay
            sb.subscriber("orders", Codec.utf8()).group("billing")
                    .subscribe((message, context) -> billed.add(message.payload()))
                    .ready().toCompletableFuture().get(30, TimeUnit.SECONDS);
            OutboxPublisher<String> placed = outbox.publisher("orders", Codec.utf8());

            for (String customer : List.of("c1", "c2")) {
                try (Connection c = dataSource.getConnection()) {
                    c.setAutoCommit(false);                                            // the application's transaction
                    String id = UUID.randomUUID().toString();
                    try (PreparedStatement insert = c.prepareStatement("INSERT INTO orders VALUES (?, ?)")) {
                        insert.setString(1, id);
                        insert.setString(2, customer);
                        insert.executeUpdate();
                    }
                    placed.publish(c, Message.of(customer, "order " + id));           // same transaction, not committed
                    if (customer.equals("c2")) {
                        c.rollback();                                                  // neither the order nor its message
                    } else {
                        c.commit();                                                    // both: the relay sends it
                    }
                }
            }
            for (int waited = 0; billed.isEmpty() && waited < 300; waited++) {
                Thread.sleep(100);
            }
            Thread.sleep(300);                                                 // a rolled-back order's message would be here by now
        }
        // end::outbox-example[]
        assertThat(billed).hasSize(1).allMatch(p -> p.startsWith("order "));
    }
}
