package io.switchboard.internal.comparison;

import io.switchboard.spi.PerformanceSetting;
import io.switchboard.spi.PerformanceSetting.Effect;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Says when a latency finding's size comes from a client setting rather than from the broker: a batching wait on the
 * slower side (Kafka's {@code linger.ms}, RocketMQ's batching) explains publish and end-to-end gaps up to the wait; a
 * confirm wait that only the slower side has explains publish gaps. Each explanation names the setting, its value on
 * both sides and the like-for-like value, so that a team can rerun the comparison fairly. A client-CPU finding between
 * instances whose clients sent batches of different sizes says so too: CPU per message falls as batches grow.
 */
final class SettingEffects {

    private final Map<String, String> brokers;
    private final Map<String, List<PerformanceSetting>> settings;

    SettingEffects(Map<String, String> brokers, Map<String, List<PerformanceSetting>> settings) {
        this.brokers = brokers;
        this.settings = Map.copyOf(settings);
    }

    /**
     * What the settings say about a difference: {@code causes} account for at least half of it (offered as "because
     * ..."), {@code notes} say how much a setting can account for when that is less than half, and how much is left
     * unexplained.
     */
    record Explained(List<String> causes, List<String> notes) {}

    /** {@return why {@code behind} is slower on {@code figure} as far as settings tell} */
    Explained explain(String figure, String ahead, String behind, double aheadMs, double behindMs) {
        if (!figure.startsWith("publish") && !figure.startsWith("e2e")) {
            return new Explained(List.of(), List.of());
        }
        List<String> causes = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        double gap = behindMs - aheadMs;
        Optional<PerformanceSetting> slowWait = longest(behind);
        Optional<PerformanceSetting> fastWait = longest(ahead);
        double slow = slowWait.map(PerformanceSetting::waitMs).orElse(0.0);
        double fast = fastWait.map(PerformanceSetting::waitMs).orElse(0.0);
        if (slowWait.isPresent() && slow > fast) {
            PerformanceSetting s = slowWait.get();
            String likeForLike = fastWait.map(PerformanceSetting::value).orElse("0");
            double share = Math.min(slow - fast, gap);
            String what = String.format(Locale.ROOT, "%s waits up to %s ms to fill a batch (%s %s); %s %s; set %s's %s=%s "
                    + "(property %s) to compare like for like", behind, fmt(slow), brokers.get(behind), s.text(), ahead,
                    fastWait.map(f -> "waits up to " + fmt(fast) + " ms (" + brokers.get(ahead) + " " + f.text() + ")")
                            .orElse("sends at once"),
                    behind, s.name(), likeForLike, s.property());
            if (share >= gap / 2) {
                causes.add(String.format(Locale.ROOT, "%s (that accounts for at most %s of the %.2f ms difference)", what,
                        fmt(share), gap));
            } else {
                notes.add(String.format(Locale.ROOT, "not because of a setting: %s, but that can account for at most %s of "
                        + "the %.2f ms difference, and %.2f ms (%.0f%%) is not explained by any setting", what, fmt(share), gap,
                        gap - share, (gap - share) / gap * 100));
            }
        }
        if (figure.startsWith("publish")) {
            Optional<PerformanceSetting> slowConfirm = first(behind, Effect.CONFIRM_WAIT);
            if (slowConfirm.isPresent() && first(ahead, Effect.CONFIRM_WAIT).isEmpty()) {
                PerformanceSetting s = slowConfirm.get();
                causes.add(String.format(Locale.ROOT, "%s's publish waits for the broker's confirm (%s %s); %s's does not wait "
                        + "for one: compare with the same guarantee on both (property %s, or a confirming setting on %s)",
                        behind, brokers.get(behind), s.text(), ahead, s.property(), ahead));
            }
        }
        return new Explained(causes, notes);
    }

    /**
     * Batch sizes further apart than this ratio make a client-CPU finding between the instances carry a note: at 1.5x
     * the fixed cost of a request (its framing, a network write, its completion) is spread over a third fewer records.
     */
    static final double BATCH_RATIO = 1.5;

    /**
     * {@return a note for a client-CPU finding between {@code a} and {@code b} when both sent measured batch sizes more
     * than {@value #BATCH_RATIO}x apart, naming the batching settings of both; else nothing}
     *
     * @param a one instance
     * @param aPerRequest the records per request a's client sent over the window (NaN: unknown)
     * @param b the other instance
     * @param bPerRequest b's
     */
    List<String> batchSizes(String a, double aPerRequest, String b, double bPerRequest) {
        if (!(aPerRequest > 0) || !(bPerRequest > 0)
                || Math.max(aPerRequest, bPerRequest) / Math.min(aPerRequest, bPerRequest) <= BATCH_RATIO) {
            return List.of();
        }
        List<PerformanceSetting> sa = batching(a);
        List<PerformanceSetting> sb = batching(b);
        String bigger = aPerRequest > bPerRequest ? a : b;
        String smaller = bigger.equals(a) ? b : a;
        List<PerformanceSetting> big = bigger.equals(a) ? sa : sb;
        List<PerformanceSetting> small = bigger.equals(a) ? sb : sa;
        List<String> differing = new ArrayList<>();
        List<String> properties = new ArrayList<>();
        for (PerformanceSetting s : big) {
            Optional<PerformanceSetting> other = small.stream().filter(o -> o.name().equals(s.name())).findFirst();
            if (other.isPresent() && !other.get().value().equals(s.value())) {
                differing.add(String.format(Locale.ROOT, "%s=%s", s.name(), other.get().value()));
                properties.add(s.property());
            }
        }
        String which = String.format(Locale.ROOT, "%s vs %s", text(a, sa), text(b, sb));
        String advice;
        if (!differing.isEmpty()) {
            advice = String.format(Locale.ROOT, "set %s's %s (as %s's; property %s) or the other way round to compare like "
                    + "for like", bigger, String.join(", ", differing), smaller, String.join(", ", properties));
        } else if (brokers.get(a) != null && brokers.get(a).equals(brokers.get(b))) {
            advice = "the settings are the same, so the load or the keys made the batches differ: compare at the same "
                    + "rate and keys";
        } else {
            advice = "part of the difference is the batching, not the broker";
        }
        return List.of(String.format(Locale.ROOT, "measured at different batch sizes: %s sent %s records a request, %s %s "
                + "(%s): CPU per message falls as batches grow; %s", a, fmt1(aPerRequest), b, fmt1(bPerRequest), which,
                advice));
    }

    /** The settings of an instance that shape its batches: batching waits and batch sizes. */
    private List<PerformanceSetting> batching(String instance) {
        return settings.getOrDefault(instance, List.of()).stream()
                .filter(s -> s.effect() == Effect.BATCHING_WAIT || s.name().toLowerCase(Locale.ROOT).contains("batch"))
                .toList();
    }

    private String text(String instance, List<PerformanceSetting> batching) {
        String broker = brokers.get(instance);
        return batching.isEmpty() ? broker + " without a batching setting"
                : broker + " " + String.join(", ", batching.stream().map(PerformanceSetting::text).toList());
    }

    private static String fmt1(double v) {
        return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v);
    }

    /** {@return one line per instance with its settings, or nothing when no adapter reports any} */
    List<String> describe(List<String> instances) {
        List<String> lines = new ArrayList<>();
        for (String i : instances) {
            List<PerformanceSetting> list = settings.getOrDefault(i, List.of());
            if (!list.isEmpty()) {
                lines.add(i + " (" + brokers.get(i) + "): " + String.join(", ", list.stream().map(PerformanceSetting::text).toList()));
            }
        }
        return lines;
    }

    private Optional<PerformanceSetting> longest(String instance) {
        return settings.getOrDefault(instance, List.of()).stream().filter(s -> s.effect() == Effect.BATCHING_WAIT && s.waitMs() > 0)
                .max((x, y) -> Double.compare(x.waitMs(), y.waitMs()));
    }

    private Optional<PerformanceSetting> first(String instance, Effect effect) {
        return settings.getOrDefault(instance, List.of()).stream().filter(s -> s.effect() == effect).findFirst();
    }

    private static String fmt(double ms) {
        return ms == Math.rint(ms) ? Long.toString((long) ms) : String.format(Locale.ROOT, "%.2f", ms);
    }
}
