package io.switchboard.bench.workload;

import java.util.concurrent.ThreadLocalRandom;

/** How producers choose message keys (OpenMessaging Benchmark's key distributors). */
public enum KeyDistribution {
    /** No key: the broker or client spreads messages over partitions. */
    NO_KEY,
    /** Keys cycle through a fixed set, so every partition gets an even share. */
    KEY_ROUND_ROBIN,
    /** A random key per message. */
    RANDOM;

    private static final int ROUND_ROBIN_KEYS = 1024;
    private static final String[] KEYS = new String[ROUND_ROBIN_KEYS];

    static {
        for (int i = 0; i < ROUND_ROBIN_KEYS; i++) {
            KEYS[i] = "k" + i;
        }
    }

    /** The key of the {@code sequence}-th message of one producer, or null for {@link #NO_KEY}. */
    public String key(long sequence) {
        return switch (this) {
            case NO_KEY -> null;
            case KEY_ROUND_ROBIN -> KEYS[(int) (sequence % ROUND_ROBIN_KEYS)];
            case RANDOM -> KEYS[ThreadLocalRandom.current().nextInt(ROUND_ROBIN_KEYS)];
        };
    }
}
