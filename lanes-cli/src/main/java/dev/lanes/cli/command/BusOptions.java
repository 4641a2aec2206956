package dev.lanes.cli.command;

import dev.lanes.cli.bank.Buses;
import dev.lanes.kafka.KafkaOptions;
import dev.lanes.kafka.TopicNaming;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** Which buses carry the bank's commands and events: in memory (default) or Kafka, and how many instances share it. */
final class BusOptions {
    /** How long the check at open waits for a broker to answer. */
    static final int PROBE_SECONDS = 5;

    private static final Pattern SERVERS = Pattern.compile("[^,:\\s]+:\\d{1,5}(,[^,:\\s]+:\\d{1,5})*");

    enum Kind {
        MEMORY,
        KAFKA
    }

    @Option(names = "--bus", defaultValue = "memory", description = "memory or kafka (default: ${DEFAULT-VALUE}).")
    Kind kind = Kind.MEMORY;

    @Option(
            names = "--bootstrap-servers",
            paramLabel = "HOST:PORT[,HOST:PORT...]",
            description = "With --bus kafka: the brokers to connect to. Each run creates its own topics"
                    + " (lanes_run_<millis>.*) with --partitions partitions and replication factor 1.")
    @Nullable
    String bootstrapServers;

    @Option(
            names = "--instances",
            defaultValue = "1",
            converter = Converters.Positive.class,
            description = "With --bus kafka: Lanes instances in this process sharing the broker and the store, to show"
                    + " the scale-out (default: ${DEFAULT-VALUE}).")
    int instances = 1;

    @Option(
            names = "--partitions",
            defaultValue = "12",
            converter = Converters.Positive.class,
            description = "With --bus kafka: partitions of each topic the run creates (default: ${DEFAULT-VALUE}).")
    int partitions = 12;

    @Option(
            names = "--kafka-property",
            paramLabel = "KEY=VALUE",
            description = "With --bus kafka: a setting of every Kafka client of the run (repeatable), e.g."
                    + " security.protocol=SSL, or group.protocol=classic with"
                    + " partition.assignment.strategy=org.apache.kafka.clients.consumer.CooperativeStickyAssignor.")
    Map<String, String> kafkaProperties = new LinkedHashMap<>();

    void validate(CommandSpec spec) {
        String servers = bootstrapServers;
        if (kind == Kind.MEMORY && !kafkaProperties.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--kafka-property needs --bus kafka");
        }
        if (kind == Kind.KAFKA && servers == null) {
            throw new ParameterException(spec.commandLine(), "--bus kafka needs --bootstrap-servers");
        }
        if (kind == Kind.MEMORY && servers != null) {
            throw new ParameterException(spec.commandLine(), "--bootstrap-servers needs --bus kafka");
        }
        if (kind == Kind.MEMORY && instances != 1) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--instances " + instances + " needs --bus kafka (the in-memory buses live in one instance)");
        }
        if (servers != null && !SERVERS.matcher(servers).matches()) {
            throw new ParameterException(
                    spec.commandLine(),
                    "Invalid value for option '--bootstrap-servers': '" + servers
                            + "' is not a list of HOST:PORT (e.g. 127.0.0.1:9092,broker2:9092)");
        }
    }

    /**
     * The buses of the run. For Kafka, first checks that a broker answers.
     *
     * @throws InfrastructureUnavailableException when no broker answers within {@value #PROBE_SECONDS} s or the
     *     servers cannot be resolved, naming them
     */
    Buses open() {
        String servers = bootstrapServers;
        if (kind == Kind.MEMORY || servers == null) {
            return Buses.memory();
        }
        probe(servers, kafkaProperties);
        KafkaOptions options = KafkaOptions.of(servers)
                .withTopics(TopicNaming.perContext("lanes_run_" + System.currentTimeMillis()))
                .withTopicCreation(partitions, (short) 1)
                .withInstanceId("lanes-demo");
        for (Map.Entry<String, String> property : kafkaProperties.entrySet()) {
            options = options.withClientProperty(property.getKey(), property.getValue());
        }
        return Buses.kafka(options, instances);
    }

    /** Checks that a broker answers, with the run's client settings (security ones included). */
    private static void probe(String servers, Map<String, String> clientProperties) {
        Properties properties = new Properties();
        properties.putAll(clientProperties);
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
        properties.put(AdminClientConfig.CLIENT_ID_CONFIG, "lanes-cli-probe");
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Integer.toString(PROBE_SECONDS * 1000));
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Integer.toString(PROBE_SECONDS * 1000));
        try (Admin admin = Admin.create(properties)) {
            admin.describeCluster().nodes().get(PROBE_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw unreachable(servers, "no broker answered within " + PROBE_SECONDS + " s");
        } catch (ExecutionException e) {
            throw unreachable(servers, reason(e.getCause() == null ? e : e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unreachable(servers, "interrupted");
        } catch (RuntimeException e) {
            throw unreachable(servers, reason(e));
        }
    }

    private static InfrastructureUnavailableException unreachable(String servers, String why) {
        return InfrastructureUnavailableException.unreachable("Kafka", servers, why);
    }

    private static String reason(Throwable failure) {
        if (failure instanceof org.apache.kafka.common.errors.TimeoutException) {
            return "no broker answered within " + PROBE_SECONDS + " s";
        }
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        if (message == null) {
            return root.getClass().getSimpleName();
        }
        int end = message.indexOf('\n');
        return (end < 0 ? message : message.substring(0, end)).strip();
    }
}
