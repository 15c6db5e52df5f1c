package io.switchboard.internal;

import io.switchboard.InvalidDestinationException;
import io.switchboard.spi.BrokerConfig;
import io.switchboard.spi.Capabilities;
import io.switchboard.spi.DestinationSpec;
import io.switchboard.spi.Provisioner;

/** Checks done once, when a publisher or subscription is built. */
public final class Validation {

    private Validation() {}

    /** Throws {@link InvalidDestinationException} naming the destination, the broker and the rule. */
    public static void destination(Capabilities capabilities, String instance, String destination) {
        capabilities.destinationNames().violation(destination).ifPresent(rule -> {
            throw new InvalidDestinationException("Destination '" + destination + "' is not valid on broker '" + instance
                    + "' (" + capabilities.brokerId() + "): " + rule + ". Rename the destination");
        });
    }

    /**
     * Creates the destination when {@code switchboard.auto-provision} is on (the default), with
     * {@code switchboard.partitions} partitions, else the adapter's {@link Capabilities#defaultPartitions()}.
     */
    public static void autoProvision(BrokerConfig config, Capabilities capabilities, Provisioner provisioner,
            String destination) {
        if (config.getBoolean("switchboard.auto-provision", true)) {
            int partitions = config.getInt("switchboard.partitions", capabilities.defaultPartitions());
            provisioner.ensureDestination(DestinationSpec.of(destination, partitions));
        }
    }
}
