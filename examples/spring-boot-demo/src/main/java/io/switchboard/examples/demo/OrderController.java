package io.switchboard.examples.demo;

import io.switchboard.Switchboard;
import io.switchboard.routing.Fleet;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /orders?customer=c1&amount=1250} places an order (written with its message through the outbox); {@code GET /demo/stats} feeds the
 * page: the comparison of the last few seconds (for the charts) and of the whole window (for the
 * verdict), the route of {@code orders}, and the fleet's replicas with the route version each
 * applies. Weights are changed through the actuator endpoint
 * ({@code POST /actuator/switchboard/orders}).
 */
@RestController
public class OrderController {

    private final OrderService orders;
    private final Switchboard switchboard;
    private final Listeners listeners;

    /** The controller. */
    public OrderController(OrderService orders, Switchboard switchboard, Listeners listeners) {
        this.orders = orders;
        this.switchboard = switchboard;
        this.listeners = listeners;
    }

    /** Places one order: answers once the order and its message are committed; the relay sends it on the route. */
    @PostMapping("/orders")
    public Map<String, Object> place(@RequestParam String customer, @RequestParam(defaultValue = "1000") long amount)
            throws Exception {
        OrderService.Placed placed = orders.place(customer, amount).toCompletableFuture().get(30, TimeUnit.SECONDS);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("id", placed.order().id());
        answer.put("messageId", placed.messageId());
        answer.put("route", switchboard.routing().route("orders").toString());
        return answer;
    }

    /** The page's data, as JSON text. */
    @GetMapping(value = "/demo/stats", produces = MediaType.APPLICATION_JSON_VALUE)
    public String stats() {
        String recent = switchboard.comparison().report("orders", Duration.ofSeconds(5)).toJson();
        String window = switchboard.comparison().report("orders").toJson();
        Map<String, Integer> weights = switchboard.routing().route("orders").weights();
        StringBuilder w = new StringBuilder("{");
        weights.forEach((k, v) -> w.append(w.length() > 1 ? "," : "").append('"').append(k).append("\":").append(v));
        w.append('}');
        Fleet fleet = switchboard.routing().fleet();
        StringBuilder replicas = new StringBuilder("[");
        for (Fleet.Replica r : fleet.replicas()) {
            replicas.append(replicas.length() > 1 ? "," : "").append("{\"id\":\"").append(r.id()).append("\",\"routeVersion\":")
                    .append(r.routeVersion()).append(",\"inStep\":").append(r.inStep()).append(",\"leader\":").append(r.leader())
                    .append(",\"status\":\"").append(r.status()).append("\"}");
        }
        replicas.append(']');
        return "{\"route\":\"" + switchboard.routing().route("orders") + "\",\"weights\":" + w + ",\"billed\":" + listeners.billed()
                + ",\"shipped\":" + listeners.shipped() + ",\"replica\":\"" + fleet.replica() + "\",\"routeVersion\":"
                + fleet.routeVersion() + ",\"replicas\":" + replicas + ",\"recent\":" + recent + ",\"window\":" + window + "}";
    }
}
