package dev.lanes.spring.stock;

import com.jayway.jsonpath.JsonPath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** A plain JDK HTTP client: real requests to the port the test's server listens on. */
final class Http {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    private final String base;

    Http(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    /** A response: its status, headers and body. */
    record Answer(int status, Map<String, java.util.List<String>> headers, String body) {
        <T> T read(String path) {
            return JsonPath.parse(body).read(path);
        }

        Optional<String> header(String name) {
            return headers.entrySet().stream()
                    .filter(entry -> entry.getKey().equalsIgnoreCase(name))
                    .flatMap(entry -> entry.getValue().stream())
                    .findFirst();
        }
    }

    /** POST {@code path} with {@code body} and the given headers (name, value, name, value...). */
    Answer post(String path, String body, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return send(request);
    }

    Answer get(String path) {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
    }

    private Answer send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> response =
                    client.send(request.timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), response.headers().map(), response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + request, e);
        }
    }
}
