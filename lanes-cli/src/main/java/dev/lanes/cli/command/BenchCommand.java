package dev.lanes.cli.command;

import dev.lanes.cli.bank.BankRun;
import dev.lanes.cli.bank.Buses;
import dev.lanes.cli.bank.EventFlow;
import dev.lanes.cli.bank.Stores;
import dev.lanes.cli.engine.EngineRun;
import dev.lanes.cli.engine.Scenario;
import dev.lanes.cli.report.Report;
import dev.lanes.cli.report.ReportOutput;
import dev.lanes.cli.run.Progress;
import dev.lanes.cli.run.StopRequest;
import dev.lanes.cli.trace.DemoTracing;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.dispatch.MessageParallelism;
import dev.lanes.examples.bank.AccountCommand;
import dev.lanes.examples.bank.Bank;
import dev.lanes.kafka.KafkaBuses;
import dev.lanes.kafka.KafkaOptions;
import dev.lanes.messaging.CommandMessage;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code lanes bench --scenario ...}: the lane engine's scenarios and the command path, with the same report. */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Runs one load scenario and prints the report. Scenarios:",
            "  throughput  zero-cost handler (default 500,000 messages over 10,000 ids)",
            "  cpu         a handler burning --cpu-micros of CPU (default 50,000 messages)",
            "  hot-key     one hot id (--hot-share of the traffic) whose handler waits 2 ms",
            "              (Mono.delay) on 1%% of its messages; open loop at --rate",
            "              (default 40,000/s); the other ids' latency is reported apart",
            "  stuck-lane  one lane's handler never completes; every other lane must be",
            "              handled (open loop at --rate, default 50,000/s, so that under",
            "              --overflow reject only the stuck lane overflows); the stop is then",
            "              forced by its deadline (default 1 s)",
            "  many-types  --types aggregate types (default 20) sharing one supplier",
            "  command     gateway, command bus, command dispatcher, in-memory store,",
            "              PROCESSED (default 300,000 deposits counted after 5 s of warm-up,",
            "              1,000 accounts, 64 clients)",
            ""
        })
final class BenchCommand implements Callable<Integer> {
    private static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration STUCK_LANE_SHUTDOWN_TIMEOUT = Duration.ofSeconds(1);
    /** The command scenario's warm-up: the JIT compiles the path and the heap grows to its size meanwhile. */
    private static final Duration COMMAND_WARMUP = Duration.ofSeconds(5);
    /**
     * The same with PostgreSQL or Kafka: the JIT compiles the driver's and the clients' code too, on cores it shares
     * with the backends (on 2 cores, 5 s left a third of the CLI's CPU to the compiler in the measured phase).
     */
    private static final Duration BACKEND_COMMAND_WARMUP = Duration.ofSeconds(15);

    @Spec
    @SuppressWarnings("NullAway.Init") // injected by picocli before call()
    CommandSpec spec;

    private final StopRequest stop;

    @Option(
            names = "--scenario",
            required = true,
            converter = ScenarioConverter.class,
            completionCandidates = ScenarioConverter.Labels.class,
            paramLabel = "SCENARIO",
            description = "One of: ${COMPLETION-CANDIDATES}.")
    @SuppressWarnings("NullAway.Init") // required: picocli sets it before call()
    Scenario scenario;

    @Option(
            names = "--strategy",
            defaultValue = "KEYED",
            description = "Lanes: HASHED or KEYED (default: ${DEFAULT-VALUE}).")
    LaneStrategy strategy = LaneStrategy.KEYED;

    @Option(
            names = "--aggregates",
            converter = Converters.Positive.class,
            paramLabel = "K",
            description = "Aggregate ids per type (default: 10,000; command: 1,000 accounts).")
    @Nullable
    Integer aggregates;

    @Option(
            names = "--messages",
            converter = Converters.Positive.class,
            paramLabel = "M",
            description = "Messages (commands) in all (default: by scenario, see above).")
    @Nullable
    Integer messages;

    @Option(
            names = "--types",
            converter = Converters.Positive.class,
            paramLabel = "T",
            description = "Aggregate types (default: many-types 20, others 1).")
    @Nullable
    Integer types;

    @Option(
            names = "--rate",
            converter = Converters.NotNegative.class,
            paramLabel = "PER_SECOND",
            description = "Open-loop rate of a paced source; 0 lets the dispatchers pull as fast as they go"
                    + " (default: hot-key 40,000, others 0).")
    @Nullable
    Integer rate;

    @Option(
            names = "--cpu-micros",
            defaultValue = "20",
            converter = Converters.Positive.class,
            description = "CPU a handler burns in the cpu scenario, in microseconds (default: ${DEFAULT-VALUE}).")
    int cpuMicros = 20;

    @Option(
            names = "--hot-share",
            defaultValue = "0.25",
            converter = Converters.Fraction.class,
            description = "Share of the messages that go to the hot id (default: ${DEFAULT-VALUE}).")
    double hotShare = 0.25;

    @Option(
            names = "--overflow",
            defaultValue = "PAUSE",
            description =
                    "What a full lane does: PAUSE the intake or REJECT to the source (default: ${DEFAULT-VALUE}).")
    LaneSettings.Overflow overflow = LaneSettings.Overflow.PAUSE;

    @Option(
            names = "--parallelism",
            converter = Converters.Positive.class,
            description = "Lane groups under HASHED (default: 64 x CPUs).")
    @Nullable
    Integer parallelism;

    @Option(
            names = "--warmup",
            converter = Converters.Warmup.class,
            paramLabel = "DURATION",
            description = "Latencies of messages created this early are left out, 0s to 1h; command: the commands"
                    + " sent this early warm the JVM up, stored and audited but counted in neither the throughput nor"
                    + " the latencies (default: hot-key 1s, command 5s, or 15s with --store postgres or --bus kafka,"
                    + " others 0).")
    @Nullable
    Duration warmup;

    @Option(
            names = "--clients",
            defaultValue = "64",
            converter = Converters.Positive.class,
            description = "command: concurrent clients, one command in flight each (default: ${DEFAULT-VALUE}).")
    int clients = 64;

    @Option(
            names = "--raw-baseline",
            arity = "0..1",
            fallbackValue = "5s",
            converter = RawBaselineDuration.class,
            paramLabel = "DURATION",
            description = "command, with --store postgres and/or --bus kafka: first measure each backend's own rate for"
                    + " DURATION (default 5s) with Lanes' row and record shape (PostgreSQL: multi-row INSERTs of 500"
                    + " rows per transaction into a scratch table of the run's schema; Kafka: an idempotent acks=all"
                    + " producer of command-sized records), then run Lanes; the report's notes give both rates and"
                    + " the ratio.")
    @Nullable
    Duration rawBaseline;

    @Mixin
    ReportOptions report = new ReportOptions();

    @Mixin
    StoreOptions store = new StoreOptions();

    @Mixin
    BusOptions bus = new BusOptions();

    @Option(
            names = "--trace",
            description = "Command scenario: trace every send, lane and processor with OpenTelemetry (every trace"
                    + " sampled, spans batched to an exporter that drops them): what tracing costs.")
    boolean trace;

    @Option(
            names = "--trace-sample",
            converter = Converters.Fraction.class,
            paramLabel = "RATIO",
            description = "With --trace: sample this share of the traces (parent-based, by trace id), e.g. 0.01;"
                    + " every trace unless set.")
    @Nullable
    Double traceSample;

    BenchCommand(StopRequest stop) {
        this.stop = stop;
    }

    @Override
    public Integer call() {
        report.validate(spec);
        store.validate(spec);
        bus.validate(spec);
        if (traceSample != null && !trace) {
            throw new ParameterException(spec.commandLine(), "--trace-sample needs --trace");
        }
        if (trace && scenario != Scenario.COMMAND) {
            throw new ParameterException(
                    spec.commandLine(), "--trace needs --scenario command (the engine scenarios run no gateway)");
        }
        if (bus.kind != BusOptions.Kind.MEMORY && scenario != Scenario.COMMAND) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--bus " + bus.kind.name().toLowerCase(java.util.Locale.ROOT)
                            + " needs --scenario command (the engine scenarios run no bus)");
        }
        if (rawBaseline != null
                && (scenario != Scenario.COMMAND
                        || (store.kind != StoreOptions.Kind.POSTGRES && bus.kind != BusOptions.Kind.KAFKA))) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--raw-baseline needs --scenario command with --store postgres or --bus kafka (a backend to"
                            + " measure)");
        }
        Progress progress = Progress.of(spec.commandLine().getOut(), report.quiet);
        Report result = scenario == Scenario.COMMAND ? command(progress) : engine(progress);
        boolean passed = ReportOutput.emit(
                result,
                report.json,
                report.html,
                spec.commandLine().getOut(),
                spec.commandLine().getErr());
        return passed ? ExitCode.PASSED : ExitCode.INVARIANT_FAILED;
    }

    private Report command(Progress progress) {
        Buses buses = bus.open();
        try (Stores stores = store.open(spec.commandLine().getErr())) {
            Duration raw = rawBaseline;
            if (raw == null) {
                return command(progress, stores, buses);
            }
            List<RawBaseline.Rate> rates = rawRates(progress, buses, raw);
            Report lanes = command(progress, stores, buses);
            return lanes.withNotes(RawBaseline.notes(
                    rates, lanes.load().throughputPerSecond(), lanes.setup().unit()));
        } finally {
            bus.deleteRunTopics(spec.commandLine().getErr());
        }
    }

    /** The backends' own rates, before Lanes runs against them. */
    private List<RawBaseline.Rate> rawRates(Progress progress, Buses buses, Duration duration) {
        List<RawBaseline.Rate> rates = new ArrayList<>();
        String url = store.runUrl;
        if (url != null) {
            progress.phase("Raw baseline: PostgreSQL, " + duration.toMillis() + " ms");
            try {
                rates.add(RawBaseline.postgres(url, store.connectionProperties(), duration));
            } catch (SQLException e) {
                throw new IllegalStateException("Raw PostgreSQL baseline failed: " + e.getMessage(), e);
            }
        }
        KafkaOptions kafka = buses.kafka();
        if (kafka != null) {
            progress.phase("Raw baseline: Kafka, " + duration.toMillis() + " ms");
            int recordBytes = KafkaBuses.create(kafka)
                    .commandRecordBytes(CommandMessage.of(
                            Bank.account("acct-999"), new AccountCommand.Deposit(42, "dep-0000000000")));
            rates.add(RawBaseline.kafka(kafka, bus.partitions, recordBytes, duration));
        }
        return rates;
    }

    /** The raw baseline's duration: 10 ms to 1 h. */
    static final class RawBaselineDuration extends Converters.BoundedDuration {
        RawBaselineDuration() {
            super("10ms", "1h");
        }
    }

    private Report command(Progress progress, Stores stores, Buses buses) {
        BankRun.Settings settings = new BankRun.Settings(
                BankRun.Workload.DEPOSITS,
                strategy,
                orDefault(aggregates, 1_000),
                clients,
                warmup != null ? warmup : commandWarmup(store.kind, bus.kind),
                null,
                orDefault(messages, 300_000),
                report.shutdownTimeout(DEFAULT_SHUTDOWN_TIMEOUT),
                report.sampleInterval,
                report.seed,
                stores,
                buses,
                EventFlow.DEFAULT);
        if (!trace) {
            return BankRun.run(settings, progress, stop);
        }
        Double sample = traceSample;
        DemoTracing tracing = DemoTracing.dropping(sample == null ? 1.0 : sample);
        Report traced;
        try (tracing) {
            traced = BankRun.run(settings, progress, stop, tracing.tracing());
        }
        String spans = tracing.spanCounts();
        return spans == null ? traced : traced.withNotes(List.of(spans));
    }

    /** The command scenario's warm-up when {@code --warmup} is not given. */
    static Duration commandWarmup(StoreOptions.Kind store, BusOptions.Kind bus) {
        return store == StoreOptions.Kind.MEMORY && bus == BusOptions.Kind.MEMORY
                ? COMMAND_WARMUP
                : BACKEND_COMMAND_WARMUP;
    }

    private Report engine(Progress progress) {
        int ids = orDefault(aggregates, 10_000);
        if (scenario == Scenario.HOT_KEY && ids < 2) {
            throw new ParameterException(
                    spec.commandLine(),
                    "Invalid value for option '--aggregates': hot-key needs a hot id and others, at least 2, but was '"
                            + ids + "'");
        }
        EngineRun.Settings settings = new EngineRun.Settings(
                scenario,
                strategy,
                orDefault(parallelism, MessageParallelism.DEFAULT_PARALLELISM),
                overflow,
                ids,
                orDefault(messages, defaultMessages()),
                orDefault(types, scenario == Scenario.MANY_TYPES ? 20 : 1),
                orDefault(rate, defaultRate()),
                cpuMicros,
                hotShare,
                100,
                Duration.ofMillis(2),
                warmup != null ? warmup : scenario == Scenario.HOT_KEY ? Duration.ofSeconds(1) : Duration.ZERO,
                report.shutdownTimeout(
                        scenario == Scenario.STUCK_LANE ? STUCK_LANE_SHUTDOWN_TIMEOUT : DEFAULT_SHUTDOWN_TIMEOUT),
                report.sampleInterval,
                report.seed);
        return EngineRun.run(settings, progress, stop);
    }

    private int defaultMessages() {
        return switch (scenario) {
            case CPU -> 50_000;
            case HOT_KEY, STUCK_LANE -> 100_000;
            case COMMAND -> 300_000;
            default -> 500_000;
        };
    }

    /** Open loop for the scenarios about latency and isolation; pulled as fast as it goes for the others. */
    private int defaultRate() {
        return switch (scenario) {
            case HOT_KEY -> 40_000;
            case STUCK_LANE -> 50_000;
            default -> 0;
        };
    }

    private static int orDefault(@Nullable Integer value, int otherwise) {
        return value != null ? value : otherwise;
    }
}
