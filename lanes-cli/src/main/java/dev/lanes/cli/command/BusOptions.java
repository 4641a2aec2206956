package dev.lanes.cli.command;

import dev.lanes.cli.bank.Buses;
import dev.lanes.kafka.KafkaOptions;
import dev.lanes.kafka.TopicNaming;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** Which buses carry the bank's commands and events: in memory (default) or Kafka, and how many instances share it. */
final class BusOptions {
    /** How long the check at open waits for a broker to answer. */
    static final int PROBE_SECONDS = 5;
    /** How long each step of deleting a run's topics and groups may take. */
    private static final int CLEANUP_SECONDS = 30;

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

    @Option(
            names = "--delete-topics",
            description = "With --bus kafka: delete the run's topics (lanes_run_<millis>.*) and consumer groups when"
                    + " the run ends, so repeated runs leave nothing on the broker (kept for inspection otherwise).")
    boolean deleteTopics;

    /** The prefix of the run's topics and consumer groups, once {@link #open()} chose it. */
    private @Nullable String runPrefix;

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
        if (kind == Kind.MEMORY && deleteTopics) {
            throw new ParameterException(spec.commandLine(), "--delete-topics needs --bus kafka");
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
        String prefix = "lanes_run_" + System.currentTimeMillis();
        runPrefix = prefix;
        KafkaOptions options = KafkaOptions.of(servers)
                .withTopics(TopicNaming.perContext(prefix))
                .withTopicCreation(partitions, (short) 1)
                .withInstanceId("lanes-demo");
        for (Map.Entry<String, String> property : kafkaProperties.entrySet()) {
            options = options.withClientProperty(property.getKey(), property.getValue());
        }
        return Buses.kafka(options, instances);
    }

    /**
     * With {@code --delete-topics}, after the run's clients closed: deletes the consumer groups and the topics whose
     * names begin with the run's prefix. A failure is told on {@code err}, naming the prefix, and does not fail the
     * run: its figures stand.
     */
    void deleteRunTopics(PrintWriter err) {
        String prefix = runPrefix;
        String servers = bootstrapServers;
        if (!deleteTopics || prefix == null || servers == null) {
            return;
        }
        try (Admin admin = Admin.create(adminProperties(servers, kafkaProperties, "lanes-cli-cleanup"))) {
            List<String> groups = admin
                    .listGroups(ListGroupsOptions.forConsumerGroups())
                    .all()
                    .get(CLEANUP_SECONDS, TimeUnit.SECONDS)
                    .stream()
                    .map(GroupListing::groupId)
                    .filter(group -> group.startsWith(prefix + "."))
                    .collect(Collectors.toList());
            if (!groups.isEmpty()) {
                admin.deleteConsumerGroups(groups).all().get(CLEANUP_SECONDS, TimeUnit.SECONDS);
            }
            List<String> topics = admin.listTopics().names().get(CLEANUP_SECONDS, TimeUnit.SECONDS).stream()
                    .filter(topic -> topic.startsWith(prefix + "."))
                    .collect(Collectors.toList());
            if (!topics.isEmpty()) {
                admin.deleteTopics(topics).all().get(CLEANUP_SECONDS, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            notDeleted(err, prefix, "interrupted");
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            notDeleted(err, prefix, reason(e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e));
        }
    }

    private static void notDeleted(PrintWriter err, String prefix, String why) {
        err.println("Note: the run's topics and consumer groups " + prefix + ".* were not all deleted"
                + " (--delete-topics): " + why);
        err.flush();
    }

    private static Properties adminProperties(String servers, Map<String, String> clientProperties, String clientId) {
        Properties properties = new Properties();
        properties.putAll(clientProperties);
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
        properties.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Integer.toString(PROBE_SECONDS * 1000));
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Integer.toString(PROBE_SECONDS * 1000));
        return properties;
    }

    /** Checks that a broker answers, with the run's client settings (security ones included). */
    private static void probe(String servers, Map<String, String> clientProperties) {
        try (Admin admin = Admin.create(adminProperties(servers, clientProperties, "lanes-cli-probe"))) {
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
