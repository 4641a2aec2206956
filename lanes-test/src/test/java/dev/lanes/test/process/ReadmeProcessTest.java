package dev.lanes.test.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lanes;
import dev.lanes.command.WaitStage;
import dev.lanes.deadline.DeadlineStore;
import dev.lanes.deadline.DeadlineStores;
import dev.lanes.examples.orders.Fulfilment;
import dev.lanes.examples.orders.OrderCommand.Pay;
import dev.lanes.examples.orders.OrderCommand.PlaceOrder;
import dev.lanes.examples.orders.OrderCommand.ReceiveStock;
import dev.lanes.examples.orders.OrderEvent.OrderShipped;
import dev.lanes.examples.orders.Shop;
import dev.lanes.process.ProcessManager;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterQueues;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * The "The order example" section of docs/guides/process-managers.md (README.md links to it): its wiring snippet compiled
 * and run as written (an order placed, its stock reserved, paid, shipped), and its two code blocks checked against
 * this file and the example's source.
 */
class ReadmeProcessTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Path README = Path.of("..", "docs", "guides", "process-managers.md");
    private static final Path SELF = Path.of("src/test/java/dev/lanes/test/process/ReadmeProcessTest.java");
    private static final Path EXAMPLE =
            Path.of("../lanes-examples/src/main/java/dev/lanes/examples/orders/Fulfilment.java");

    @Test
    void theReadmesProcessWiringShipsAPaidOrder() {
        Clock clock = Clock.systemUTC();
        List<Object> shipped;
        // --- README snippet: from here
        DeadlineStore deadlines = DeadlineStores.inMemory(); // or postgresEventStore.deadlineStore()
        DeadLetterQueue parked = DeadLetterQueues.inMemory();
        ProcessManager<Fulfilment> fulfilment = Fulfilment.process(deadlines, clock, Fulfilment.PAYMENT_TIMEOUT);
        try (Lanes lanes = Lanes.builder()
                .aggregate(Shop.orders())
                .aggregate(Shop.stock())
                .aggregate(Shop.payments())
                .processManager(fulfilment) // its instances, and the saga that routes events to them
                .deadLetterQueue(parked)
                .deadlines(deadlines) // fires the due ones while the runtime runs
                .build()
                .start()) {
            // --- README snippet: to here
            var gateway = lanes.gateway();
            gateway.send(Shop.stock("sku-1"), new ReceiveStock(5), WaitStage.PROCESSED)
                    .block(WAIT);
            gateway.send(Shop.order("o1"), new PlaceOrder("sku-1", 2), WaitStage.PROCESSED)
                    .block(WAIT);
            await().atMost(WAIT)
                    .until(() -> !Objects.requireNonNull(deadlines.pending().block(WAIT))
                            .isEmpty());
            gateway.send(Shop.payment("pay-o1"), new Pay("o1", 20), WaitStage.PROCESSED)
                    .block(WAIT);
            await().atMost(WAIT).until(() -> streams(lanes, "o1").contains(new OrderShipped("o1")));
            shipped = streams(lanes, "o1");
        }
        assertThat(shipped).contains(new OrderShipped("o1"));
        assertThat(deadlines.pending().block(WAIT)).isEmpty();
    }

    private static List<Object> streams(Lanes lanes, String orderId) {
        return Objects.requireNonNull(lanes.eventStore()
                .load(Shop.order(orderId), 1)
                .flatMapIterable(stream -> stream.events())
                .map(event -> event.payload())
                .collectList()
                .block(WAIT));
    }

    @Test
    void theReadmeShowsTheSnippetAsWrittenHereAndTheProcessAsTheExampleDefinesIt() throws IOException {
        List<String> readme =
                Files.readAllLines(README).stream().map(String::strip).toList();
        List<String> self = Files.readAllLines(SELF);
        int from = indexOf(self, "// --- README snippet: from here");
        int to = indexOf(self, "// --- README snippet: to here");
        for (String line : self.subList(from + 1, to)) {
            assertThat(readme)
                    .as("docs/guides/process-managers.md shows the line of the snippet")
                    .contains(line.strip());
        }

        List<String> example =
                Files.readAllLines(EXAMPLE).stream().map(String::strip).toList();
        int section = readme.indexOf("## The order example");
        int open = readme.subList(section, readme.size()).indexOf("```java") + section;
        int close = readme.subList(open + 1, readme.size()).indexOf("```") + open + 1;
        assertThat(close - open).as("the process block of the section").isGreaterThan(10);
        for (String line : readme.subList(open + 1, close)) {
            assertThat(example).as("Fulfilment.java has the guide's line").contains(line);
        }
    }

    private static int indexOf(List<String> lines, String marker) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).strip().startsWith(marker)) {
                return i;
            }
        }
        throw new AssertionError("no line starts with " + marker);
    }
}
