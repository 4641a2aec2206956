package dev.lanes.spring.sample;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

/** A plain JDK HTTP client for the sample's API: real requests to the port the test's server listens on. */
final class BankHttp {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    private final String base;

    BankHttp(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    /** A response: its status and its body as JSON. */
    record Answer(int status, String body) {
        DocumentContext json() {
            return JsonPath.parse(body);
        }

        <T> T read(String path) {
            return json().read(path);
        }
    }

    /** Posts {@code command} to the starter's endpoint with a fresh request id. */
    Answer command(String id, String command, String wait, String body) {
        return command(id, command, wait, body, UUID.randomUUID().toString());
    }

    /** Posts {@code command} with the request id {@code key}: a retry sends the same key. */
    Answer command(String id, String command, String wait, String body, String key) {
        return send(
                HttpRequest.newBuilder(URI.create(base + "/commands/account/" + id + "/" + command + "?wait=" + wait))
                        .header("Content-Type", "application/json")
                        .header("Idempotency-Key", key)
                        .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    Answer get(String path) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
    }

    private Answer send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> response =
                    client.send(request.timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + request, e);
        }
    }
}
