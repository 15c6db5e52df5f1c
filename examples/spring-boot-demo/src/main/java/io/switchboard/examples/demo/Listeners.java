package io.switchboard.examples.demo;

import io.switchboard.DeliveryContext;
import io.switchboard.spring.SwitchboardListener;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.stereotype.Component;

/** Billing and shipping: two consumer groups on the same orders, each reading both brokers. */
@Component
public class Listeners {

    private final AtomicLong billed = new AtomicLong();
    private final AtomicLong shipped = new AtomicLong();

    /** Bills an order. */
    // tag::spring-listener[]
    @SwitchboardListener(destination = "orders", group = "billing", concurrency = "2")
    public void bill(Order order, DeliveryContext context) {
        billed.incrementAndGet();
    }
    // end::spring-listener[]

    /** Ships an order. */
    @SwitchboardListener(destination = "orders", group = "shipping", concurrency = "2")
    public void ship(Order order) {
        shipped.incrementAndGet();
    }

    /** Orders billed so far. */
    public long billed() {
        return billed.get();
    }

    /** Orders shipped so far. */
    public long shipped() {
        return shipped.get();
    }
}
