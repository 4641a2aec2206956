package dev.lanes.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.command.WaitStage;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** lanes.web.* bound as Spring Boot binds them: the defaults, and values out of range named. */
class LanesWebPropertiesTest {

    private static LanesWebProperties bind(String... pairs) {
        MapConfigurationPropertySource source = new MapConfigurationPropertySource();
        for (int i = 0; i < pairs.length; i += 2) {
            source.put(pairs[i], pairs[i + 1]);
        }
        return new Binder(source).bindOrCreate("lanes.web", LanesWebProperties.class);
    }

    @Test
    void theDefaults() {
        LanesWebProperties properties = bind();

        assertThat(properties.enabled()).isTrue();
        assertThat(properties.basePath()).isEqualTo("/commands");
        assertThat(properties.defaultWait()).isEqualTo(WaitStage.PROCESSED);
        assertThat(properties.timeout()).isNull();
        assertThat(properties.retryAfter()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void valuesOutOfRangeFailNamingThePropertyAndTheValue() {
        assertThatThrownBy(() -> bind("lanes.web.base-path", "commands/"))
                .rootCause()
                .hasMessageContaining("lanes.web.base-path")
                .hasMessageContaining("'commands/'");
        assertThatThrownBy(() -> bind("lanes.web.timeout", "0s"))
                .rootCause()
                .hasMessageContaining("lanes.web.timeout must be positive: PT0S");
        assertThatThrownBy(() -> bind("lanes.web.retry-after", "500ms"))
                .rootCause()
                .hasMessageContaining("lanes.web.retry-after must be at least 1s: PT0.5S");
    }
}
