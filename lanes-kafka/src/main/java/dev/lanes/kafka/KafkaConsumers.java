package dev.lanes.kafka;

import dev.lanes.lifecycle.RuntimeComponent;
import dev.lanes.lifecycle.RuntimeContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Every consumer group member of one instance as one runtime component, for services wired by {@code Lanes.builder()}
 * ({@link KafkaBuses#applyTo}): the command consumer, and one consumer per event processor. Registered before the
 * dispatchers, so the runtime stops it after they drained: each member then commits what was settled and leaves its
 * group.
 *
 * <p>The processors' consumers come into being when their dispatcher subscribes to the event bus, which happens at the
 * dispatcher's prepare, after this component's. So {@code prepare} checks the command topics and positions the command
 * consumer, and {@code start} (which the runtime calls once every component is prepared) checks the event topics,
 * blocking up to the startup timeout, then starts every member. A failed check fails the start, naming the bootstrap
 * servers, and the runtime rolls back.
 *
 * <p>Stop: the members stop together, each bounded by its revoke timeout; a member's failure does not skip the others,
 * and the first one is the result. Force and graceful stop reach every member that exists, started or not.
 */
final class KafkaConsumers implements RuntimeComponent {
    private static final Logger log = LoggerFactory.getLogger(KafkaConsumers.class);

    private final KafkaBuses kafka;
    private final AtomicBoolean prepared = new AtomicBoolean();
    private final Mono<Void> gracefulStop;
    private volatile RuntimeContext context = RuntimeContext.standalone();

    KafkaConsumers(KafkaBuses kafka) {
        this.kafka = kafka;
        this.gracefulStop = Mono.defer(this::stopAll).cache();
    }

    @Override
    public String name() {
        return "KafkaConsumers[" + kafka.options().instanceId() + "]";
    }

    @Override
    public Mono<Void> prepare(RuntimeContext context) {
        return Mono.<Void>fromRunnable(() -> {
                    if (!prepared.compareAndSet(false, true)) {
                        throw new IllegalStateException(name() + " was prepared before");
                    }
                    this.context = context;
                    KafkaConsumerComponent commands = kafka.commandConsumer();
                    if (commands != null) {
                        commands.prepareNow(context);
                    }
                })
                .subscribeOn(Schedulers.boundedElastic());
    }

    /** Checks the event topics (blocking, at most the startup timeout per processor), then starts every member. */
    @Override
    public void start() {
        RuntimeContext started = context;
        List<KafkaConsumerComponent> events = kafka.eventBus().consumers();
        events.forEach(consumer -> consumer.prepareNow(started));
        KafkaConsumerComponent commands = kafka.commandConsumer();
        if (commands != null) {
            commands.start();
        }
        events.forEach(KafkaConsumerComponent::start);
    }

    @Override
    public void quiesce() {
        members().forEach(KafkaConsumerComponent::quiesce);
    }

    @Override
    public Mono<Void> stopGracefully() {
        return gracefulStop;
    }

    private Mono<Void> stopAll() {
        List<Mono<Void>> stops = new ArrayList<>();
        members().forEach(member -> stops.add(member.stopGracefully()));
        return Mono.whenDelayError(stops);
    }

    @Override
    public void forceStop() {
        RuntimeException first = null;
        for (KafkaConsumerComponent member : members()) {
            try {
                member.forceStop();
            } catch (RuntimeException error) {
                log.error("{}: {} failed to force-stop", name(), member, error);
                if (first == null) {
                    first = error;
                } else {
                    first.addSuppressed(error);
                }
            }
        }
        if (first != null) {
            throw Exceptions.propagate(first);
        }
    }

    private List<KafkaConsumerComponent> members() {
        List<KafkaConsumerComponent> members = new ArrayList<>();
        KafkaConsumerComponent commands = kafka.commandConsumer();
        if (commands != null) {
            members.add(commands);
        }
        members.addAll(kafka.eventBus().consumers());
        return members;
    }

    @Override
    public String toString() {
        return name();
    }
}
