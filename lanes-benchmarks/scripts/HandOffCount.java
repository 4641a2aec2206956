import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.*;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.scheduler.AggregateSchedulers;
import java.lang.management.ManagementFactory;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;
import reactor.core.Disposable;
import reactor.core.publisher.*;
import reactor.core.scheduler.Scheduler;

/**
 * The hand-off of a user's source, counted: one producer thread emits 1,000,000 exchanges over 10,000 UUID-shaped ids
 * into {@code Sinks.many().unicast().onBackpressureBuffer()}, whose {@code asFlux()} feeds one dispatcher (handler
 * {@code Mono.empty()}, {@code AggregateSchedulers.perType} workers). Per round it prints wall and process CPU per
 * message, the producer thread's CPU per message, the tasks the dispatcher handed to its workers per message (lanes,
 * lane batches, request continuations, drains: each a possible wake-up), the requests it made of the source and their
 * size, and the share of exchanges delivered on the producer thread (the rest came out of the sink's buffer inside a
 * request the dispatcher made from a worker). Only the public API is used, so it runs against any build's jar:
 *
 * <pre>
 * java -Xms2g -Xmx2g -cp lanes-benchmarks/target/benchmarks.jar lanes-benchmarks/scripts/HandOffCount.java KEYED 8
 * </pre>
 */
public class HandOffCount {
    static final NamedAggregate ORDER = NamedAggregate.of("sales", "order");
    record Ex(AggregateId aggregateId, Integer message, CountDownLatch done) implements MessageExchange<Integer> {
        public void acknowledge() { done.countDown(); }
        public void reject(Throwable reason) { done.countDown(); }
    }
    static final AtomicLong tasks = new AtomicLong(), requests = new AtomicLong(), requested = new AtomicLong(), onProducer = new AtomicLong();

    /** A scheduler that counts what is handed to it and passes it on. */
    static final class Counting implements Scheduler, Executor {
        final Scheduler real;
        Counting(Scheduler real) { this.real = real; }
        public void execute(Runnable task) { tasks.incrementAndGet(); ((Executor) real).execute(task); }
        public Disposable schedule(Runnable task) { tasks.incrementAndGet(); return real.schedule(task); }
        public Disposable schedule(Runnable task, long delay, TimeUnit unit) { return real.schedule(task, delay, unit); }
        public Disposable schedulePeriodically(Runnable task, long d, long p, TimeUnit unit) { return real.schedulePeriodically(task, d, p, unit); }
        public Worker createWorker() { return real.createWorker(); }
        public void dispose() { real.dispose(); }
        public void init() { real.init(); }
    }

    public static void main(String[] args) throws Exception {
        LaneStrategy strategy = LaneStrategy.valueOf(args[0]);
        int messages = 1_000_000, rounds = Integer.parseInt(args[1]);
        SplittableRandom random = new SplittableRandom(1);
        AggregateId[] ids = new AggregateId[10_000];
        for (int i = 0; i < ids.length; i++) ids[i] = AggregateId.of(ORDER, new UUID(random.nextLong(), random.nextLong()).toString());
        var threads = ManagementFactory.getThreadMXBean();
        for (int round = 0; round < rounds; round++) {
            AggregateSchedulerSupplier real = AggregateSchedulers.perType("count");
            Map<NamedAggregate, Scheduler> wrapped = new ConcurrentHashMap<>();
            AggregateSchedulerSupplier supplier = new AggregateSchedulerSupplier() {
                public Scheduler getOrInitialize(NamedAggregate type) { return wrapped.computeIfAbsent(type, t -> new Counting(real.getOrInitialize(t))); }
                public reactor.core.publisher.Mono<Void> stopGracefully() { return real.stopGracefully(); }
                public void forceStop() { real.forceStop(); }
            };
            Sinks.Many<Ex> sink = Sinks.many().unicast().onBackpressureBuffer();
            CountDownLatch done = new CountDownLatch(messages);
            Thread[] producer = new Thread[1];
            var dispatcher = AggregateDispatcher.<Integer>builder("Count", ORDER)
                    .source(sink.asFlux().doOnRequest(n -> { requests.incrementAndGet(); requested.addAndGet(n); })
                            .doOnNext(e -> { if (Thread.currentThread() == producer[0]) onProducer.incrementAndGet(); }))
                    .handler(e -> reactor.core.publisher.Mono.empty())
                    .schedulers(supplier)
                    .settings(LaneSettings.DEFAULT.withStrategy(strategy))
                    .build();
            dispatcher.prepare(RuntimeContext.standalone()).block();
            tasks.set(0); requests.set(0); requested.set(0); onProducer.set(0);
            long[] producerCpu = {0};
            producer[0] = new Thread(() -> {
                long c0 = threads.getCurrentThreadCpuTime();
                SplittableRandom order = new SplittableRandom(2);
                for (int i = 0; i < messages; i++) {
                    Ex e = new Ex(ids[order.nextInt(ids.length)], i, done);
                    while (sink.tryEmitNext(e) != Sinks.EmitResult.OK) Thread.yield();
                }
                producerCpu[0] = threads.getCurrentThreadCpuTime() - c0;
            }, "producer");
            long cpu0 = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
            long t0 = System.nanoTime();
            dispatcher.start();
            producer[0].start();
            done.await();
            long wall = System.nanoTime() - t0;
            producer[0].join();
            long cpu = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime() - cpu0;
            System.out.printf(Locale.ROOT, "%s round %d: %.1f ns/msg wall, %.1f CPU ns/msg, producer thread %.1f CPU ns/msg; tasks handed to workers %.4f/msg; requests %.5f/msg (%.0f per request); delivered on the producer thread %.3f%n",
                    strategy, round, wall / (double) messages, cpu / (double) messages, producerCpu[0] / (double) messages,
                    tasks.get() / (double) messages, requests.get() / (double) messages, requested.get() / (double) Math.max(1, requests.get()), onProducer.get() / (double) messages);
            dispatcher.forceStop();
            real.forceStop();
        }
    }
}
