package io.switchboard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.switchboard.ConfigurationException;
import io.switchboard.Delivery;
import io.switchboard.InvalidMessageException;
import io.switchboard.Message;
import io.switchboard.Publisher;
import io.switchboard.Subscription;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract's "Filtering" cases; {@link BrokerContract} runs them as a nested group. Messages of one key keep
 * their order on every broker, so once a filtered subscription has handled the last message it should get, every
 * earlier message has either reached it or been filtered out: no case waits for something not to happen. Each
 * prints {@code capability=filter broker=<id> sent=N received=N filtered_out=N wrong=N lost=N}.
 */
abstract class FilterCases extends ContractCases {

    private static final String[] TAGS = {"new", "paid", null, "shipped", "cancelled", "paid", "new", "shipped"};

    FilterCases(ContractSupport contract) {
        super(contract);
    }

    @BeforeEach
    void needsFiltering() {
        assumeTrue(capabilities().filtering(), "broker '" + brokerId() + "' does not declare filtering");
    }

    @Test
    @DisplayName("a filtered subscription gets only its tags; an unfiltered group of the same destination gets all")
    void onlyItsTags() {
        String dest = destination();
        Recorder<String> paid = recorder();
        Recorder<String> all = recorder();
        subscribe(switchboard(), dest, TEXT, s -> s.group("billing").filter("paid || shipped"), paid);
        subscribe(dest, TEXT, "audit", Delivery.AT_LEAST_ONCE, all);
        List<String> sent = publishTagged(dest, 3);
        List<String> wanted = sent.stream().filter(p -> p.startsWith("paid") || p.startsWith("shipped")).toList();
        paid.awaitCount(wanted.size());
        all.awaitCount(sent.size());
        report(sent, wanted, paid);
        assertThat(paid.payloads()).as("the filtered group, in publish order").containsExactlyElementsOf(wanted);
        assertThat(all.payloads()).as("the unfiltered group").containsExactlyElementsOf(sent);
        assertThat(all.received().stream().filter(r -> r.message().payload().startsWith("paid-")).findFirst()
                .orElseThrow().message().tag()).as("the tag as received").isEqualTo("paid");
    }

    @Test
    @DisplayName("filtered-out messages are settled: the group does not get them again without its filter")
    void filteredOutAreSettled() {
        String dest = destination();
        Recorder<String> paid = recorder();
        Subscription first = subscribe(switchboard(), dest, TEXT, s -> s.group("g").filter("paid"), paid);
        List<String> sent = publishTagged(dest, 2);
        List<String> wanted = sent.stream().filter(p -> p.startsWith("paid")).toList();
        paid.awaitCount(wanted.size());
        report(sent, wanted, paid);
        first.close();
        Recorder<String> later = recorder();
        subscribe(switchboard(), dest, TEXT, s -> s.group("g"), later);
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
        join(pub.publish(Message.builder("after").key("k").tag("new").build()));
        later.awaitCount(1);
        assertThat(later.payloads()).as("nothing filtered out earlier comes back").containsExactly("after");
    }

    @Test
    @DisplayName("a malformed filter or tag is refused, naming it")
    void malformed() {
        assertThatThrownBy(() -> switchboard().subscriber(destination(), TEXT).filter("paid ||"))
                .isInstanceOf(ConfigurationException.class).hasMessageContaining("'paid ||'").hasMessageContaining("||");
        assertThatThrownBy(() -> Message.builder("x").tag("paid now"))
                .isInstanceOf(InvalidMessageException.class).hasMessageContaining("'paid now'");
    }

    /** Publishes {@code rounds} x the tag sequence on one key; payloads are {@code <tag>-<n>} ({@code none-<n>}). */
    private List<String> publishTagged(String dest, int rounds) {
        Publisher<String> pub = publisher(dest, TEXT, Delivery.AT_LEAST_ONCE);
        List<String> sent = new ArrayList<>();
        int n = 0;
        for (int r = 0; r < rounds; r++) {
            for (String tag : TAGS) {
                String payload = (tag == null ? "none" : tag) + "-" + n++;
                join(pub.publish(Message.builder(payload).key("k").tag(tag).build()));
                sent.add(payload);
            }
        }
        // the last message is one the filters want, so that waiting for it covers every earlier one
        String last = "paid-" + n;
        join(pub.publish(Message.builder(last).key("k").tag("paid").build()));
        sent.add(last);
        return sent;
    }

    private void report(List<String> sent, List<String> wanted, Recorder<String> filtered) {
        List<String> got = filtered.payloads();
        long wrong = got.stream().filter(p -> !wanted.contains(p)).count();
        long lost = wanted.stream().filter(p -> !got.contains(p)).count();
        System.out.printf("capability=filter broker=%s sent=%d received=%d filtered_out=%d wrong=%d lost=%d%n", brokerId(),
                sent.size(), got.size(), sent.size() - wanted.size(), wrong, lost);
    }
}
