package dev.lanes.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.deadline.DeadlineStore;
import dev.lanes.deadline.DeadlineStores;
import dev.lanes.deadline.Deadlines;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.process.Shop.Fulfilment;
import dev.lanes.processing.deadletter.DeadLetterQueues;
import dev.lanes.test.logging.LogCapture;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;
import reactor.test.scheduler.VirtualTimeScheduler;

/** {@code Lanes.builder().processManager(...)}: a manager whose deadlines no runner of this instance fires is named. */
class ProcessManagerWiringTest {
    @RegisterExtension
    final LogCapture logs = LogCapture.standardError();

    private final Shop shop = new Shop();
    private final Clock clock = Deadlines.clockOf(VirtualTimeScheduler.create());
    private final DeadlineStore deadlines = DeadlineStores.inMemory();

    @Test
    void aManagerWithDeadlinesAndNoRunnerIsWarnedAboutWhenBuiltAndNotWithOne() {
        ProcessManager<Fulfilment> process = Shop.fulfilment(deadlines, clock).build();

        shop.lanes(process, EventStores.inMemory(), DeadLetterQueues.inMemory())
                .build()
                .close();
        assertThat(logs.lines(Level.WARN))
                .singleElement()
                .satisfies(line -> assertThat(line.message())
                        .contains("process manager(s) [" + process.name() + "]")
                        .contains("no deadline runner")
                        .contains("add deadlines(store) to Lanes.builder()"));

        shop.lanes(process, EventStores.inMemory(), DeadLetterQueues.inMemory())
                .deadlines(deadlines)
                .build()
                .close();
        assertThat(logs.lines(Level.WARN))
                .as("wired with a runner: nothing more")
                .hasSize(1);
    }
}
