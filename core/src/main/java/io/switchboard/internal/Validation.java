package io.switchboard.internal;

import io.switchboard.ConfigurationException;
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

    /** The most partitions (or queues) an auto-provisioned destination may have. */
    public static final int MAX_PARTITIONS = 10_000;

    /**
     * {@code switchboard.partitions}, else the adapter's {@link Capabilities#defaultPartitions()};
     * refused with the key and the fix unless 1 to {@value #MAX_PARTITIONS}.
     */
    public static int partitions(BrokerConfig config, Capabilities capabilities) {
        int partitions = config.getInt("switchboard.partitions", capabilities.defaultPartitions());
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            throw new ConfigurationException("Property 'switchboard.partitions' of broker instance '" + config.instanceName()
                    + "' is " + partitions + " but must be between 1 and " + MAX_PARTITIONS + ", such as 4");
        }
        return partitions;
    }

    /**
     * Creates the destination when {@code switchboard.auto-provision} is on (the default), with
     * {@link #partitions(BrokerConfig, Capabilities)} partitions.
     */
    public static void autoProvision(BrokerConfig config, Capabilities capabilities, Provisioner provisioner,
            String destination) {
        autoProvision(config, capabilities, provisioner, java.util.List.of(destination));
    }

    /**
     * The queue that provisions an instance's destinations in batched rounds, with {@link #partitions} partitions each;
     * null when {@code switchboard.auto-provision} is off.
     */
    public static io.switchboard.internal.provision.ProvisionQueue autoProvisioning(BrokerConfig config,
            Capabilities capabilities, Provisioner provisioner) {
        if (!config.getBoolean("switchboard.auto-provision", true)) {
            return null;
        }
        String mode = config.get("switchboard.provisioning", "background").trim();
        if (!mode.equals("background") && !mode.equals("inline")) {
            throw new ConfigurationException("Property 'switchboard.provisioning' of broker instance '" + config.instanceName()
                    + "' is '" + mode + "'; use background (the default: batched rounds off the caller's thread) or inline "
                    + "(each build() and subscribe() provisions before it returns)");
        }
        return new io.switchboard.internal.provision.ProvisionQueue(config.instanceName(), provisioner,
                d -> DestinationSpec.of(d, partitions(config, capabilities)), // a wrong setting fails the first build()
                mode.equals("inline"));
    }

    /** As {@link #autoProvision(BrokerConfig, Capabilities, Provisioner, String)} for several, in one call to the adapter. */
    public static void autoProvision(BrokerConfig config, Capabilities capabilities, Provisioner provisioner,
            java.util.List<String> destinations) {
        if (config.getBoolean("switchboard.auto-provision", true)) {
            int partitions = partitions(config, capabilities);
            provisioner.ensureDestinations(destinations.stream().map(d -> DestinationSpec.of(d, partitions)).toList());
        }
    }
}
