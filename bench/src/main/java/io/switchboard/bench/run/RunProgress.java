package io.switchboard.bench.run;

/** Told how a run is going, to draw a progress bar. Called from the harness's threads. */
public interface RunProgress {

    /** Ignores everything. */
    RunProgress NONE = new RunProgress() {
        @Override
        public void phase(String phase) {}

        @Override
        public void sample(Sample sample) {}
    };

    /** The run entered a phase: {@code setup}, {@code warm-up}, {@code measuring}, {@code draining}, {@code cleanup}. */
    void phase(String phase);

    /** A second of throughput and latency. */
    void sample(Sample sample);
}
