package io.switchboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Start positions as written in configuration; what they do is the contract's "Where a subscription starts". */
@DisplayName("Start positions")
class StartPositionTest {

    @Test
    @DisplayName("reads earliest, latest, offset:<n> and time:<instant>, and writes them back the same way")
    void parses() {
        assertThat(StartPosition.parse(" Earliest ")).isEqualTo(StartPosition.earliest());
        assertThat(StartPosition.parse("latest")).isEqualTo(StartPosition.latest());
        assertThat(StartPosition.parse("offset:42").offset()).isEqualTo(42);
        assertThat(StartPosition.parse("time:2024-05-01T02:00:00+02:00").time())
                .isEqualTo(Instant.parse("2024-05-01T00:00:00Z"));
        for (String text : new String[] {"earliest", "latest", "offset:0", "time:2024-05-01T00:00:00Z"}) {
            assertThat(StartPosition.parse(text)).hasToString(text);
        }
        assertThat(StartPosition.offset(3)).isEqualTo(StartPosition.parse("offset:3")).isNotEqualTo(StartPosition.offset(4));
    }

    @Test
    @DisplayName("refuses anything else, naming the value and the accepted forms")
    void refusesBadText() {
        for (String bad : new String[] {"beginning", "offset:", "offset:-1", "offset:ten", "time:yesterday",
                "time:2024-05-01"}) {
            assertThatThrownBy(() -> StartPosition.parse(bad)).as(bad).isInstanceOf(ConfigurationException.class)
                    .hasMessageContaining("'" + bad + "'");
        }
        assertThatThrownBy(() -> StartPosition.parse("beginning")).hasMessageContaining("offset:<n>")
                .hasMessageContaining("time:<ISO-8601 instant>");
        assertThatThrownBy(() -> StartPosition.parse(null)).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("null");
        assertThatThrownBy(() -> StartPosition.offset(-1)).isInstanceOf(ConfigurationException.class)
                .hasMessageContaining("-1");
        assertThatThrownBy(() -> StartPosition.earliest().offset()).isInstanceOf(IllegalStateException.class);
    }
}
