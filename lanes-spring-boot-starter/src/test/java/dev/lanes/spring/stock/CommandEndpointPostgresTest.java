package dev.lanes.spring.stock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lanes;
import dev.lanes.postgres.PostgresEventStore;
import dev.lanes.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Every test of {@link CommandEndpointMvcTest} again with a DataSource over an embedded PostgreSQL: the request ids,
 * command hashes and principals the endpoint stores go through the PostgreSQL event store.
 */
@SpringBootTest(
        classes = {StockApplication.class, CommandEndpointMvcTest.Authenticated.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"lanes.web.timeout=2s", "lanes.web.retry-after=3s", "lanes.web.max-body-size=1KB"})
class CommandEndpointPostgresTest extends CommandEndpointMvcTest {

    @Autowired
    Lanes lanes;

    @DynamicPropertySource
    static void dataSource(DynamicPropertyRegistry registry) {
        String url = TestPostgres.emptyDatabase();
        registry.add("spring.datasource.url", () -> url);
        registry.add("spring.datasource.username", () -> TestPostgres.USER);
    }

    @Test
    void theStoreIsPostgres() {
        assertThat(lanes.eventStore()).isInstanceOf(PostgresEventStore.class);
    }
}
