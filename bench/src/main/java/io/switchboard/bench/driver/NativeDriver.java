package io.switchboard.bench.driver;

/** What every native-client driver shares: its broker id and mode. */
abstract class NativeDriver implements BenchDriver {

    private final String broker;
    /** True when messages carry the SDK's CloudEvents headers too (mode {@link #NATIVE_ENVELOPE}). */
    final boolean envelope;
    private final String mode;

    NativeDriver(String broker, boolean envelope) {
        this(broker, envelope, envelope ? NATIVE_ENVELOPE : NATIVE);
    }

    NativeDriver(String broker, boolean envelope, String mode) {
        this.broker = broker;
        this.envelope = envelope;
        this.mode = mode;
    }

    @Override
    public final String broker() {
        return broker;
    }

    @Override
    public final String mode() {
        return mode;
    }
}
