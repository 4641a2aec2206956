package dev.lanes.internal;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Random identifiers for messages and streams, made on the hot path.
 *
 * <p>{@link UUID#randomUUID()} draws from one shared {@code SecureRandom}, which costs a lock and a kernel entropy mix
 * per call; two ids per command made it a visible share of the command path. These are version 4 UUIDs (122 random
 * bits) from the calling thread's {@link ThreadLocalRandom}: unique with overwhelming probability across threads and
 * processes, and not meant to be unguessable (never use them as secrets or tokens).
 */
public final class Ids {
    private Ids() {}

    /** A random (version 4, IETF variant) UUID, as its canonical 36-character string. */
    public static String randomUuid() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long high = (random.nextLong() & ~0xF000L) | 0x4000L; // version 4
        long low = (random.nextLong() & ~(0x3L << 62)) | (0x2L << 62); // IETF variant
        return new UUID(high, low).toString();
    }
}
