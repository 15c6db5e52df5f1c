package io.switchboard.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Switchboard;
import io.switchboard.routing.Route;
import io.switchboard.testkit.kafka.EmbeddedKafka;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Runs the README's A/B routing snippet (tag {@code readme-routing}) on the embedded Kafka and the local RabbitMQ. */
@DisplayName("The README's routing snippet runs")
class ReadmeRoutingSnippetTest extends RoutingTestSupport {

    @Test
    @DisplayName("two instances, a default route, a split changed at run time, a comparison table")
    void readmeSnippet() {
        String kafkaServers = EmbeddedKafka.shared().bootstrapServers();
        String rabbitUri = RABBIT.uriWithCredentials();
        // tag::readme-routing[]
        Switchboard sb = Switchboard.builder()
                .instance("a", "kafka", Map.of("kafka.bootstrap.servers", kafkaServers))
                .instance("b", "rabbitmq", Map.of("rabbitmq.uri", rabbitUri))
                .property("switchboard.comparison.window", "60s")        // common to every instance
                .defaultRoute(Route.single("a"))                          // destinations without a route
                .route("orders", Route.split(Map.of("a", 90, "b", 10)))
                .build();
        sb.routing().update("orders", Route.split(Map.of("a", 50, "b", 50)));   // at run time, no restart
        System.out.println(sb.comparison().report("orders").toTable());
        // end::readme-routing[]
        closeAfter(sb);
        assertThat(sb.routing().route("orders")).isEqualTo(Route.split(Map.of("a", 50, "b", 50)));
        assertThat(sb.routing().route("payments")).isEqualTo(Route.single("a"));
        assertThat(sb.comparison().report("orders").toTable()).contains("| figure | a (kafka) | b (rabbitmq) |");
    }
}
