package dev.lanes.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NamedAggregateTest {

    @Nested
    class Materialize {
        @Test
        void carriersOfTheSameNamesMaterializeToEqualKeys() {
            NamedAggregate carrier = new NamedAggregate() {
                @Override
                public String contextName() {
                    return "sales";
                }

                @Override
                public String aggregateName() {
                    return "order";
                }
            };

            assertThat(carrier.materialize())
                    .isEqualTo(NamedAggregate.of("sales", "order").materialize())
                    .isEqualTo(NamedAggregate.parse("sales.order").materialize())
                    .isEqualTo(AggregateId.of(NamedAggregate.of("sales", "order"), "o-1")
                            .materialize())
                    .hasSameHashCodeAs(new MaterializedNamedAggregate("sales", "order"));
        }

        @Test
        void aMaterializedValueMaterializesToItself() {
            MaterializedNamedAggregate key = new MaterializedNamedAggregate("sales", "order");
            assertThat(key.materialize()).isSameAs(key);
            assertThat(key).hasToString("sales.order");
        }
    }

    @Nested
    class Validation {
        @ParameterizedTest
        @ValueSource(strings = {"", " ", "\t"})
        void blankContextNameIsRejectedNamingTheArgument(String blank) {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> NamedAggregate.of(blank, "order"))
                    .withMessageContaining("contextName");
        }

        @ParameterizedTest
        @ValueSource(strings = {"", " "})
        void blankAggregateNameIsRejectedNamingTheArgument(String blank) {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> NamedAggregate.of("sales", blank))
                    .withMessageContaining("aggregateName");
        }

        @ParameterizedTest
        @ValueSource(strings = {"order", ".order", "sales.", "a.b.c", "sales. ", " .order", ""})
        void parseRejectsAnythingButTwoNonBlankPartsNamingTheInput(String input) {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> NamedAggregate.parse(input))
                    .withMessageContaining("'" + input + "'");
        }
    }

    @Test
    void parseSplitsContextAndAggregate() {
        NamedAggregate parsed = NamedAggregate.parse("sales.order");
        assertThat(parsed.contextName()).isEqualTo("sales");
        assertThat(parsed.aggregateName()).isEqualTo("order");
    }
}
