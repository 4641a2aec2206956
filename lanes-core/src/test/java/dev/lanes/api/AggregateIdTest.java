package dev.lanes.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AggregateIdTest {
    private static final NamedAggregate ORDER = NamedAggregate.of("sales", "order");

    @Test
    void hasValueEqualityOverTenantNamesAndId() {
        AggregateId a = AggregateId.of(ORDER, "o-1");
        AggregateId b = AggregateId.of(NamedAggregate.parse("sales.order"), "o-1");

        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a).isNotEqualTo(AggregateId.of(ORDER, "o-2"));
        assertThat(a).isNotEqualTo(AggregateId.of(ORDER, "o-1", "tenant-b"));
        assertThat(a).isNotEqualTo(AggregateId.of(NamedAggregate.of("billing", "order"), "o-1"));
    }

    @Test
    void exposesItsNamedAggregateAndDefaultTenant() {
        AggregateId id = AggregateId.of(ORDER, "o-1");

        assertThat(id.contextName()).isEqualTo("sales");
        assertThat(id.aggregateName()).isEqualTo("order");
        assertThat(id.tenantId()).isEqualTo(AggregateId.DEFAULT_TENANT);
        assertThat(id.materialize()).isEqualTo(ORDER.materialize()).isSameAs(id.namedAggregate());
        assertThat(id).hasToString("sales.order/o-1");
        assertThat(AggregateId.of(ORDER, "o-1", "t1")).hasToString("sales.order/o-1@t1");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "  "})
    void blankIdIsRejectedNamingTheArgument(String blank) {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> AggregateId.of(ORDER, blank))
                .withMessageContaining("id must not be blank");
    }

    @Test
    void blankTenantIsRejectedNamingTheArgument() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> AggregateId.of(ORDER, "o-1", " "))
                .withMessageContaining("tenantId");
    }
}
