package dev.lanes.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MessageParallelismTest {
    private static final NamedAggregate ORDER = NamedAggregate.of("sales", "order");

    private static int key(String id, int parallelism) {
        return MessageParallelism.toGroupKey(AggregateId.of(ORDER, id), parallelism);
    }

    @Test
    void knownVectors() {
        assertThat(key("order-1", 64)).isEqualTo(50);
        assertThat(key("order-1", 896)).isEqualTo(498);
        assertThat(key("order-1", 7)).isEqualTo(1);
        assertThat(key("a", 64)).isEqualTo(33);
    }

    @Test
    void anIdHashingToMinValueMapsToZero() {
        assertThat("polygenelubricants".hashCode()).isEqualTo(Integer.MIN_VALUE);
        assertThat(key("polygenelubricants", 64)).isZero();
        assertThat(key("polygenelubricants", 896)).isEqualTo(768);
    }

    @Test
    void collidingIdsShareAKeyForEveryParallelism() {
        for (int parallelism = 1; parallelism <= 2048; parallelism++) {
            assertThat(key("AaAa", parallelism)).isEqualTo(key("BBBB", parallelism));
        }
    }

    @Test
    void onlyTheIdTakesPart() {
        AggregateId a = AggregateId.of(ORDER, "x-1", "t1");
        AggregateId b = AggregateId.of(NamedAggregate.of("other", "thing"), "x-1", "t2");
        assertThat(MessageParallelism.toGroupKey(a, 64)).isEqualTo(MessageParallelism.toGroupKey(b, 64));
    }

    @Test
    void isNeverNegativeAndAlwaysBelowParallelism() {
        Random random = new Random(42);
        for (int i = 0; i < 100_000; i++) {
            int parallelism = 1 + random.nextInt(5000);
            String id = Long.toString(random.nextLong(), 36) + i;
            assertThat(key(id, parallelism)).isBetween(0, parallelism - 1);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
    void nonPositiveParallelismIsRejected(int parallelism) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> key("x", parallelism))
                .withMessageContaining("parallelism must be positive: " + parallelism);
    }

    @Test
    void defaultIs64TimesProcessorsWithoutTheProperty() {
        assertThat(MessageParallelism.resolveDefault(null, 14)).isEqualTo(896);
        assertThat(MessageParallelism.DEFAULT_PARALLELISM)
                .isEqualTo(
                        System.getProperty(MessageParallelism.PARALLELISM_PROPERTY) == null
                                ? 64 * Runtime.getRuntime().availableProcessors()
                                : Integer.parseInt(System.getProperty(MessageParallelism.PARALLELISM_PROPERTY)));
    }

    @Test
    void thePropertyOverridesTheDefault() {
        assertThat(MessageParallelism.resolveDefault("128", 14)).isEqualTo(128);
        assertThat(MessageParallelism.resolveDefault(" 7 ", 14)).isEqualTo(7);
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc", "0", "-3", "", "1.5"})
    void anInvalidPropertyValueFailsNamingThePropertyAndTheValue(String value) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> MessageParallelism.resolveDefault(value, 2))
                .withMessageContaining("lanes.parallelism")
                .withMessageContaining("'" + value + "'");
    }
}
