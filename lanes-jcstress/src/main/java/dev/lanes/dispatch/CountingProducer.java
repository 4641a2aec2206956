package dev.lanes.dispatch;

import java.util.concurrent.atomic.AtomicInteger;

/** A producer side for the intake checks that only counts what it is given to stage; it publishes nowhere. */
final class CountingProducer implements Intake.Producer<String> {
    final AtomicInteger staged = new AtomicInteger();

    @Override
    public void stage(MessageExchange<String> exchange) {
        staged.incrementAndGet();
    }

    @Override
    public void flush() {}

    @Override
    public void holdOpen() {}

    @Override
    public void closeAgain() {}
}
