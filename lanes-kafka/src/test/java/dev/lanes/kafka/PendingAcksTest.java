package dev.lanes.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PendingAcksTest {
    private final PendingAcks acks = new PendingAcks();
    private final List<String> settled = new ArrayList<>();

    @Test
    void aCommandWithNothingUnacknowledgedSettlesAtOnce() {
        acks.afterAcks("c1", () -> settled.add("c1"));

        assertThat(settled).containsExactly("c1");
        assertThat(acks.waiting()).isZero();
    }

    @Test
    void aCommandSettlesOnlyAfterTheLastOfItsRecordsIsAcknowledged() {
        acks.sent("c1");
        acks.sent("c1");
        acks.sent("c2");

        acks.afterAcks("c1", () -> settled.add("c1"));
        acks.acked("c1");
        assertThat(settled).isEmpty();
        acks.acked("c2");
        assertThat(settled).isEmpty();

        acks.acked("c1");
        assertThat(settled).containsExactly("c1");
        assertThat(acks.waiting()).isZero();
    }

    @Test
    void aSettlementBeforeAndAfterAcknowledgementsRunsOnceEachInOrder() {
        acks.sent("c1");
        acks.afterAcks("c1", () -> settled.add("first"));
        acks.afterAcks("c1", () -> settled.add("second"));

        acks.acked("c1");
        acks.acked("c1"); // a stray acknowledgement of a command no longer tracked changes nothing

        assertThat(settled).containsExactly("first", "second");
    }

    @Test
    void anAcknowledgementWithoutAWaitingSettlementForgetsTheCommand() {
        acks.sent("c1");
        acks.acked("c1");

        assertThat(acks.waiting()).isZero();
        acks.afterAcks("c1", () -> settled.add("c1"));
        assertThat(settled).containsExactly("c1");
    }
}
