package dev.lanes.examples.inventory;

import com.jayway.jsonpath.JsonPath;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/** A plain JDK HTTP client for the service: real requests to the port it listens on. */
final class Http {
    private final HttpClient client;
    private final String base;
    private final Duration timeout;

    Http(int port, Duration timeout) {
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(timeout)
                .build();
        this.base = "http://127.0.0.1:" + port;
        this.timeout = timeout;
    }

    /** A response: its status, its {@code Idempotency-Key} header and its body. */
    record Answer(int status, Optional<String> key, String body) {
        <T> T read(String path) {
            return JsonPath.parse(body).read(path);
        }
    }

    /**
     * Posts {@code command} ({@code body} its JSON) to item {@code sku} with the request id {@code key}, waiting for
     * {@code wait}: a retry sends the same key and body. Throws {@link IOException} when no answer came (refused,
     * reset, timed out).
     */
    Answer command(String sku, String command, String body, String key, String wait)
            throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(base + "/commands/item/" + sku + "/" + command + "?wait=" + wait))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    Answer get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
    }

    private Answer send(HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpResponse<String> response =
                client.send(request.timeout(timeout).build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(response.statusCode(), response.headers().firstValue("Idempotency-Key"), response.body());
    }
}
