package io.switchboard.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.switchboard.Message;
import io.switchboard.RequestTimeoutException;
import io.switchboard.Requester;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@DisplayName("Listener methods that return a reply, and the Requesters bean, on the in-memory broker")
@Timeout(60)
class ReplyingListenerTest {

    static final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SwitchboardAutoConfiguration.class))
            .withPropertyValues("switchboard.properties.[memory.broker]=replying-listener-test",
                    "switchboard.destinations.quotes.reply-timeout=10s",
                    "switchboard.destinations.stock.reply-to=stock-answers",
                    "switchboard.destinations.stock.reply-timeout=300ms");

    /** A request and its reply, as JSON. */
    record QuoteRequest(String sku, int quantity) {}

    record Quote(String sku, long cents) {}

    // tag::spring-replying-listener[]
    static class Pricing {
        @SwitchboardListener(destination = "quotes", group = "pricing")
        Quote quote(QuoteRequest request) {                   // returns a value: it replies
            return new Quote(request.sku(), 250L * request.quantity());
        }
        // end::spring-replying-listener[]

        @SwitchboardListener(destination = "stock", group = "stock")
        Integer stock(String sku) {
            return sku.equals("unknown") ? null : sku.length();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Listeners {
        @Bean
        Pricing pricing() {
            return new Pricing();
        }
    }

    @Test
    @DisplayName("a listener's return value is the reply, in JSON, and the request's settings come from application.yml")
    void listenerReplies() {
        runner.withUserConfiguration(Listeners.class).run(context -> {
            assertThat(context).hasNotFailed();
            Requesters requesters = context.getBean(Requesters.class);
            Requester<QuoteRequest, Quote> quotes = requesters.get("quotes", QuoteRequest.class, Quote.class);
            assertThat(requesters.get("quotes", QuoteRequest.class, Quote.class)).isSameAs(quotes);
            assertThat(quotes.replyTo()).isEqualTo("quotes-replies");
            // tag::spring-requesters[]
            Message<Quote> reply = requesters.get("quotes", QuoteRequest.class, Quote.class)
                    .request(new QuoteRequest("sku-7", 4))
                    .get(10, TimeUnit.SECONDS);
            // end::spring-requesters[]
            assertThat(reply.payload()).isEqualTo(new Quote("sku-7", 1000));

            Requester<String, Integer> stock = requesters.get("stock", String.class, Integer.class);
            assertThat(stock.replyTo()).isEqualTo("stock-answers");
            assertThat(stock.request("abcd").get(10, TimeUnit.SECONDS).payload()).isEqualTo(4);
            // a null return sends no reply: the request ends at the configured 300 ms
            assertThatThrownBy(() -> stock.request("unknown").get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(RequestTimeoutException.class)
                    .hasMessageContaining("300 ms");
            assertThat(stock.pending()).isZero();
        });
    }
}
