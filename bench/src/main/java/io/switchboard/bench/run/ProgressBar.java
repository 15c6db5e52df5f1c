package io.switchboard.bench.run;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * The progress of a suite on stderr: on a terminal one line redrawn in place (bar by estimated
 * time, current run, phase, live throughput and p99); otherwise one line per run.
 */
public final class ProgressBar implements RunProgress {

    private static final int WIDTH = 24;

    private final PrintStream out;
    private final boolean interactive;
    private final int total;
    private final double totalSeconds;
    private final long suiteStart = System.nanoTime();
    private double doneSeconds;
    private int done;
    private PlannedRun current;
    private String phase = "";
    private Sample last;
    private final StringBuilder phaseTimes = new StringBuilder();
    private long phaseStart = System.nanoTime();

    /** A bar for this plan. */
    public ProgressBar(PrintStream out, boolean interactive, List<PlannedRun> plan) {
        this.out = out;
        this.interactive = interactive;
        this.total = plan.size();
        this.totalSeconds = plan.stream().mapToDouble(PlannedRun::estimatedSeconds).sum();
    }

    /** The estimated time of the whole plan, in seconds. */
    public double estimatedSeconds() {
        return totalSeconds;
    }

    synchronized void start(PlannedRun run) {
        current = run;
        last = null;
        phase = "setup";
        phaseTimes.setLength(0);
        phaseStart = System.nanoTime();
        draw();
    }

    synchronized void finish(RunResult result) {
        endPhase();
        done++;
        doneSeconds += current.estimatedSeconds();
        if (!interactive) {
            out.printf(Locale.ROOT, "[%d/%d] %s %s/%s: %s (%s)%n", done, total, result.workload().label(), result.broker(),
                    result.mode(), result.ok() ? String.format(Locale.ROOT, "%,.0f msg/s, p99 %.2f ms",
                            result.publishRate(), result.endToEnd().p99()) : "FAILED " + result.error(), phaseTimes);
        }
        current = null;
    }

    /** A line of its own between runs (the JVM warm-up's). */
    synchronized void note(String text) {
        if (interactive) {
            out.print("\r" + " ".repeat(150) + "\r");
        }
        out.println(text);
        out.flush();
    }

    /** Clears the line at the end. */
    public synchronized void close() {
        if (interactive) {
            out.print("\r" + " ".repeat(150) + "\r");
            out.flush();
        }
    }

    @Override
    public synchronized void phase(String newPhase) {
        if (newPhase.equals(phase)) {
            return;
        }
        endPhase();
        phase = newPhase;
        draw();
    }

    @Override
    public synchronized void sample(Sample sample) {
        last = sample;
        draw();
    }

    private void endPhase() {
        long now = System.nanoTime();
        phaseTimes.append(phaseTimes.length() == 0 ? "" : ", ").append(phase)
                .append(String.format(Locale.ROOT, " %.1f s", (now - phaseStart) / 1e9));
        phaseStart = now;
    }

    private void draw() {
        if (!interactive || current == null) {
            return;
        }
        double fraction = totalSeconds == 0 ? 0 : Math.min(1, doneSeconds / totalSeconds);
        int filled = (int) Math.round(fraction * WIDTH);
        long elapsed = (System.nanoTime() - suiteStart) / 1_000_000_000L;
        String live = last == null ? "" : String.format(Locale.ROOT, " pub %,.0f/s cons %,.0f/s p99 %.1f ms",
                last.publishRate(), last.consumeRate(), last.p99Millis());
        String line = String.format(Locale.ROOT, "\r[%s%s] %d/%d %d:%02d %s %s/%s %s%s", "#".repeat(filled),
                "-".repeat(WIDTH - filled), done, total, elapsed / 60, elapsed % 60, shorten(current.workload().label(), 48),
                current.broker(), current.mode(), phase, live);
        out.print(line.length() > 150 ? line.substring(0, 150) : line + " ".repeat(150 - line.length()));
        out.flush();
    }

    private static String shorten(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max - 1) + "…";
    }
}
