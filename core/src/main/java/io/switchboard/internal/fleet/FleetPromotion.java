package io.switchboard.internal.fleet;

import io.switchboard.routing.Promotion;
import io.switchboard.routing.PromotionGate;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * A promotion gate of the fleet as this replica sees it: the newest gate record of its destination
 * on the route log. Whichever replica leads drives it; every replica's view follows the records,
 * and {@link #finished()} completes once, when the record of its end arrives.
 */
final class FleetPromotion implements Promotion {

    private final String destination;
    private final String id;
    private final PromotionGate gate;
    private final Consumer<FleetPromotion> onCancel;
    private final CompletableFuture<State> finished = new CompletableFuture<>();
    private volatile FleetRecord record;

    FleetPromotion(String destination, FleetRecord record, Consumer<FleetPromotion> onCancel) {
        this.destination = destination;
        this.id = record.field("id");
        this.gate = parseGate(record.field("gate"));
        this.onCancel = onCancel;
        update(record);
    }

    /** Takes a newer record of the same gate. */
    void update(FleetRecord newer) {
        this.record = newer;
        State s = state();
        if (s != State.RUNNING) {
            finished.complete(s);
        }
    }

    /** Ends this view because another gate replaced it. */
    void replaced() {
        finished.complete(State.CANCELLED);
    }

    String id() {
        return id;
    }

    FleetRecord record() {
        return record;
    }

    int step() {
        return Integer.parseInt(record.field("step"));
    }

    long stepStartSecond() {
        return Long.parseLong(record.field("stepStart"));
    }

    static String formatGate(PromotionGate g) {
        StringBuilder steps = new StringBuilder();
        for (int s : g.steps()) {
            steps.append(steps.length() == 0 ? "" : ";").append(s);
        }
        return String.join(",", g.source(), g.target(), steps, Long.toString(g.hold().toMillis()), Double.toString(g.maxP99Ratio()),
                Long.toString(g.p99Slack().toNanos() / 1000), Double.toString(g.maxErrorRateIncrease()), Long.toString(g.minSamples()),
                Long.toString(g.breachFor().toMillis()), Long.toString(g.maxHold().toMillis()));
    }

    static PromotionGate parseGate(String text) {
        String[] p = text.split(",");
        PromotionGate.Builder b = PromotionGate.from(p[0]).to(p[1])
                .steps(Arrays.stream(p[2].split(";")).mapToInt(Integer::parseInt).toArray())
                .hold(Duration.ofMillis(Long.parseLong(p[3]))).maxP99Ratio(Double.parseDouble(p[4]))
                .p99Slack(Duration.ofNanos(Long.parseLong(p[5]) * 1000)).maxErrorRateIncrease(Double.parseDouble(p[6]))
                .minSamples(Long.parseLong(p[7]));
        if (p.length > 9) { // a record written before the gate had these keeps their defaults
            b.breachFor(Duration.ofMillis(Long.parseLong(p[8]))).maxHold(Duration.ofMillis(Long.parseLong(p[9])));
        }
        return b.build();
    }

    @Override
    public String destination() {
        return destination;
    }

    @Override
    public PromotionGate gate() {
        return gate;
    }

    @Override
    public int targetPercent() {
        return Integer.parseInt(record.field("percent"));
    }

    @Override
    public State state() {
        return State.valueOf(record.field("state"));
    }

    @Override
    public String reason() {
        String r = record.field("reason");
        return r == null ? "" : r;
    }

    @Override
    public CompletionStage<State> finished() {
        return finished;
    }

    @Override
    public void cancel() {
        if (state() == State.RUNNING) {
            onCancel.accept(this);
        }
    }

    @Override
    public String toString() {
        return "Promotion[" + destination + ", " + gate + ", " + state() + ", " + reason() + ", fleet]";
    }
}
