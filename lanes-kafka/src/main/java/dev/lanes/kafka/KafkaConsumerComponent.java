package dev.lanes.kafka;

import dev.lanes.lifecycle.RuntimeComponent;
import dev.lanes.lifecycle.RuntimeContext;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.TopicPartition;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * One consumer group member of one instance as a runtime component: the command dispatcher's group, or one event
 * processor's. Register it <em>before</em> the dispatcher it feeds, so that the runtime drains the dispatcher first and
 * this component commits what the dispatcher settled before it leaves the group.
 *
 * <ul>
 *   <li>{@code prepare}: checks that the broker answers and the topics exist, within the startup timeout;
 *   <li>{@code start}: joins the group (the consumer thread starts);
 *   <li>when the runtime begins to stop: takes no new records (a command consumer still takes follow-ups, which are
 *       part of work in progress, until quiesced);
 *   <li>{@code quiesce}: hands nothing more to the lanes;
 *   <li>{@code stopGracefully}: waits (at most the revoke timeout) for the records in the lanes to settle, commits,
 *       leaves the group;
 *   <li>{@code forceStop}: leaves the group without committing: what was not committed is redelivered to the next
 *       owner.
 * </ul>
 */
public final class KafkaConsumerComponent implements RuntimeComponent {
    private enum State {
        NEW,
        PREPARED,
        RUNNING,
        STOPPED
    }

    private final String name;
    private final ConsumerLoop<?> loop;
    private final KafkaOptions options;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    private final Mono<Void> gracefulStop;
    private volatile RuntimeContext context = RuntimeContext.standalone();

    KafkaConsumerComponent(String name, ConsumerLoop<?> loop, KafkaOptions options) {
        this.name = name;
        this.loop = loop;
        this.options = options;
        this.gracefulStop = Mono.defer(() -> {
                    State previous = state.getAndSet(State.STOPPED);
                    if (previous != State.RUNNING) {
                        loop.neverStarted();
                    }
                    return loop.close();
                })
                .cache();
    }

    @Override
    public String name() {
        return name;
    }

    /** Checks the broker and the topics (blocking, on a bounded-elastic thread, at most the startup timeout). */
    @Override
    public Mono<Void> prepare(RuntimeContext context) {
        return Mono.<Void>fromRunnable(() -> prepareNow(context)).subscribeOn(Schedulers.boundedElastic());
    }

    /** {@link #prepare} on the calling thread, which it blocks up to the startup timeout. */
    void prepareNow(RuntimeContext context) {
        if (!state.compareAndSet(State.NEW, State.PREPARED)) {
            throw new IllegalStateException(name + " cannot prepare in state " + state.get());
        }
        this.context = context;
        Topics.require(name, loop.topics(), options);
        context.whenStopping(loop::stopTakingNew);
    }

    @Override
    public void start() {
        if (!state.compareAndSet(State.PREPARED, State.RUNNING)) {
            throw new IllegalStateException(name + " cannot start in state " + state.get());
        }
        loop.start(context);
    }

    @Override
    public void quiesce() {
        loop.quiesce();
    }

    @Override
    public Mono<Void> stopGracefully() {
        return gracefulStop;
    }

    @Override
    public void forceStop() {
        State previous = state.getAndSet(State.STOPPED);
        loop.forceStop();
        if (previous != State.RUNNING) {
            loop.neverStarted();
        }
    }

    /** The partitions this member owns now (a snapshot, for tests and operations). */
    public Set<TopicPartition> assignment() {
        return loop.assignment();
    }

    /**
     * The partitions it paused now (a snapshot): for backpressure, after a record was handed back, or while its
     * assignment hooks fail.
     */
    public Set<TopicPartition> pausedPartitions() {
        return loop.paused();
    }

    @Override
    public String toString() {
        return name;
    }
}
