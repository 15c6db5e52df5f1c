package io.switchboard.routing;

/**
 * What a mirror route's shadow saw against its primary, from this process's subscriptions and
 * publishers: the "is the shadow safe to take traffic" answer.
 *
 * @param destination the destination
 * @param primary the primary instance
 * @param shadow the shadow instance
 * @param shadowSent publishes the shadow acknowledged
 * @param shadowFailed publishes the shadow failed
 * @param shadowDropped publishes not sent to the shadow because its buffer was full
 * @param shadowPending publishes handed to the shadow and not yet acknowledged or failed
 * @param primarySeen messages the primary delivered to subscriptions here
 * @param shadowSeen messages the shadow delivered to subscriptions here
 * @param missing messages the primary delivered that the shadow had not delivered within the grace period
 * @param duplicated messages the shadow delivered more than once
 * @param reordered messages the shadow delivered before an earlier message of the same key
 * @param keys keys compared
 */
public record ShadowReport(String destination, String primary, String shadow, long shadowSent, long shadowFailed,
        long shadowDropped, long shadowPending, long primarySeen, long shadowSeen, long missing, long duplicated, long reordered, long keys) {

    /** {@return true when the shadow missed, duplicated and reordered nothing, with something compared} */
    public boolean clean() {
        return primarySeen > 0 && missing == 0 && duplicated == 0 && reordered == 0 && shadowFailed == 0 && shadowDropped == 0;
    }

    /** {@return a short report} */
    public String summary() {
        String verdict = primarySeen == 0 ? "nothing compared yet (no subscription here saw primary traffic)"
                : clean() ? "shadow '" + shadow + "' matched primary '" + primary + "' on every message: safe to take traffic"
                : "shadow '" + shadow + "' differs from primary '" + primary + "': not yet safe to take traffic";
        return "Shadow check of '" + destination + "': " + verdict + "\n"
                + String.format("  publishes to shadow: %d acknowledged, %d failed, %d dropped (buffer full), %d pending%n",
                        shadowSent, shadowFailed, shadowDropped, shadowPending)
                + String.format("  delivered: primary %d, shadow %d, over %d key(s)%n", primarySeen, shadowSeen, keys)
                + String.format("  shadow missing %d, duplicated %d, reordered %d", missing, duplicated, reordered);
    }
}
