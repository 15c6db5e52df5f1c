package io.switchboard.bench.driver;

/** What every native-client driver shares: its broker id and mode. */
abstract class NativeDriver implements BenchDriver {

    private final String broker;

    NativeDriver(String broker) {
        this.broker = broker;
    }

    @Override
    public final String broker() {
        return broker;
    }

    @Override
    public final String mode() {
        return NATIVE;
    }
}
