package io.switchboard.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.Switchboard;
import io.switchboard.routing.Route;
import io.switchboard.spring.SwitchboardAutoConfiguration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

/** Every YAML block of the root README and of docs/ binds and starts a Switchboard (adapters connect lazily). */
@DisplayName("YAML in the root README and docs")
class RootReadmeYamlTest {

    private static final Pattern YAML_BLOCK = Pattern.compile("```yaml\\n(.*?)```", Pattern.DOTALL);

    @Test
    @DisplayName("each block binds and starts; the README's split is the route of 'orders'")
    void everyBlockStarts() throws Exception {
        Path root = Path.of("").toAbsolutePath();
        while (!Files.exists(root.resolve(".ci/run"))) {
            root = root.getParent();
        }
        List<String> blocks = new ArrayList<>();
        Matcher m = YAML_BLOCK.matcher(Files.readString(root.resolve("README.md"), StandardCharsets.UTF_8));
        while (m.find()) {
            blocks.add(m.group(1));
        }
        assertThat(blocks).isNotEmpty();
        for (String yaml : blocks) {
            PropertySource<?> source = new YamlPropertySourceLoader()
                    .load("README", new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8))).get(0);
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(SwitchboardAutoConfiguration.class))
                    .withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(source))
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        Switchboard sb = context.getBean(Switchboard.class);
                        if (yaml.contains("weights: {a: 90, b: 10}")) {
                            assertThat(sb.routing().route("orders")).isEqualTo(Route.split(Map.of("a", 90, "b", 10)));
                        }
                    });
        }
    }
}
