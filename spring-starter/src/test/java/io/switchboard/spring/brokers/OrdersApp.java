package io.switchboard.spring.brokers;

import io.switchboard.DeliveryContext;
import io.switchboard.Publisher;
import io.switchboard.spring.Publishers;
import io.switchboard.spring.SwitchboardListener;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/** A small application as a user would write it: one listener, one publisher injected by qualifier. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class OrdersApp {

    /** The payload. */
    public record Order(String id, long cents) {}

    /** What the listener handled: {@code <order id>@<broker instance>}. */
    public static class Inbox {
        final BlockingQueue<String> handled = new LinkedBlockingQueue<>();
    }

    /** The listener: bills orders. */
    public static class Billing {
        private final Inbox inbox;

        Billing(Inbox inbox) {
            this.inbox = inbox;
        }

        @SwitchboardListener(destination = "${app.topic}", group = "billing")
        void bill(Order order, DeliveryContext context) {
            inbox.handled.add(order.id() + "@" + context.instance());
        }
    }

    @Bean
    Inbox inbox() {
        return new Inbox();
    }

    @Bean
    Billing billing(Inbox inbox) {
        return new Billing(inbox);
    }

    @Bean
    Publisher<Order> orders(Publishers publishers, @Value("${app.topic}") String topic) {
        return publishers.get(topic, Order.class);
    }
}
