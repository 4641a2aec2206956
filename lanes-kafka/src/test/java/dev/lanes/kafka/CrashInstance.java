package dev.lanes.kafka;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.postgres.PostgresDeadLetterQueue;
import dev.lanes.postgres.PostgresEventStore;
import dev.lanes.postgres.PostgresOptions;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.processing.tracking.TrackingProcessor;
import dev.lanes.processing.tracking.TrackingSettings;
import dev.lanes.runtime.ShutdownReport;
import dev.lanes.testsupport.TestPostgres;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * One instance of {@link CrashRestartTest}, in a JVM of its own: Lanes on the test's PostgreSQL (event store,
 * dead-letter queue, tracking checkpoints) and Kafka broker, with two projections into {@link CrashProjection}'s table
 * ({@value #BALANCES} fed by the Kafka event bus, {@value #TRACKED} a tracking processor reading the store), and clients
 * that send credits to the accounts.
 *
 * <p><b>Journal.</b> Every line is written and flushed at once, so what the test reads of a killed instance is all it
 * did: {@code SENT id account kind amount} before a command is sent, {@code ACK id account kind amount version client
 * seq} once it is answered {@code PROCESSED} (acknowledged), {@code ERR id error} when the send ended otherwise, and
 * the partitions it owns whenever they change ({@code OWNS commands=0,2 events=0,2}), and the states {@code READY},
 * {@code IDLE}, {@code RESENT ...}, {@code RESEND_DONE}, {@code STOPPED} (with the streams each projection saw again).
 *
 * <p><b>Control.</b> The test writes one word a line on standard input: {@code LOAD} starts the clients, {@code
 * STOP_LOAD} stops them (each finishes its send), {@code RESEND file} sends again the commands listed in the file
 * ({@code id account kind amount}, same request ids), {@code STOP} stops Lanes gracefully and exits 0. The end of
 * standard input (the test JVM is gone) halts at once: no instance outlives its test.
 */
final class CrashInstance {
    static final String BALANCES = "Balances";
    static final String TRACKED = "Tracked";
    static final String OPEN = "open";
    static final String CREDIT = "credit";

    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final TrackingSettings TRACKING = TrackingSettings.DEFAULT
            .withPollInterval(Duration.ofMillis(50))
            .withCheckpointInterval(Duration.ofMillis(200))
            .withLease(Duration.ofSeconds(3));

    private final Map<String, String> arguments;
    private final String instance;
    private final Journal journal;
    private final AtomicBoolean loading = new AtomicBoolean();
    private final List<Thread> clients = new ArrayList<>();
    private final Map<String, AtomicLong> redelivered = Map.of(BALANCES, new AtomicLong(), TRACKED, new AtomicLong());
    private final Lanes lanes;
    private final KafkaBuses kafka;
    private final PostgresEventStore store;
    private final PostgresDeadLetterQueue deadLetters;

    private CrashInstance(Map<String, String> arguments) throws IOException {
        this.arguments = arguments;
        this.instance = argument("instance");
        this.journal = new Journal(Path.of(argument("journal")));
        this.store = PostgresEventStore.connect(
                argument("jdbc"),
                TestPostgres.USER,
                null,
                PostgresOptions.DEFAULT
                        .withPoolSize(12)
                        .withApplicationName("crash-" + instance + "-" + argument("incarnation")));
        this.deadLetters = PostgresDeadLetterQueue.open(store.dataSource());
        KafkaOptions options = KafkaOptions.of(argument("kafka"))
                .withTopics(TopicNaming.perContext(argument("run")))
                .withTopicCreation(Integer.parseInt(argument("partitions")), (short) 1)
                .withInstanceId(instance);
        this.kafka = KafkaBuses.create(options);
        DataSource dataSource = store.dataSource();
        this.lanes = kafka.applyTo(Lanes.builder())
                .aggregate(Ledger.definition())
                .processor(projection(BALANCES, dataSource))
                .trackingProcessor((events, queue) -> TrackingProcessor.builder(
                                projection(TRACKED, dataSource), events, store.checkpointStore())
                        .deadLetterQueue(queue)
                        .settings(TRACKING)
                        .owner(instance)
                        .build())
                .eventStore(store)
                .deadLetterQueue(deadLetters)
                .commandTimeout(SEND_TIMEOUT)
                .shutdownTimeout(Duration.ofSeconds(60))
                .build();
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> arguments = new HashMap<>();
        for (String arg : args) {
            int equals = arg.indexOf('=');
            arguments.put(arg.substring(0, equals), arg.substring(equals + 1));
        }
        new CrashInstance(arguments).run();
    }

    private String argument(String name) {
        String value = arguments.get(name);
        if (value == null) {
            throw new IllegalArgumentException("CrashInstance needs the argument " + name + "=...: " + arguments);
        }
        return value;
    }

    private int accounts() {
        return Integer.parseInt(argument("accounts"));
    }

    private EventProcessor projection(String name, DataSource dataSource) {
        return EventProcessor.builder(name, ProcessorKind.PROJECTION)
                .on(
                        Ledger.ACCOUNT,
                        Object.class,
                        (event, context) -> context.event().sequence() == 1
                                ? Mono.fromCallable(() ->
                                                CrashProjection.apply(dataSource, name, context.stream(), instance))
                                        .subscribeOn(Schedulers.boundedElastic())
                                        .doOnNext(outcome -> {
                                            if (outcome == CrashProjection.Outcome.REDELIVERED) {
                                                redelivered.get(name).incrementAndGet();
                                            }
                                        })
                                        .then()
                                : Mono.empty())
                .build();
    }

    private void run() throws Exception {
        journal.line(
                "BOOT",
                instance,
                argument("incarnation"),
                String.valueOf(ProcessHandle.current().pid()));
        lanes.start(START_TIMEOUT);
        if (Boolean.parseBoolean(argument("open"))) {
            open();
        }
        awaitAssignment();
        Thread watcher = new Thread(this::watchAssignments, "assignments");
        watcher.setDaemon(true);
        watcher.start();
        journal.line("READY");
        BufferedReader control = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = control.readLine(); line != null; line = control.readLine()) {
            String[] words = line.split(" ");
            switch (words[0]) {
                case "LOAD" -> load(Integer.parseInt(argument("clients")));
                case "STOP_LOAD" -> stopLoad();
                case "RESEND" -> resend(Path.of(words[1]));
                case "STOP" -> {
                    stop();
                    return;
                }
                default -> journal.line("UNKNOWN", line);
            }
        }
        // the test JVM is gone: so is this one, at once
        Runtime.getRuntime().halt(3);
    }

    /** Opens every account, each with a request id of its own, sent again until answered. */
    private void open() {
        Flux.range(0, accounts())
                .flatMap(
                        i -> Mono.fromRunnable(() -> {
                                    for (int attempt = 0; attempt < 5; attempt++) {
                                        if (send("open-" + i, "acc-" + i, OPEN, 0, "opener", i) != null) {
                                            return;
                                        }
                                    }
                                    throw new IllegalStateException("acc-" + i + " could not be opened");
                                })
                                .subscribeOn(Schedulers.boundedElastic()),
                        32)
                .blockLast(START_TIMEOUT.multipliedBy(2));
    }

    private void awaitAssignment() throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (kafka.commandBus(lanes.commandResults()).consumer().assignment().isEmpty()
                || kafka.eventBus().consumer(BALANCES).assignment().isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(instance + " was assigned no partition within " + START_TIMEOUT);
            }
            Thread.sleep(50);
        }
    }

    /** Journals the partitions this instance owns whenever they change: {@code OWNS commands=0,2 events=0,2}. */
    private void watchAssignments() {
        String owned = "";
        while (true) {
            String now = "commands="
                    + partitions(kafka.commandBus(lanes.commandResults()).consumer()) + " events="
                    + partitions(kafka.eventBus().consumer(BALANCES));
            if (!now.equals(owned)) {
                owned = now;
                journal.line("OWNS", now);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static String partitions(KafkaConsumerComponent consumer) {
        String owned = consumer.assignment().stream()
                .map(partition -> String.valueOf(partition.partition()))
                .sorted()
                .collect(Collectors.joining(","));
        return owned.isEmpty() ? "-" : owned;
    }

    private void load(int count) {
        loading.set(true);
        String incarnation = argument("incarnation");
        for (int c = 0; c < count; c++) {
            String client = instance + incarnation + "c" + c;
            Random random = new Random(client.hashCode());
            Thread thread = new Thread(
                    () -> {
                        for (int seq = 0; loading.get(); seq++) {
                            String account = "acc-" + random.nextInt(accounts());
                            long amount = 1 + random.nextInt(97);
                            send(client + "-" + seq, account, CREDIT, amount, client, seq);
                        }
                    },
                    client);
            clients.add(thread);
            thread.start();
        }
    }

    /** Sends one command and journals it; the result, or null when the send did not end {@code PROCESSED}. */
    private @Nullable CommandResult send(
            String requestId, String account, String kind, long amount, String client, int seq) {
        journal.line("SENT", requestId, account, kind, String.valueOf(amount));
        try {
            CommandResult result = lanes.gateway()
                    .send(command(requestId, account, kind, amount), WaitStage.PROCESSED, SEND_TIMEOUT)
                    .block(SEND_TIMEOUT.plusSeconds(5));
            if (result == null) {
                throw new IllegalStateException("no result");
            }
            journal.line(
                    "ACK",
                    requestId,
                    account,
                    kind,
                    String.valueOf(amount),
                    String.valueOf(result.version()),
                    client,
                    String.valueOf(seq));
            return result;
        } catch (RuntimeException e) {
            journal.line("ERR", requestId, String.valueOf(e).replace('\n', ' '));
            return null;
        }
    }

    private static CommandMessage command(String requestId, String account, String kind, long amount) {
        AggregateId id = Ledger.account(account);
        Object payload = OPEN.equals(kind) ? new Ledger.Open("owner-" + account) : new Ledger.Credit(amount);
        return CommandMessage.of(id, payload, requestId);
    }

    private void stopLoad() throws InterruptedException {
        loading.set(false);
        for (Thread client : clients) {
            client.join(SEND_TIMEOUT.plusSeconds(10).toMillis());
        }
        journal.line("IDLE");
    }

    private void resend(Path file) throws IOException {
        List<String[]> commands =
                Files.readAllLines(file).stream().map(line -> line.split(" ")).toList();
        Flux.fromIterable(commands)
                .flatMap(
                        c -> lanes.gateway()
                                .send(command(c[0], c[1], c[2], Long.parseLong(c[3])), WaitStage.PROCESSED)
                                .doOnNext(result -> journal.line(
                                        "RESENT", c[0], c[1], c[2], c[3], String.valueOf(result.version())))
                                .onErrorResume(e -> {
                                    journal.line(
                                            "RESEND_FAILED",
                                            c[0],
                                            String.valueOf(e).replace('\n', ' '));
                                    return Mono.empty();
                                }),
                        16)
                .blockLast(SEND_TIMEOUT.multipliedBy(4));
        journal.line("RESEND_DONE", String.valueOf(commands.size()));
    }

    private void stop() {
        ShutdownReport report = lanes.runtime().shutdown().block(Duration.ofSeconds(90));
        deadLetters.close();
        store.close();
        journal.line(
                "STOPPED",
                "redelivered-to-" + BALANCES + "=" + redelivered.get(BALANCES),
                "redelivered-to-" + TRACKED + "=" + redelivered.get(TRACKED),
                String.valueOf(report).replace('\n', ' '));
        journal.close();
        System.exit(0);
    }

    /** The journal: one line per call, flushed before the call returns; thread-safe; nothing more once closed. */
    private static final class Journal {
        private final Writer out;
        private boolean closed;

        Journal(Path path) throws IOException {
            this.out = Files.newBufferedWriter(path, StandardCharsets.UTF_8);
        }

        synchronized void line(String... fields) {
            if (closed) {
                return;
            }
            try {
                out.write(String.join(" ", fields));
                out.write('\n');
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        synchronized void close() {
            closed = true;
            try {
                out.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
