package io.switchboard.internal.fleet;

import io.switchboard.ConfigurationException;
import io.switchboard.spi.BrokerConfig;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Collection;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The {@code switchboard.control.*} properties (common properties of a multi-instance Switchboard):
 * {@code instance} (the instance whose broker carries the control channel; default the first),
 * {@code fleet} (the application's name: replicas with the same fleet share routes; default
 * {@code switchboard}), {@code replica} (this replica's id; default host name plus a random
 * suffix), {@code enabled} (true turns the control plane on with the defaults),
 * {@code startup-timeout} (30s), {@code write-timeout} (10s), {@code replica-timeout} (5s) and
 * {@code refresh} (1h, how often the leader appends every route again). Setting any of
 * {@code enabled=true}, {@code instance} or {@code fleet} turns the control plane on.
 *
 * @param fleet the fleet name
 * @param replica this replica's id
 * @param instance the control instance's name
 */
public record FleetSettings(String fleet, String replica, String instance, Duration startupTimeout, Duration writeTimeout,
        Duration replicaTimeout, Duration refresh) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,60}");

    /** The settings, or null when the control plane is not configured. */
    public static FleetSettings from(BrokerConfig common, Collection<String> instances) {
        boolean on = common.getBoolean("switchboard.control.enabled", false) || common.get("switchboard.control.instance") != null
                || common.get("switchboard.control.fleet") != null;
        if (!on || !common.getBoolean("switchboard.control.enabled", true)) {
            return null;
        }
        String instance = common.get("switchboard.control.instance", instances.iterator().next());
        if (!instances.contains(instance)) {
            throw new ConfigurationException("Property 'switchboard.control.instance' is '" + instance + "', which is not a broker "
                    + "instance of this Switchboard (instances: " + instances + "); name one of them");
        }
        String fleet = common.get("switchboard.control.fleet", "switchboard");
        if (!NAME.matcher(fleet).matches()) {
            throw new ConfigurationException("Property 'switchboard.control.fleet' is '" + fleet + "' but must be 1 to 60 letters, digits,"
                    + " '_' or '-' (it names the control channel's topics and queues), such as \"order-service\"");
        }
        String replica = common.get("switchboard.control.replica", defaultReplica());
        if (!NAME.matcher(replica).matches()) {
            throw new ConfigurationException("Property 'switchboard.control.replica' is '" + replica + "' but must be 1 to 60 letters,"
                    + " digits, '_' or '-', such as \"pod-7f9c\"");
        }
        return new FleetSettings(fleet, replica, instance,
                positive(common, "switchboard.control.startup-timeout", Duration.ofSeconds(30)),
                positive(common, "switchboard.control.write-timeout", Duration.ofSeconds(10)),
                positive(common, "switchboard.control.replica-timeout", Duration.ofSeconds(5)),
                positive(common, "switchboard.control.refresh", Duration.ofHours(1)));
    }

    private static Duration positive(BrokerConfig c, String key, Duration def) {
        Duration d = c.getDuration(key, def);
        if (d.isNegative() || d.isZero()) {
            throw new ConfigurationException("Property '" + key + "' is " + d + " but must be positive, such as " + def.toString()
                    .substring(2).toLowerCase(Locale.ROOT));
        }
        return d;
    }

    private static String defaultReplica() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName().replaceAll("[^A-Za-z0-9_-]", "-");
        } catch (UnknownHostException e) {
            host = "replica";
        }
        if (host.length() > 50) {
            host = host.substring(0, 50);
        }
        return host + "-" + UUID.randomUUID().toString().substring(0, 6);
    }

    String logName() {
        return "switchboard-" + fleet + "-routes";
    }

    String busName() {
        return "switchboard-" + fleet + "-bus";
    }

    String leaderName() {
        return "switchboard-" + fleet + "-leader";
    }
}
