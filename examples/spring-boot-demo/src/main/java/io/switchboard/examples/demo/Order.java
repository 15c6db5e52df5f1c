package io.switchboard.examples.demo;

/**
 * An order, as the REST endpoint takes it and the listeners receive it (JSON).
 *
 * @param id order id
 * @param customerId customer: the message key, so one customer's orders keep their order
 * @param amountCents amount
 */
public record Order(String id, String customerId, long amountCents) {}
