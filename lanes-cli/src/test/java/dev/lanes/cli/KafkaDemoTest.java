package dev.lanes.cli;

import static dev.lanes.cli.ReportAssertions.assertStableFieldsAndAllPass;
import static dev.lanes.cli.ReportAssertions.invariantNames;
import static dev.lanes.cli.ReportAssertions.readReport;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanes.cli.command.ExitCode;
import dev.lanes.testsupport.TestKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code lanes demo --bus kafka}: the bank on the in-process broker, one and two instances, the same invariants. */
class KafkaDemoTest {

    /** A small bank on two instances over the in-process broker, quiet, with {@code more} options. */
    private static Cli.Result twoInstances(String... more) {
        List<String> args = new ArrayList<>(List.of(
                "demo",
                "--bus",
                "kafka",
                "--bootstrap-servers",
                TestKafka.bootstrapServers(),
                "--instances",
                "2",
                "--partitions",
                "4",
                "--accounts",
                "20",
                "--clients",
                "8",
                "-q"));
        args.addAll(List.of(more));
        return Cli.run(args.toArray(String[]::new));
    }

    @Test
    void twoInstancesSharingTheBrokerPassEveryInvariant(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("kafka.json");

        Cli.Result result = twoInstances("--commands", "300", "--json", json.toString());

        assertThat(result.exitCode()).as(result.out() + result.err()).isZero();
        assertThat(result.out())
                .contains("Lanes demo: the bank end to end on the in-memory event store and Kafka, 2 instance(s)")
                .contains("Result        PASS");
        JsonNode report = readReport(json);
        assertStableFieldsAndAllPass(report, "demo");
        assertThat(invariantNames(report))
                .containsExactlyInAnyOrder(
                        "money conserved",
                        "versions gapless",
                        "per-account order",
                        "projection = replay",
                        "nothing lost",
                        "every command answered",
                        "graceful stop");
        assertThat(topicsAndGroupsOfTheRun(result.out()))
                .as("kept for inspection without --delete-topics")
                .contains(
                        runPrefix(result.out()) + ".bank.commands",
                        runPrefix(result.out()) + ".bank.events",
                        "group " + runPrefix(result.out()) + ".commands");
    }

    @Test
    void deleteTopicsLeavesNothingOfTheRunOnTheBroker() throws Exception {
        Cli.Result result = twoInstances("--commands", "200", "--delete-topics");

        assertThat(result.exitCode()).as(result.out() + result.err()).isZero();
        assertThat(result.out()).contains("Result        PASS");
        assertThat(result.err()).doesNotContain("were not all deleted");
        // the deletion is committed when the run ends; the broker's metadata may show it a moment later
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () -> assertThat(topicsAndGroupsOfTheRun(result.out())).isEmpty());
    }

    /** The prefix of the run's topics, from the report's setup line ({@code (topics lanes_run_<millis>.bank...}). */
    private static String runPrefix(String out) {
        Matcher topics = Pattern.compile("topics (lanes_run_\\d+)\\.").matcher(out);
        assertThat(topics.find()).as(out).isTrue();
        return topics.group(1);
    }

    /** The broker's topics, and consumer groups as "group NAME", whose names begin with the run's prefix. */
    private static List<String> topicsAndGroupsOfTheRun(String out) throws Exception {
        String prefix = runPrefix(out) + ".";
        try (Admin admin = Admin.create(
                Map.<String, Object>of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers()))) {
            List<String> found = new ArrayList<>();
            admin.listTopics().names().get(30, TimeUnit.SECONDS).stream()
                    .filter(topic -> topic.startsWith(prefix))
                    .forEach(found::add);
            admin.listGroups(ListGroupsOptions.forConsumerGroups()).all().get(30, TimeUnit.SECONDS).stream()
                    .map(GroupListing::groupId)
                    .filter(group -> group.startsWith(prefix))
                    .forEach(group -> found.add("group " + group));
            return found;
        }
    }

    @Test
    void kafkaPropertiesReachEveryClientOfTheRun() {
        Cli.Result classic = twoInstances(
                "--kafka-property",
                "group.protocol=classic",
                "--kafka-property",
                "partition.assignment.strategy=org.apache.kafka.clients.consumer.CooperativeStickyAssignor",
                "--commands",
                "200");
        assertThat(classic.exitCode()).as(classic.out() + classic.err()).isZero();
        assertThat(classic.out()).contains("Result        PASS");

        // a value the consumers refuse: the run fails at start, naming the setting
        Cli.Result refused = Cli.run(
                "demo",
                "--bus",
                "kafka",
                "--bootstrap-servers",
                TestKafka.bootstrapServers(),
                "--kafka-property",
                "group.protocol=neither",
                "--commands",
                "10",
                "-q");
        assertThat(refused.exitCode()).as(refused.out() + refused.err()).isEqualTo(ExitCode.BAD_OPTION);
        assertThat(refused.err().lines())
                .as(refused.err())
                .singleElement()
                .asString()
                .startsWith("lanes demo: a Kafka client refused its settings (--kafka-property): Invalid value"
                        + " neither for configuration group.protocol");
    }

    @Test
    void anUnreachableBrokerIsOneLineNamingItAndExitsWithThree() {
        Cli.Result result =
                Cli.run("demo", "--bus", "kafka", "--bootstrap-servers", "127.0.0.1:1", "--commands", "10", "-q");

        assertThat(result.exitCode()).as(result.err()).isEqualTo(ExitCode.INFRASTRUCTURE_UNAVAILABLE);
        assertThat(result.err().lines())
                .as(result.err())
                .singleElement()
                .asString()
                .startsWith("lanes demo: cannot reach Kafka at 127.0.0.1:1 (");
        assertThat(result.out() + result.err()).doesNotContain("Exception");
    }

    @Test
    void kafkaOptionsAreCheckedBeforeAnythingRuns() {
        assertThat(Cli.run("demo", "--bus", "kafka").err()).contains("--bus kafka needs --bootstrap-servers");
        assertThat(Cli.run("demo", "--bootstrap-servers", "h:1").err())
                .contains("--bootstrap-servers needs --bus kafka");
        assertThat(Cli.run("demo", "--instances", "3").err()).contains("--instances 3 needs --bus kafka");
        assertThat(Cli.run("demo", "--kafka-property", "linger.ms=5").err())
                .contains("--kafka-property needs --bus kafka");
        assertThat(Cli.run("demo", "--delete-topics").err()).contains("--delete-topics needs --bus kafka");
        assertThat(Cli.run("demo", "--bus", "kafka", "--bootstrap-servers", "h:1", "--kafka-property", "linger.ms")
                        .err())
                .contains("linger.ms");
        Cli.Result bad = Cli.run("demo", "--bus", "kafka", "--bootstrap-servers", "no-port");
        assertThat(bad.exitCode()).isEqualTo(ExitCode.BAD_OPTION);
        assertThat(bad.err()).contains("'no-port' is not a list of HOST:PORT");
    }
}
