package dev.lanes.cli.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.cli.Cli;
import dev.lanes.messaging.DomainEvent;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.postgres.PostgresDeadLetterQueue;
import dev.lanes.processing.saga.ParkedReply;
import dev.lanes.testsupport.TestPostgres;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * {@code lanes parked list|retry|skip} against a real PostgreSQL (embedded), whose dead letters are parked through the
 * {@link PostgresDeadLetterQueue} an event side would use.
 */
class ParkedCommandTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final NamedAggregate ACCOUNT = NamedAggregate.of("bank", "account");
    private static final String PROCESSOR = "Statements";

    /** The payload of the parked streams. */
    public record Noted(String text) {}

    private final AggregateId account = AggregateId.of(ACCOUNT, "acc-" + UUID.randomUUID());
    private PostgresDeadLetterQueue queue;

    /** A database of this class's own, with the Lanes schema, on the test JVM's one embedded PostgreSQL. */
    private static final String DATABASE = MigratedDatabase.create();

    private static String url() {
        return DATABASE;
    }

    @BeforeEach
    void parkThreeStreams() {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(DATABASE);
        dataSource.setUser(TestPostgres.USER);
        queue = PostgresDeadLetterQueue.open(dataSource);
        queue.enqueue(PROCESSOR, stream(2), "java.lang.IllegalArgumentException: no such currency: XXX", 3)
                .block(TIMEOUT);
        queue.enqueueIfPresent(PROCESSOR, stream(3), "parked behind the head of its sequence")
                .block(TIMEOUT);
        queue.enqueueIfPresent(PROCESSOR, stream(4), "parked behind the head of its sequence")
                .block(TIMEOUT);
    }

    @AfterEach
    void close() {
        queue.close();
    }

    @Test
    void listShowsEverySequenceAndWithProcessorAndAggregateItsLettersHeadFirst() {
        Cli.Result sequences = Cli.run("parked", "list", "--jdbc-url", url());
        Cli.Result letters =
                Cli.run("parked", "list", "--jdbc-url", url(), "--processor", PROCESSOR, "--aggregate", text());

        assertThat(sequences.exitCode()).as(sequences.err()).isZero();
        assertThat(sequences.out().lines()).contains(PROCESSOR + " " + account + ": 3 parked");
        assertThat(letters.exitCode()).as(letters.err()).isZero();
        assertThat(letters.out().lines()).hasSize(3).satisfies(lines -> {
            assertThat(lines.get(0))
                    .startsWith("#1 v2, 3 attempt(s), parked ")
                    .endsWith(": java.lang.IllegalArgumentException: no such currency: XXX");
            assertThat(lines.get(1)).startsWith("#2 v3, 0 attempt(s)");
            assertThat(lines.get(2)).startsWith("#3 v4, 0 attempt(s)");
        });
    }

    /** A saga's reply letter is listed as a reply, after the version of the stream whose event caused its command. */
    @Test
    void listShowsASagaReplyLetterAsAReplyToItsCommand() {
        AggregateId order = AggregateId.of(NamedAggregate.of("bank", "transfer"), "t-" + UUID.randomUUID());
        DomainEventStream cause = new DomainEventStream(
                UUID.randomUUID().toString(),
                order,
                1,
                "request-1",
                "command-1",
                List.of(new DomainEvent(1, new Noted("transfer"))),
                Instant.now().truncatedTo(ChronoUnit.MICROS),
                Map.of());
        queue.enqueueReply(
                        "Transfers",
                        cause,
                        new ParkedReply(1, account, new Noted("credit"), "saga:Transfers:x/1:1"),
                        "java.lang.IllegalStateException: compensation failed",
                        2)
                .block(TIMEOUT);

        Cli.Result letters = Cli.run(
                "parked", "list", "--jdbc-url", url(), "--processor", "Transfers", "--aggregate", order.toString());

        assertThat(letters.exitCode()).as(letters.err()).isZero();
        assertThat(letters.out().lines())
                .singleElement()
                .satisfies(line -> assertThat(line)
                        .startsWith("#1 v1 reply to Noted for " + account
                                + " (request saga:Transfers:x/1:1, cause event 1), 2 attempt(s), parked ")
                        .endsWith(": java.lang.IllegalStateException: compensation failed"));
    }

    @Test
    void retryRecordsARequestThatTheEventSideTakesOnce() {
        Cli.Result result =
                Cli.run("parked", "retry", "--jdbc-url", url(), "--processor", PROCESSOR, "--aggregate", text());

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out()).contains("Requested a retry of " + account + " in " + PROCESSOR + " (3 parked)");
        assertThat(queue.takeRetryRequests(Set.of(PROCESSOR)).block(TIMEOUT))
                .filteredOn(sequence -> sequence.aggregateId().equals(account))
                .singleElement()
                .satisfies(sequence -> assertThat(sequence.size()).isEqualTo(3));
        assertThat(queue.takeRetryRequests(Set.of(PROCESSOR)).block(TIMEOUT)).isEmpty();
    }

    @Test
    void skipRemovesTheHeadAndRequestsARetryOfTheRest() {
        Cli.Result result =
                Cli.run("parked", "skip", "--jdbc-url", url(), "--processor", PROCESSOR, "--aggregate", text());

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out())
                .contains("Skipped DeadLetter[" + PROCESSOR + " #1")
                .contains("2 letter(s) behind it");
        assertThat(queue.list(PROCESSOR, account).block(TIMEOUT))
                .extracting(letter -> letter.stream().version())
                .containsExactly(3, 4);
        assertThat(queue.takeRetryRequests(Set.of(PROCESSOR)).block(TIMEOUT))
                .extracting(sequence -> sequence.aggregateId())
                .contains(account);
    }

    @Test
    void retryOrSkipOfNothingParkedIsOneLineAndExitsWithFour() {
        String other = "bank.account/acc-" + UUID.randomUUID();

        Cli.Result result =
                Cli.run("parked", "skip", "--jdbc-url", url(), "--processor", PROCESSOR, "--aggregate", other);

        assertThat(result.exitCode()).isEqualTo(ExitCode.NOTHING_PARKED);
        assertThat(result.err().lines())
                .containsExactly("lanes parked skip: nothing is parked for " + other + " in " + PROCESSOR);
    }

    @Test
    void anAggregateNotInTheFormLanesPrintsIsABadOption() {
        Cli.Result result =
                Cli.run("parked", "retry", "--jdbc-url", url(), "--processor", PROCESSOR, "--aggregate", "acc-1");

        assertThat(result.exitCode()).isEqualTo(ExitCode.BAD_OPTION);
        assertThat(result.err().lines())
                .containsExactly(
                        "Invalid value for option '--aggregate': 'acc-1' is not CONTEXT.AGGREGATE/ID (e.g."
                                + " bank.account/acc-1)",
                        "Try 'lanes parked retry --help' for more information.");
    }

    @Test
    void retryWithoutProcessorAndAggregateIsABadOption() {
        Cli.Result result = Cli.run("parked", "retry", "--jdbc-url", url());

        assertThat(result.exitCode()).isEqualTo(ExitCode.BAD_OPTION);
        assertThat(result.err()).startsWith("Missing required options: --processor and --aggregate");
    }

    @Test
    void aDeadDatabaseIsOneLineNamingHostAndPortAndExitsWithThree() {
        Cli.Result result =
                Cli.run("parked", "list", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/x", "--db-password", "hunter2");

        assertThat(result.exitCode()).isEqualTo(ExitCode.INFRASTRUCTURE_UNAVAILABLE);
        assertThat(result.err().lines())
                .containsExactly("lanes parked list: cannot reach PostgreSQL at 127.0.0.1:1 (Connection refused)");
    }

    @Test
    void aDatabaseWithoutTheSchemaIsOneLineSayingSo() {
        Cli.Result result = Cli.run("parked", "list", "--jdbc-url", url() + "?currentSchema=nothing_here");

        assertThat(result.exitCode()).isEqualTo(ExitCode.INFRASTRUCTURE_UNAVAILABLE);
        assertThat(result.err().lines())
                .singleElement()
                .satisfies(line -> assertThat(line)
                        .startsWith("lanes parked list: PostgreSQL at 127.0.0.1:")
                        .contains("relation \"lanes_dead_letters\" does not exist"));
    }

    private String text() {
        return account.toString();
    }

    private DomainEventStream stream(int version) {
        return new DomainEventStream(
                UUID.randomUUID().toString(),
                account,
                version,
                "request-" + version,
                "command-" + version,
                List.of(new DomainEvent(1, new Noted("v" + version))),
                Instant.now().truncatedTo(ChronoUnit.MICROS),
                Map.of());
    }
}
