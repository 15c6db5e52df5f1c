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
 * both sides and the like-for-like value, so that a team can rerun the comparison fairly.
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
