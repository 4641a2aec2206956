package dev.lanes.micrometer;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.MessageExchange;
import java.util.concurrent.CompletableFuture;

/** An exchange that records how it was settled: {@code null} when acknowledged, else the rejection's reason. */
final class TestExchange implements MessageExchange<String> {
    static final NamedAggregate ORDER = NamedAggregate.of("shop", "order");

    final CompletableFuture<Throwable> settled = new CompletableFuture<>();
    private final String message;
    private final AggregateId aggregateId;

    private TestExchange(String message, AggregateId aggregateId) {
        this.message = message;
        this.aggregateId = aggregateId;
    }

    /** A message {@code <id>#<n>} for the order {@code id}. */
    static TestExchange of(String id, int n) {
        return new TestExchange(id + "#" + n, AggregateId.of(ORDER, id));
    }

    @Override
    public String message() {
        return message;
    }

    @Override
    public AggregateId aggregateId() {
        return aggregateId;
    }

    @Override
    public void acknowledge() {
        settled.complete(null);
    }

    @Override
    public void reject(Throwable reason) {
        settled.complete(reason);
    }

    boolean acknowledged() {
        return settled.isDone() && settled.getNow(null) == null;
    }

    boolean rejected() {
        return settled.isDone() && settled.getNow(null) != null;
    }

    @Override
    public String toString() {
        return "TestExchange[" + message + "]";
    }
}
