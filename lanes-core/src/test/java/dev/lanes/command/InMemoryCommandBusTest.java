package dev.lanes.command;

import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;

class InMemoryCommandBusTest {

    /**
     * A route holds a power of two of commands: a capacity beyond the largest one it can hold must be refused, not
     * silently turned into another bound (issue 11: {@code Integer.MAX_VALUE} held 8).
     */
    @Test
    void aCapacityBeyondWhatARouteCanHoldIsRefusedNamingTheValue() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new InMemoryCommandBus(Integer.MAX_VALUE, new CommandResults()))
                .withMessageContaining("capacityPerType")
                .withMessageContaining(String.valueOf(Integer.MAX_VALUE));
    }
}
