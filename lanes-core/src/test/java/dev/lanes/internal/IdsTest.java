package dev.lanes.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class IdsTest {

    @Test
    void idsAreVersionFourUuidsOfTheIetfVariant() {
        for (int i = 0; i < 1_000; i++) {
            String id = Ids.randomUuid();
            UUID parsed = UUID.fromString(id);
            assertThat(parsed.version()).as(id).isEqualTo(4);
            assertThat(parsed.variant()).as(id).isEqualTo(2);
            assertThat(parsed.toString()).isEqualTo(id);
        }
    }

    @Test
    void idsMadeOnManyThreadsAtOnceAreDistinct() {
        Set<String> ids = ConcurrentHashMap.newKeySet();
        int perTask = 50_000;
        IntStream.range(0, 8).parallel().forEach(task -> {
            for (int i = 0; i < perTask; i++) {
                ids.add(Ids.randomUuid());
            }
        });
        assertThat(ids).hasSize(8 * perTask);
    }
}
