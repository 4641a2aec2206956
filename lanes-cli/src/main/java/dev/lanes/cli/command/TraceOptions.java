package dev.lanes.cli.command;

import dev.lanes.cli.trace.DemoTracing;
import java.net.URI;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code --trace} and {@code --otlp-endpoint}: OpenTelemetry spans of the run. */
final class TraceOptions {
    @Option(
            names = "--trace",
            description = "Trace every send, command lane and processor with OpenTelemetry; the HTML report draws"
                    + " one traced transfer as a waterfall.")
    boolean trace;

    @Option(
            names = "--otlp-endpoint",
            paramLabel = "URL",
            description = "Also export every span over OTLP/HTTP to this traces endpoint, e.g."
                    + " http://localhost:4318/v1/traces (implies --trace).")
    @Nullable
    URI otlpEndpoint;

    void validate(CommandSpec spec) {
        URI endpoint = otlpEndpoint;
        if (endpoint != null
                && (endpoint.getScheme() == null
                        || !(endpoint.getScheme().equals("http")
                                || endpoint.getScheme().equals("https"))
                        || endpoint.getHost() == null)) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--otlp-endpoint must be an http or https URL with a host, e.g."
                            + " http://localhost:4318/v1/traces: " + endpoint);
        }
    }

    /** The run's tracing, or null when neither option is given. */
    @Nullable
    DemoTracing open() {
        return trace || otlpEndpoint != null ? DemoTracing.start(otlpEndpoint) : null;
    }
}
