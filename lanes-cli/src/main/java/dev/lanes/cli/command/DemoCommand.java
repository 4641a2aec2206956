package dev.lanes.cli.command;

import dev.lanes.cli.bank.BankRun;
import dev.lanes.cli.bank.Buses;
import dev.lanes.cli.bank.EventFlow;
import dev.lanes.cli.bank.Stores;
import dev.lanes.cli.orders.OrdersRun;
import dev.lanes.cli.report.Report;
import dev.lanes.cli.report.ReportOutput;
import dev.lanes.cli.report.Waterfall;
import dev.lanes.cli.run.Progress;
import dev.lanes.cli.run.StopRequest;
import dev.lanes.cli.trace.DemoTracing;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.tracing.MessageTracing;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code lanes demo}: the bank end to end, then a graceful stop, an audit of the store and the report. */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "The bank end to end on the embedded defaults (in-memory event store, command bus and event bus),"
                    + " or on PostgreSQL (--store postgres) and Kafka (--bus kafka, with --instances N sharing them):"
                    + " opens the accounts, then concurrent clients send deposits, withdrawals and transfers (a"
                    + " saga credits the target) for a duration or a count, with a live progress line on a terminal;"
                    + " then a graceful stop, an audit of the event store and the report. --scenario orders runs the"
                    + " order-fulfilment process manager instead.",
            ""
        })
final class DemoCommand implements Callable<Integer> {
    static final Duration DEFAULT_DURATION = Duration.ofSeconds(10);
    private static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);

    @Spec
    @SuppressWarnings("NullAway.Init") // injected by picocli before call()
    CommandSpec spec;

    private final StopRequest stop;

    @Option(
            names = "--scenario",
            defaultValue = "bank",
            paramLabel = "bank|orders",
            description = "bank (default): accounts, transfers and their saga; orders: the order-fulfilment process"
                    + " manager (reserve stock, await payment under a deadline, ship or cancel) with --orders,"
                    + " --clients and --payment-timeout, then its audit.")
    String scenario = "bank";

    @Option(
            names = "--orders",
            defaultValue = "200",
            converter = Converters.Positive.class,
            description = "With --scenario orders: orders to place; 7 in 10 are paid (default: ${DEFAULT-VALUE}).")
    int orders = 200;

    @Option(
            names = "--payment-timeout",
            defaultValue = "2s",
            converter = Converters.RunDuration.class,
            paramLabel = "DURATION",
            description = "With --scenario orders: how long an order waits for its payment. The sample's process"
                    + " waits 15 minutes; the demo shortens it so it ends in seconds (default: ${DEFAULT-VALUE}).")
    Duration paymentTimeout = Duration.ofSeconds(2);

    @Option(
            names = "--accounts",
            defaultValue = "1000",
            converter = Converters.Positive.class,
            description = "Accounts to open (default: ${DEFAULT-VALUE}).")
    int accounts = 1000;

    @Option(
            names = "--clients",
            defaultValue = "32",
            converter = Converters.Positive.class,
            description = "Concurrent clients, each with one command in flight (default: ${DEFAULT-VALUE}).")
    int clients = 32;

    @Option(
            names = "--warmup",
            defaultValue = "0s",
            converter = Converters.Warmup.class,
            paramLabel = "DURATION",
            description = "Send this long first to warm the JVM up, 0s to 1h: those commands are stored and audited but"
                    + " counted in neither the throughput nor the latencies (default: ${DEFAULT-VALUE}).")
    Duration warmup = Duration.ZERO;

    @ArgGroup(exclusive = true, multiplicity = "0..1")
    @Nullable
    Amount amount;

    @Option(
            names = "--strategy",
            defaultValue = "KEYED",
            description = "Lanes: HASHED or KEYED (default: ${DEFAULT-VALUE}).")
    LaneStrategy strategy = LaneStrategy.KEYED;

    @Option(
            names = "--event-bus-budget",
            defaultValue = "4096",
            converter = Converters.Positive.class,
            description = "Streams each event consumer group may hold before new commands of its type pause"
                    + " (default: ${DEFAULT-VALUE}).")
    int eventBusBudget = 4096;

    @Option(
            names = "--event-lane-bounds",
            defaultValue = "1024/16384",
            converter = Converters.Bounds.class,
            paramLabel = "PER_LANE/TOTAL",
            description = "Streams an event processor's lane, and the whole processor, may hold before it pauses"
                    + " its intake (default: ${DEFAULT-VALUE}).")
    Converters.LaneBounds eventLaneBounds = new Converters.LaneBounds(1024, 16_384);

    @Mixin
    ReportOptions report = new ReportOptions();

    @Mixin
    StoreOptions store = new StoreOptions();

    @Mixin
    BusOptions bus = new BusOptions();

    @Mixin
    TraceOptions tracing = new TraceOptions();

    DemoCommand(StopRequest stop) {
        this.stop = stop;
    }

    /** How much load: a duration or a number of commands, not both. */
    static final class Amount {
        @Option(
                names = "--duration",
                required = true,
                converter = Converters.RunDuration.class,
                paramLabel = "DURATION",
                description = "How long the clients send, 1ms to 24h, e.g. 10s, 500ms, 1m (default: 10s).")
        @Nullable
        Duration duration;

        @Option(
                names = "--commands",
                required = true,
                converter = Converters.Positive.class,
                description = "Send this many commands in all instead of for a duration.")
        @Nullable
        Integer commands;
    }

    @Override
    public Integer call() {
        report.validate(spec);
        store.validate(spec);
        bus.validate(spec);
        tracing.validate(spec);
        Duration duration = DEFAULT_DURATION;
        long commands = 0;
        Amount given = amount;
        if (given != null && given.commands != null) {
            duration = null;
            commands = given.commands;
        } else if (given != null && given.duration != null) {
            duration = given.duration;
        }
        if (!scenario.equals("bank") && !scenario.equals("orders")) {
            throw new ParameterException(
                    spec.commandLine(), "Invalid value for option '--scenario': '" + scenario + "' (bank or orders)");
        }
        if (scenario.equals("orders")) {
            try (Stores stores = store.open(spec.commandLine().getErr())) {
                return OrdersRun.run(
                                new OrdersRun.Settings(orders, clients, paymentTimeout, stores),
                                spec.commandLine().getOut())
                        ? ExitCode.PASSED
                        : ExitCode.INVARIANT_FAILED;
            }
        }
        Report result;
        Buses buses = bus.open();
        DemoTracing traced = tracing.open();
        Waterfall waterfall = null;
        try (Stores stores = store.open(spec.commandLine().getErr())) {
            result = BankRun.run(
                    settings(duration, commands, stores, buses),
                    Progress.of(spec.commandLine().getOut(), report.quiet),
                    stop,
                    traced == null ? MessageTracing.NONE : traced.tracing());
        } finally {
            bus.deleteRunTopics(spec.commandLine().getErr());
            if (traced != null) {
                traced.close();
                waterfall = traced.waterfall();
                spec.commandLine()
                        .getOut()
                        .println("Tracing       " + traced.describe() + "; "
                                + (waterfall == null
                                        ? "no transfer was traced in full"
                                        : "trace " + waterfall.traceId() + " is drawn in the HTML report"));
            }
        }
        boolean passed = ReportOutput.emit(
                result,
                waterfall,
                report.json,
                report.html,
                spec.commandLine().getOut(),
                spec.commandLine().getErr());
        return passed ? ExitCode.PASSED : ExitCode.INVARIANT_FAILED;
    }

    private BankRun.Settings settings(@Nullable Duration duration, long commands, Stores stores, Buses buses) {
        return new BankRun.Settings(
                BankRun.Workload.DEMO,
                strategy,
                accounts,
                clients,
                warmup,
                duration,
                commands,
                report.shutdownTimeout(DEFAULT_SHUTDOWN_TIMEOUT),
                report.sampleInterval,
                report.seed,
                stores,
                buses,
                new EventFlow(eventBusBudget, eventLaneBounds.perLane(), eventLaneBounds.total()));
    }
}
